package session

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"math"
	"strings"
	"time"

	"vastview/loader"
	"vastview/measure"
	"vastview/render"
	"vastview/render/oblique"
)

// roiResult is what was measured of one ROI: the figures of each visible
// channel of a region (an estimate from a coarse level first, then the
// level-0 figures), a line's profiles, a set's values at its points.
type roiResult struct {
	key      string             // the ROI and channels measured (see measureKey)
	cancel   context.CancelFunc // stops the work in flight
	chans    []int              // the channels measured
	stats    []measure.Stats    // a region's, per channel
	done     int                // level-0 chunks measured of total
	total    int
	final    bool              // the figures are level 0's, complete
	profiles []measure.Profile // a line's, per channel
	values   [][]float64       // a set of points': per point, per channel
	found    [][]bool          // whether each point lies on the data
	err      error             // why the measurement failed
	asked    time.Time         // when the input that changed the ROI came
	hist     []int64           // the histogram of the first channel
	plot     *image.RGBA       // the plot of the profiles or the histogram
	histLo   float64           // over [histLo, histHi]
	histHi   float64
}

// roiHistBins is the number of bins of an ROI's histogram.
const roiHistBins = 64

// roiID gives each ROI an identity that outlives its place in the list.
type roiID = uint64

// measureChannels are the channels measured: every visible one of a
// composite, the three of colour pixels, else the view's.
func measureChannels(m *loader.Meta, v render.View) []int {
	switch {
	case len(v.Channels) > 0:
		out := make([]int, len(v.Channels))
		for i, ch := range v.Channels {
			out[i] = ch.C
		}
		return out
	case m.RGB && v.Colormap == render.RGB:
		return []int{0, 1, 2}
	}
	return []int{v.C}
}

// measureKey says what a measurement measures: the ROI's geometry and
// the channels; a result whose key differs is stale.
func measureKey(r *ROI, chans []int) string {
	var obl oblique.Plane
	if r.Obl != nil {
		obl = *r.Obl
	}
	return fmt.Sprintf("%s|%v|%d|%d|%v|%v|%d|%d|%v|%v", r.Kind, r.Plane, r.At, r.T, r.Pts, r.Ats, r.Width, r.Depth, chans, obl)
}

// MeasurePlane is the plane r lies in, as package measure takes it.
func (r *ROI) MeasurePlane() measure.Plane {
	return measure.Plane{Orientation: r.Plane, T: r.T, Index: r.At, Oblique: r.Obl}
}

// Region is r as package measure measures it (nil for a line or points).
func (r *ROI) Region() measure.Region {
	switch r.Kind {
	case KindRect:
		y0, x0, y1, x1 := r.RectRange()
		return measure.Rect{Row0: y0, Col0: x0, Row1: y1, Col1: x1}
	case KindEllipse:
		a, b := r.Pts[0], r.Pts[1]
		return measure.Ellipse{Center: measure.Pt{Row: (a.Row + b.Row) / 2, Col: (a.Col + b.Col) / 2},
			RadiusRow: math.Abs(b.Row-a.Row) / 2, RadiusCol: math.Abs(b.Col-a.Col) / 2}
	case KindPolygon:
		vs := make([]measure.Pt, len(r.Pts))
		for i, p := range r.Pts {
			vs[i] = measure.Pt{Row: p.Row, Col: p.Col}
		}
		return measure.Polygon{Vertices: vs}
	}
	return nil
}

// Query is the measurement of region r of channels chans.
func (r *ROI) Query(chans []int) measure.Query {
	q := measure.Query{Plane: r.MeasurePlane(), Region: r.Region(), Channels: chans}
	if r.Depth > 1 {
		q.From, q.To = r.At, r.At+r.Depth
	}
	return q
}

// Line is a line ROI as package measure profiles it.
func (r *ROI) Line() measure.Line {
	return measure.Line{From: measure.Pt{Row: r.Pts[0].Row, Col: r.Pts[0].Col},
		To: measure.Pt{Row: r.Pts[1].Row, Col: r.Pts[1].Col}, Width: r.Width}
}

