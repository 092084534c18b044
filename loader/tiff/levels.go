package tiff

import "vastview/loader"

// maxLevels bounds the reduced-resolution levels read from SubIFDs.
const maxLevels = 32

// subPage parses the j-th SubIFD of p (its j+1-th reduced-resolution copy).
func (f *file) subPage(p *page, j int) (*page, error) {
	e := p.subifds
	if e.tag == 0 || !isUint(e) || uint64(j) >= e.count {
		return nil, formatErr("IFD at offset %d has no reduced-resolution level %d", p.ifd, j+1)
	}
	if err := f.values(e, "SubIFDs"); err != nil {
		return nil, err
	}
	return f.parsePage(int64(f.uintAt(e, uint64(j))))
}

// subLevels adds the reduced-resolution levels that page 0 lists in its
// SubIFDs (as tifffile writes pyramids) to m, returning the page of each
// added level as the template that the same level of other pages must
// match. Levels that do not shrink, or differ from page 0 in samples, are
// left out with all that follow them.
func (s *source) subLevels(m *loader.Meta) []*page {
	f, p0 := s.f, s.p0
	e := p0.subifds
	if e.tag == 0 || !isUint(e) || e.count == 0 || !f.check(e) {
		return nil
	}
	var tmpl []*page
	prev := p0
	n := len(m.Axes)
	for j := 0; j < int(min(e.count, maxLevels)); j++ {
		sp, err := f.subPage(p0, j)
		if err != nil || sp.spp != p0.spp || sp.dtype != p0.dtype || sp.planar != p0.planar ||
			sp.width > prev.width || sp.height > prev.height || sp.width*sp.height >= prev.width*prev.height {
			break
		}
		if !s.blocksFit(sp) {
			break
		}
		l := loader.Level{
			Shape:       append([]int(nil), m.Shape...),
			Chunk:       append([]int(nil), m.Levels[0].Chunk...),
			Scale:       append([]float64(nil), m.Spacing...),
			Translation: make([]float64, n),
		}
		l.Shape[n-2], l.Shape[n-1] = sp.height, sp.width
		if sp.tiled {
			l.Chunk[n-2], l.Chunk[n-1] = sp.bh, sp.bw
		} else {
			l.Chunk[n-2], l.Chunk[n-1] = chunkRows(sp), sp.width
		}
		for i, full := range []int{p0.height, p0.width} {
			a := n - 2 + i
			fct := float64(full) / float64(l.Shape[a])
			l.Scale[a] = m.Spacing[a] * fct
			l.Translation[a] = (fct - 1) / 2 * m.Spacing[a]
		}
		m.Levels = append(m.Levels, l)
		tmpl = append(tmpl, sp)
		prev = sp
	}
	return tmpl
}

// blocksFit reports whether all blocks of p lie inside the file.
func (s *source) blocksFit(p *page) bool {
	for b := 0; b < p.nblocks; b++ {
		if _, _, err := s.f.blockExtent(p, b); err != nil {
			return false
		}
	}
	return true
}
