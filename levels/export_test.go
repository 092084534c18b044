package levels

// BuiltFrom returns the first level Build computes: Build computes the
// levels from it on, and the finer computed levels are computed only where
// they are viewed. It equals Stored unless Options.BuildBytes left some out.
func (p *Pyramid) BuiltFrom() int { return p.built }