// measureLocked brings the ROIs' measurements up to date: each ROI whose
// geometry (or the channels shown) changed is measured again in the
// background, the work in flight for it stopped.
func (s *Session) measureLocked() {
	rs := &s.rois
	if s.data == nil {
		return
	}
	m := s.data.Pyr.Meta()
	chans := measureChannels(m, s.view)
	keep := map[roiID]bool{}
	for i := range rs.list {
		r := &rs.list[i]
		if r.id == 0 {
			rs.nextID++
			r.id = rs.nextID
		}
		keep[r.id] = true
		key := measureKey(r, chans)
		res := rs.results[r.id]
		dragging := rs.drag.on && rs.drag.roi == i
		// A drag's end: the level-0 figures the drag went without.
		unfinished := res != nil && !res.final && !dragging && res.cancel == nil && res.err == nil
		if res != nil && res.key == key && !unfinished {
			continue
		}
		if res != nil && res.cancel != nil {
			res.cancel()
		}
		ctx, cancel := context.WithCancel(context.Background())
		nr := &roiResult{key: key, cancel: cancel, chans: chans, asked: s.clock.Now()}
		if res != nil && res.key[:strings.IndexByte(res.key, '|')] == string(r.Kind) {
			// Shown until the new figures come: the old ones.
			nr.stats, nr.profiles, nr.hist, nr.histLo, nr.histHi, nr.plot = res.stats, res.profiles, res.hist, res.histLo, res.histHi, res.plot
		}
		if rs.results == nil {
			rs.results = map[roiID]*roiResult{}
		}
		rs.results[r.id] = nr
		s.startMeasure(ctx, s.data, r.clone(), nr, dragging)
	}
	for id, res := range rs.results {
		if !keep[id] {
			if res.cancel != nil {
				res.cancel()
			}
			delete(rs.results, id)
		}
	}
}

// startMeasure measures r of data d in the background for nr; while r is
// dragged, a region gets its coarse estimate only.
func (s *Session) startMeasure(ctx context.Context, d *Data, r ROI, nr *roiResult, dragging bool) {
	if !d.acquire() {
		return
	}
	if s.rois.prof == nil || s.rois.profData != d {
		s.rois.prof, s.rois.profData = measure.NewProfiler(d.Pyr, 0), d
	}
	prof := s.rois.prof
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer d.Release()
		switch r.Kind {
		case KindLine:
			s.measureLine(ctx, prof, r, nr)
		case KindPoints:
			s.measurePoints(ctx, prof, r, nr)
		default:
			s.measureRegion(ctx, d, r, nr, dragging)
		}
	}()
}

// publish hands the figures f set in nr to the session, if nr is still
// the ROI's measurement, and tells the host.
func (s *Session) publish(id roiID, nr *roiResult, f func(*roiResult)) bool {
	s.mu.Lock()
	if s.rois.results[id] != nr {
		s.mu.Unlock()
		return false
	}
	f(nr)
	s.unlockNotify(ROIChanged)
	return true
}

// measureLine profiles a line along each channel.
func (s *Session) measureLine(ctx context.Context, prof *measure.Profiler, r ROI, nr *roiResult) {
	start := time.Now()
	out := make([]measure.Profile, len(nr.chans))
	for i, c := range nr.chans {
		p, err := prof.ProfileLine(ctx, r.MeasurePlane(), c, r.Line())
		if err != nil {
			s.publish(r.id, nr, func(nr *roiResult) { nr.err, nr.cancel = err, nil })
			return
		}
		out[i] = p
	}
	took := time.Since(start)
	profiles := make([][]float64, len(out))
	for i, p := range out {
		profiles[i] = p.Values
	}
	ev := map[string]any{"name": r.Name, "kind": string(r.Kind), "points": len(out[0].Values),
		"length": out[0].Length, "angle": out[0].Angle, "unit": out[0].Unit, "width": r.Width,
		"compute_ms": float64(took.Microseconds()) / 1000, "profiles": profiles, "channels": nr.chans}
	if !s.publish(r.id, nr, func(nr *roiResult) {
		nr.profiles, nr.final, nr.cancel, nr.err = out, true, nil, nil
		// Traced as the figures are handed over: a test that sees them
		// final finds the event.
		ev["latency_ms"] = float64(s.clock.Now().Sub(nr.asked).Microseconds()) / 1000
		s.trace.Event("profile", ev)
	}) {
		return
	}
	// The plot, and how long from the input until it was drawn.
	drew := s.drawROIPlot(r.id, nr)
	s.trace.Event("plot", map[string]any{"name": r.Name, "plot_ms": float64(drew.Microseconds()) / 1000,
		"latency_ms": float64(s.clock.Now().Sub(nr.asked).Microseconds()) / 1000})
}

// measurePoints reads the value of each channel at each point.
func (s *Session) measurePoints(ctx context.Context, prof *measure.Profiler, r ROI, nr *roiResult) {
	vals, found := make([][]float64, len(r.Pts)), make([][]bool, len(r.Pts))
	for k, p := range r.Pts {
		pl := r.MeasurePlane()
		pl.Index = r.Ats[k]
		vals[k], found[k] = make([]float64, len(nr.chans)), make([]bool, len(nr.chans))
		for i, c := range nr.chans {
			v, ok, err := prof.Value(ctx, pl, c, measure.Pt{Row: p.Row, Col: p.Col})
			if err != nil {
				s.publish(r.id, nr, func(nr *roiResult) { nr.err, nr.cancel = err, nil })
				return
			}
			vals[k][i], found[k][i] = v, ok
		}
	}
	s.publish(r.id, nr, func(nr *roiResult) { nr.values, nr.found, nr.final, nr.cancel, nr.err = vals, found, true, nil, nil })
}

// measureRegion measures a region: a coarse estimate first (once the
// levels are built: a coarse level is then cheap to read), then, unless
// the region is being dragged, level 0 with progress, and its histogram.
func (s *Session) measureRegion(ctx context.Context, d *Data, r ROI, nr *roiResult, dragging bool) {
	m := d.Pyr.Meta()
	q := r.Query(nr.chans)
	if k := measure.EstimateLevel(m, q); k > 0 && d.Built() {
		st, err := measure.Compute(ctx, d.Pyr, q, measure.Options{Level: k})
		if err == nil {
			s.publish(r.id, nr, func(nr *roiResult) { nr.stats = st })
			s.traceMeasured(&r, st)
		}
	}
	if dragging {
		s.publish(r.id, nr, func(nr *roiResult) { nr.cancel = nil })
		return
	}
	st, err := measure.Compute(ctx, d.Pyr, q, measure.Options{Progress: func(done, total int) {
		s.publish(r.id, nr, func(nr *roiResult) { nr.done, nr.total = done, total })
	}})
	if err != nil {
		if ctx.Err() == nil {
			s.publish(r.id, nr, func(nr *roiResult) { nr.err, nr.cancel = err, nil })
		}
		return
	}
	s.publish(r.id, nr, func(nr *roiResult) { nr.stats, nr.final, nr.err = st, true, nil })
	s.traceMeasured(&r, st)
	// The histogram of the first channel, over its range.
	h := &measure.HistSpec{Bins: roiHistBins, Lo: st[0].Min, Hi: st[0].Max}
	if st[0].Count > 0 && h.Hi >= h.Lo && !math.IsInf(h.Hi-h.Lo, 0) {
		q.Channels = nr.chans[:1]
		if hs, err := measure.Compute(ctx, d.Pyr, q, measure.Options{Hist: h}); err == nil {
			s.publish(r.id, nr, func(nr *roiResult) { nr.hist, nr.histLo, nr.histHi = hs[0].Hist, h.Lo, h.Hi })
			s.drawROIPlot(r.id, nr)
		}
	}
	s.publish(r.id, nr, func(nr *roiResult) { nr.cancel = nil })
}

// traceMeasured writes a region's figures to the trace.
func (s *Session) traceMeasured(r *ROI, st []measure.Stats) {
	chans := make([]map[string]any, len(st))
	for i, x := range st {
		chans[i] = map[string]any{"c": x.Channel, "count": x.Count, "sum": x.Sum, "mean": x.Mean, "std": x.Std,
			"min": x.Min, "max": x.Max, "area": x.Area, "volume": x.Volume, "unit": x.Unit, "level": x.Level}
	}
	ev := roiTrace(r)
	ev["estimate"] = len(st) > 0 && st[0].Estimate
	ev["channels"] = chans
	if r.Kind == KindRect {
		y0, x0, y1, x1 := r.RectRange()
		ev["rect"] = []int{y0, x0, y1, x1}
	}
	s.trace.Event("measured", ev)
}

// Measure measures every ROI again from level 0 (Ctrl+M): the figures
// shown become the exact ones.
func (s *Session) Measure() {
	s.mu.Lock()
	for _, res := range s.rois.results {
		if res.cancel != nil {
			res.cancel()
		}
	}
	s.rois.results = nil
	s.measureLocked()
	s.unlockNotify(ROIChanged)
}

// Result is one row of the measurements table: one channel of one ROI.
type Result struct {
	ROI     int    // its place in the list
	Name    string // the ROI's
	Kind    ROIKind
	Channel string // the channel's name, or "C0"
	C       int
	measure.Stats
	// Length and Angle are a line's (Unit its unit of length).
	Length, Angle float64
	// Final is false while the level-0 figures are being computed: Stats
	// are an estimate (Stats.Estimate) or none yet; Done of Total chunks
	// are measured.
	Final       bool
	Done, Total int
	Err         error
}

// Results are the measurements of every ROI, a row per ROI and visible
// channel (a set of points: none; see PointValues).
func (s *Session) Results() []Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.data == nil {
		return nil
	}
	m := s.data.Pyr.Meta()
	var out []Result
	for i := range s.rois.list {
		r := &s.rois.list[i]
		res := s.rois.results[r.id]
		if r.Kind == KindPoints || res == nil {
			continue
		}
		for k, c := range res.chans {
			row := Result{ROI: i, Name: r.Name, Kind: r.Kind, C: c, Channel: chanLabel(m, c), Final: res.final,
				Done: res.done, Total: res.total, Err: res.err}
			if k < len(res.stats) {
				row.Stats = res.stats[k]
			}
			if k < len(res.profiles) {
				p := res.profiles[k]
				row.Length, row.Angle, row.Unit = p.Length, p.Angle, p.Unit
			}
			out = append(out, row)
		}
	}
	return out
}

// chanLabel names channel c: the file's name for it, else "C<c>".
func chanLabel(m *loader.Meta, c int) string {
	if n := channelName(m, c); n != "" {
		return n
	}
	return fmt.Sprintf("C%d", c)
}

// PointValue is one point of a set: its number (from 1), position
// (level-0 indices Z, Y, X, and physical), and each visible channel's value.
type PointValue struct {
	N        int
	Index    [3]float64 // Z, Y, X
	Physical [3]float64
	Unit     string
	Values   []float64
	Found    []bool
}

// PointValues lists the points of ROI i (a set of points).
func (s *Session) PointValues(i int) []PointValue {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.data == nil || i < 0 || i >= len(s.rois.list) || s.rois.list[i].Kind != KindPoints {
		return nil
	}
	m := s.data.Pyr.Meta()
	r := &s.rois.list[i]
	res := s.rois.results[r.id]
	out := make([]PointValue, len(r.Pts))
	for k, p := range r.Pts {
		pl := r.MeasurePlane()
		pl.Index = r.Ats[k]
		q, ph := pl.Index3(m, measure.Pt{Row: p.Row, Col: p.Col}), pl.Physical(m, measure.Pt{Row: p.Row, Col: p.Col})
		_, _, _, unit := pl.Spacing(m)
		out[k] = PointValue{N: k + 1, Index: q, Physical: ph, Unit: unit}
		if res != nil && k < len(res.values) {
			out[k].Values, out[k].Found = res.values[k], res.found[k]
		}
	}
	return out
}

// channelColour is the colour a channel is drawn in: its colormap's
// brightest, gray for a ramp that ends in white.
func channelColour(v render.View, c int) color.NRGBA {
	name := v.Colormap
	for _, ch := range v.Channels {
		if ch.C == c {
			name = ch.Colormap
		}
	}
	if v.Colormap == render.RGB {
		return [3]color.NRGBA{{230, 40, 40, 255}, {40, 200, 40, 255}, {60, 90, 255, 255}}[c%3]
	}
	cm, err := render.ColormapNamed(name)
	if err != nil || cm.Label {
		return color.NRGBA{60, 60, 60, 255}
	}
	lut := cm.LUT[255]
	if lut[0] > 200 && lut[1] > 200 && lut[2] > 200 {
		return color.NRGBA{40, 40, 40, 255} // white on a white plot: black
	}
	return color.NRGBA{lut[0], lut[1], lut[2], 255}
}

// SetPlotSize sets the size, in pixels, of the plots of the ROIs (see
// Plot); 0 draws none.
func (s *Session) SetPlotSize(w, h int) {
	s.mu.Lock()
	s.rois.plotW, s.rois.plotH = w, h
	s.mu.Unlock()
}

// Plot is the plot of the ROI selected: a line's profiles (one curve per
// visible channel, in its colour, distance in physical units), a region's
// histogram; nil for none yet. Plots are drawn by the workers that measure,
// at the size SetPlotSize gives.
func (s *Session) Plot() *image.RGBA {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rois.sel < 0 || s.rois.sel >= len(s.rois.list) {
		return nil
	}
	if res := s.rois.results[s.rois.list[s.rois.sel].id]; res != nil {
		return res.plot
	}
	return nil
}

// drawROIPlot draws the plot of ROI id from nr's figures, off the
// session's lock, and hands it to nr; it returns how long drawing took.
func (s *Session) drawROIPlot(id roiID, nr *roiResult) time.Duration {
	s.mu.Lock()
	w, h := s.rois.plotW, s.rois.plotH
	var r *ROI
	for i := range s.rois.list {
		if s.rois.list[i].id == id {
			r = &s.rois.list[i]
		}
	}
	if s.data == nil || r == nil || s.rois.results[id] != nr || w < 50 || h < 50 {
		s.mu.Unlock()
		return 0
	}
	m := s.data.Pyr.Meta()
	v := s.view
	var curves []plotCurve
	title, xl, yl := "", "", "value"
	switch {
	case r.Kind == KindLine && len(nr.profiles) > 0:
		title = r.Name + " profile"
		xl = "distance"
		if u := nr.profiles[0].Unit; u != "" {
			xl += " (" + Abbreviate(u) + ")"
		}
		for i, p := range nr.profiles {
			curves = append(curves, plotCurve{name: chanLabel(m, nr.chans[i]), x: p.Distance, y: p.Values,
				colour: channelColour(v, nr.chans[i])})
		}
	case r.region() && len(nr.hist) > 0:
		title, xl, yl = r.Name+" histogram ("+chanLabel(m, nr.chans[0])+")", "value", "count"
		x, y := make([]float64, len(nr.hist)), make([]float64, len(nr.hist))
		step := (nr.histHi - nr.histLo) / float64(len(nr.hist))
		for i, n := range nr.hist {
			x[i], y[i] = nr.histLo+(float64(i)+0.5)*step, float64(n)
		}
		curves = append(curves, plotCurve{x: x, y: y, colour: channelColour(v, nr.chans[0]), bars: true})
	default:
		s.mu.Unlock()
		return 0
	}
	s.mu.Unlock()
	start := time.Now()
	img := drawPlot(w, h, title, xl, yl, curves)
	took := time.Since(start)
	s.publish(id, nr, func(nr *roiResult) { nr.plot = img })
	return took
}
