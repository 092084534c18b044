package session

import (
	"fmt"
	"math"
	"slices"

	"vastview/loader"
	"vastview/measure"
	"vastview/render"
	"vastview/render/oblique"
)

// Tool is what a plain drag or click over the picture does: navigate
// (pan), or draw and edit one kind of region.
type Tool int

// The tools.
const (
	Navigate Tool = iota
	LineTool
	RectTool
	EllipseTool
	PolygonTool
	PointTool
)

// ToolNames names the tools as the toolbar and the Measure menu do.
var ToolNames = [...]string{Navigate: "Navigate", LineTool: "Line", RectTool: "Rectangle",
	EllipseTool: "Ellipse", PolygonTool: "Polygon", PointTool: "Points"}

// ROIKind is the kind of a region of interest.
type ROIKind string

// The kinds of regions, as the ROI files name them.
const (
	KindLine    ROIKind = "line"
	KindRect    ROIKind = "rectangle"
	KindEllipse ROIKind = "ellipse"
	KindPolygon ROIKind = "polygon"
	KindPoints  ROIKind = "points"
)

// kindOf is the kind a tool draws.
var kindOf = map[Tool]ROIKind{LineTool: KindLine, RectTool: KindRect, EllipseTool: KindEllipse,
	PolygonTool: KindPolygon, PointTool: KindPoints}

// ROI is a region of interest drawn on one plane of the data: a line, a
// rectangle, an ellipse, a polygon or a set of points. It is a plain value;
// Pts is not shared between ROIs.
type ROI struct {
	Name string
	Kind ROIKind
	// Plane is the orientation of the plane it lies in; At its level-0
	// index on the axis normal to it, T the time point.
	Plane render.Orientation
	At, T int
	// Pts are the vertices in level-0 sample coordinates of the plane
	// (Col, Row: sample i's centre at i): a line's two ends; the two
	// opposite corners of a rectangle's or an ellipse's box (a
	// rectangle's on sample boundaries, i − 0.5); a polygon's vertices;
	// the points of a set.
	Pts []render.Point
	// Ats are the points' own indices on the normal axis (a set of
	// points may span planes); nil for other kinds.
	Ats []int
	// Width is a line's width in samples (its profile is averaged across
	// it); at least 1.
	Width int
	// Depth, when not zero, measures a region over the planes At …
	// At+Depth−1 (a box or prism) rather than its plane only.
	Depth int
	// Hidden ROIs are neither drawn nor picked by the mouse.
	Hidden bool
	// Obl, for an ROI drawn on a turned plane, is that plane: Pts are
	// then its sample coordinates (Plane, At, Ats and Depth unused).
	Obl *oblique.Plane

	id roiID // its measurement's key (see roiState.results)
}

// clone is r with its own slices.
func (r ROI) clone() ROI {
	r.Pts = append([]render.Point(nil), r.Pts...)
	if r.Obl != nil {
		o := *r.Obl
		r.Obl = &o
	}
	if r.Ats != nil {
		r.Ats = append([]int(nil), r.Ats...)
	}
	return r
}

// region reports whether r encloses an area.
func (r *ROI) region() bool {
	return r.Kind == KindRect || r.Kind == KindEllipse || r.Kind == KindPolygon
}

// grab is how near (in screen pixels) a handle or a line must be to the
// pointer for a press to take it.
const grab = 6

// gesture is a drag over the picture that edits an ROI.
type gesture struct {
	on     bool
	roi    int          // the ROI dragged
	vertex int          // the vertex dragged; -1: the whole ROI moves
	last   render.Point // where the pointer was, in sample coordinates
	fresh  bool         // the ROI is being drawn (dropped when it stays too small)
	moved  bool
}

// roiState is the measuring part: the tool in use, the ROIs, the one
// selected, the drag editing one, and the polygon being drawn. It is kept
// under the session's lock.
type roiState struct {
	tool     Tool
	list     []ROI
	sel      int // the ROI selected, -1 for none
	vertex   int // its vertex selected (a handle pressed), -1 for none
	drag     gesture
	drawing  bool // list[sel] is a polygon being drawn: clicks add vertices
	named    map[ROIKind]int
	width    int                  // the width of lines drawn next
	results  map[roiID]*roiResult // each ROI's measurements (see roimeasure.go)
	nextID   roiID
	prof     *measure.Profiler // profiles and point values of profData
	profData *Data
	plotW    int // the size of the plots drawn, in pixels
	plotH    int
}

// reset forgets the ROIs (of data no longer shown) and stops measuring
// them.
func (rs *roiState) reset() {
	for _, res := range rs.results {
		if res.cancel != nil {
			res.cancel()
		}
	}
	*rs = roiState{tool: rs.tool, width: rs.width, sel: -1, vertex: -1, nextID: rs.nextID, plotW: rs.plotW, plotH: rs.plotH}
}

// name is the next name for an ROI of kind k: "Line 1", "Rectangle 2".
func (rs *roiState) name(k ROIKind) string {
	if rs.named == nil {
		rs.named = map[ROIKind]int{}
	}
	rs.named[k]++
	return fmt.Sprintf("%s %d", kindLabel[k], rs.named[k])
}

// kindLabel is how names of ROIs of each kind start.
var kindLabel = map[ROIKind]string{KindLine: "Line", KindRect: "Rectangle", KindEllipse: "Ellipse",
	KindPolygon: "Polygon", KindPoints: "Points"}

// named notes an ROI's own name, so that the next of its kind named by
// the list ("Line 3") follows it.
func (rs *roiState) noteName(r *ROI) {
	var n int
	if _, err := fmt.Sscanf(r.Name, kindLabel[r.Kind]+" %d", &n); err == nil && n > rs.named[r.Kind] {
		if rs.named == nil {
			rs.named = map[ROIKind]int{}
		}
		rs.named[r.Kind] = n
	}
}

// SetTool chooses what a plain drag or click over the picture does.
// Navigate ends a polygon being drawn.
func (s *Session) SetTool(t Tool) {
	s.mu.Lock()
	if t < Navigate || int(t) >= len(ToolNames) {
		t = Navigate
	}
	s.finishPolygonLocked()
	s.rois.tool = t
	s.trace.Event("tool", map[string]any{"tool": ToolNames[t]})
	s.unlockNotify(ROIChanged)
}

// CurrentTool is the tool in use.
func (s *Session) CurrentTool() Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rois.tool
}

// ROIs returns the ROIs, in the order of the region list; the slice is the
// caller's.
func (s *Session) ROIs() []ROI {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]ROI, len(s.rois.list))
	for i, r := range s.rois.list {
		out[i] = r.clone()
	}
	return out
}

// Selected is the index of the ROI selected, -1 for none.
func (s *Session) Selected() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rois.sel
}

// Select selects ROI i (-1: none) and shows its plane.
func (s *Session) Select(i int) {
	s.mu.Lock()
	if i < -1 || i >= len(s.rois.list) {
		s.mu.Unlock()
		return
	}
	s.finishPolygonLocked()
	s.rois.sel, s.rois.vertex = i, -1
	c := ROIChanged
	if i >= 0 && s.data != nil {
		r := &s.rois.list[i]
		if r.Obl == nil && s.view.Orientation == r.Plane && s.view.Turn == (render.Turn{}) {
			_, _, normal := r.Plane.Axes()
			at := r.At
			if r.Kind == KindPoints && len(r.Ats) > 0 {
				at = r.Ats[0]
			}
			if s.view.At(normal) != at || s.view.T != r.T {
				s.view.SetAt(normal, at)
				s.view.T = r.T
				s.askLocked(s.clock.Now(), 0)
				c |= ViewChanged | HoverChanged
			}
		}
	}
	s.unlockNotify(c)
}

// AddROI adds r to the list (named if it has no name) and selects it.
func (s *Session) AddROI(r ROI) {
	s.mu.Lock()
	s.addROILocked(r.clone())
	s.unlockNotify(ROIChanged)
}

func (s *Session) addROILocked(r ROI) {
	if r.Name == "" {
		r.Name = s.rois.name(r.Kind)
	} else {
		s.rois.noteName(&r)
	}
	if r.Kind == KindLine && r.Width < 1 {
		r.Width = max(1, s.rois.width)
	}
	s.rois.list = append(s.rois.list, r)
	s.rois.sel, s.rois.vertex = len(s.rois.list)-1, -1
	s.measureLocked()
}

// EditROI changes ROI i with f (its name, visibility, width, depth or
// vertices), and measures it again.
func (s *Session) EditROI(i int, f func(r *ROI)) {
	s.mu.Lock()
	if i < 0 || i >= len(s.rois.list) {
		s.mu.Unlock()
		return
	}
	r := s.rois.list[i].clone()
	f(&r)
	r.Width = max(1, r.Width)
	s.rois.list[i] = r
	s.measureLocked()
	s.unlockNotify(ROIChanged)
}

// SetLineWidth sets the width of the selected line (if one is) and of
// lines drawn next, in samples.
func (s *Session) SetLineWidth(w int) {
	w = max(1, w)
	s.mu.Lock()
	s.rois.width = w
	if i := s.rois.sel; i >= 0 && s.rois.list[i].Kind == KindLine {
		s.rois.list[i].Width = w
		s.measureLocked()
	}
	s.unlockNotify(ROIChanged)
}

// LineWidth is the width of lines drawn next.
func (s *Session) LineWidth() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return max(1, s.rois.width)
}

// DeleteSelected removes the vertex selected of a polygon that keeps at
// least three (or the point selected of a set), else the ROI selected. It
// reports whether anything was removed.
func (s *Session) DeleteSelected() bool {
	s.mu.Lock()
	rs := &s.rois
	i := rs.sel
	if i < 0 || i >= len(rs.list) {
		s.mu.Unlock()
		return false
	}
	r := &rs.list[i]
	switch {
	case rs.vertex >= 0 && r.Kind == KindPolygon && len(r.Pts) > 3 && !rs.drawing,
		rs.vertex >= 0 && r.Kind == KindPoints && len(r.Pts) > 1:
		r.Pts = append(r.Pts[:rs.vertex:rs.vertex], r.Pts[rs.vertex+1:]...)
		if r.Ats != nil {
			r.Ats = append(r.Ats[:rs.vertex:rs.vertex], r.Ats[rs.vertex+1:]...)
		}
		rs.vertex = -1
	default:
		s.removeLocked(i)
	}
	s.measureLocked()
	s.trace.Event("roi_deleted", map[string]any{"rois": len(rs.list)})
	s.unlockNotify(ROIChanged)
	return true
}

// RemoveROI removes ROI i.
func (s *Session) RemoveROI(i int) {
	s.mu.Lock()
	if i >= 0 && i < len(s.rois.list) {
		s.removeLocked(i)
		s.measureLocked()
	}
	s.unlockNotify(ROIChanged)
}

func (s *Session) removeLocked(i int) {
	rs := &s.rois
	rs.list = append(rs.list[:i:i], rs.list[i+1:]...)
	switch {
	case rs.sel == i:
		rs.sel, rs.vertex, rs.drawing = -1, -1, false
	case rs.sel > i:
		rs.sel--
	}
	rs.drag = gesture{}
}

// finishPolygonLocked ends the polygon being drawn: kept with three
// vertices or more, dropped otherwise.
func (s *Session) finishPolygonLocked() {
	rs := &s.rois
	if !rs.drawing {
		return
	}
	rs.drawing = false
	if i := rs.sel; i >= 0 && len(rs.list[i].Pts) < 3 {
		s.removeLocked(i)
	}
	s.measureLocked()
}

// FinishPolygon ends the polygon being drawn (Enter).
func (s *Session) FinishPolygon() {
	s.mu.Lock()
	s.finishPolygonLocked()
	s.unlockNotify(ROIChanged)
}

// Escape ends the polygon being drawn, or else goes back to navigating.
func (s *Session) Escape() {
	s.mu.Lock()
	if s.rois.drawing {
		s.rois.drawing = false
		if i := s.rois.sel; i >= 0 {
			s.removeLocked(i)
		}
		s.unlockNotify(ROIChanged)
		return
	}
	s.mu.Unlock()
	s.SetTool(Navigate)
}

// measureView is the view the ROIs are drawn in and picked from: the
// frame on screen's (its zoom chosen), else the view's; ok is false when
// no aligned plane is shown.
func (s *Session) measureViewLocked() (render.View, *loader.Meta, bool) {
	if s.data == nil {
		return render.View{}, nil, false
	}
	m := s.data.Pyr.Meta()
	v := s.view
	if s.shown != nil && s.shown.gen == s.gen {
		v = s.shown.View
	}
	if !(v.Zoom > 0) {
		lo, hi := s.fitBoxLocked(v.Orientation)
		v.Zoom, v.Center = render.FitBox(m, v, lo, hi)
	}
	return v, m, !s.ortho.on && !s.v3.on && !Oblique(v) && s.proj.op == loader.NoProjection
}

// roiView is the view the ROIs are drawn in and picked from (see
// roiViewLocked), with its plane when it is a turned one.
type roiView struct {
	m   *loader.Meta
	v   render.View
	obl *oblique.Plane
}

// roiViewLocked is the view ROIs are drawn in: the frame on screen's, one
// plane (aligned or turned) without a projection; ok is false otherwise.
func (s *Session) roiViewLocked() (roiView, bool) {
	if s.data == nil || s.ortho.on || s.v3.on || s.proj.op != loader.NoProjection {
		return roiView{}, false // no plane of the data is shown alone
	}
	v, m, _ := s.measureViewLocked()
	rv := roiView{m: m, v: v}
	if Oblique(v) {
		pl := ObliquePlane(m, v)
		rv.obl = &pl
	}
	return rv, true
}

// sample is the sample coordinate of r's plane under viewport position
// (x, y) (r nil: of the plane shown).
func (rv roiView) sample(r *ROI, x, y float64) render.Point {
	if rv.obl == nil {
		return toSamples(rv.m, rv.v, x, y)
	}
	if r == nil || r.Obl == nil {
		return render.Point{Col: x - 0.5, Row: y - 0.5}
	}
	i, j, _ := planeCoords(r.Obl, rv.obl.At(y-0.5, x-0.5))
	return render.Point{Col: j, Row: i}
}

// screen is the viewport position of point p of r, and whether r's plane
// is the kind shown (aligned or turned).
func (rv roiView) screen(r *ROI, p render.Point) (x, y float64, ok bool) {
	if (r.Obl == nil) != (rv.obl == nil) {
		return 0, 0, false
	}
	if r.Obl == nil {
		x, y = toViewport(rv.m, rv.v, p)
		return x, y, true
	}
	i, j, _ := planeCoords(rv.obl, r.Obl.At(p.Row, p.Col))
	return j + 0.5, i + 0.5, true
}

// planeCoords is the position of physical point q on plane pl: its row
// and column, and its distance from the plane.
func planeCoords(pl *oblique.Plane, q oblique.Vec) (i, j, off float64) {
	d := q.Add(pl.Center.Scale(-1))
	return d.Dot(pl.V)/pl.Pixel + float64(pl.H-1)/2, d.Dot(pl.U)/pl.Pixel + float64(pl.W-1)/2, d.Dot(pl.U.Cross(pl.V))
}

// onTurned reports whether point p of r (on a turned plane) lies in the
// turned plane shown: within half the finest spacing of it.
func (rv roiView) onTurned(r *ROI, p render.Point) bool {
	if rv.obl == nil || r.Obl == nil || r.Obl.T != rv.obl.T {
		return false
	}
	sp := oblique.Spacing(rv.m)
	_, _, off := planeCoords(rv.obl, r.Obl.At(p.Row, p.Col))
	return math.Abs(off) <= min(sp[0], sp[1], sp[2])/2
}

// onPlane reports whether r lies in the plane shown (a set of points:
// whether any of its points does).
func (rv roiView) onPlane(r *ROI) bool {
	if r.Obl != nil {
		for _, p := range r.Pts {
			if rv.onTurned(r, p) {
				if r.Kind == KindPoints {
					return true
				}
			} else if r.Kind != KindPoints {
				return false
			}
		}
		return r.Kind != KindPoints
	}
	return rv.obl == nil && onPlane(r, rv.v)
}

// pointShown reports whether point k of set r lies in the plane shown.
func (rv roiView) pointShown(r *ROI, k int) bool {
	if r.Obl != nil {
		return rv.onTurned(r, r.Pts[k])
	}
	_, _, normal := rv.v.Orientation.Axes()
	return rv.obl == nil && r.Ats[k] == rv.v.At(normal)
}

// toSamples is the sample coordinate under viewport position (x, y).
func toSamples(m *loader.Meta, v render.View, x, y float64) render.Point {
	p := v.ToPlane(m, x, y)
	return render.Point{Col: p.Col - 0.5, Row: p.Row - 0.5}
}

// toViewport is the viewport position of sample coordinate p.
func toViewport(m *loader.Meta, v render.View, p render.Point) (float64, float64) {
	return v.ToScreen(m, render.Point{Col: p.Col + 0.5, Row: p.Row + 0.5})
}

// onPlane reports whether r lies in the plane view v shows (a set of
// points: whether any of its points does).
func onPlane(r *ROI, v render.View) bool {
	if r.Plane != v.Orientation || r.T != v.T {
		return false
	}
	_, _, normal := v.Orientation.Axes()
	if r.Kind == KindPoints {
		for _, a := range r.Ats {
			if a == v.At(normal) {
				return true
			}
		}
		return false
	}
	at := v.At(normal)
	return at == r.At || r.Depth > 1 && at >= r.At && at < r.At+r.Depth
}

// MouseDown starts what a press at viewport position (x, y) does with the
// tool in use: take a handle of the ROI selected, or an ROI to move, or
// start a new one (a polygon: add a vertex; points: add one). It reports
// whether the press is the tool's (else a drag pans, as always).
func (s *Session) MouseDown(x, y float64) bool {
	s.mu.Lock()
	rs := &s.rois
	if rs.tool == Navigate || s.mods.Ctrl {
		s.mu.Unlock()
		return false
	}
	x, y = s.toPanelLocked(x, y)
	rv, ok := s.roiViewLocked()
	if !ok {
		s.mu.Unlock()
		return false
	}
	v := rv.v
	p := rv.sample(nil, x, y)
	_, _, normal := v.Orientation.Axes()
	rs.drag = gesture{}
	if rs.drawing { // a polygon: a vertex more, or closed at its first
		r := &rs.list[rs.sel]
		fx, fy, _ := rv.screen(r, r.Pts[0])
		if len(r.Pts) >= 3 && math.Hypot(fx-x, fy-y) <= grab {
			s.finishPolygonLocked()
		} else {
			r.Pts = append(r.Pts, p)
		}
		s.unlockNotify(ROIChanged)
		return true
	}
	if i, k := s.pickLocked(rv, x, y); i >= 0 {
		rs.sel, rs.vertex = i, k
		rs.drag = gesture{on: true, roi: i, vertex: k, last: rv.sample(&rs.list[i], x, y)}
		s.unlockNotify(ROIChanged)
		return true
	}
	k := kindOf[rs.tool]
	if k == KindPoints {
		// A point more in the set selected, else in a new set.
		if i := rs.sel; i >= 0 && rs.list[i].Kind == KindPoints && samePlane(&rs.list[i], rv) {
			r := &rs.list[i]
			r.Pts = append(r.Pts, p)
			r.Ats = append(r.Ats, v.At(normal))
			rs.vertex = len(r.Pts) - 1
			s.measureLocked()
		} else {
			s.addROILocked(ROI{Kind: KindPoints, Plane: v.Orientation, At: v.At(normal), T: v.T,
				Pts: []render.Point{p}, Ats: []int{v.At(normal)}, Obl: rv.obl})
			rs.vertex = 0
		}
		r := rs.list[rs.sel]
		rs.drag = gesture{on: true, roi: rs.sel, vertex: len(r.Pts) - 1, last: p}
		s.trace.Event("point", map[string]any{"n": len(r.Pts), "col": p.Col, "row": p.Row, "at": v.At(normal)})
		s.unlockNotify(ROIChanged)
		return true
	}
	r := ROI{Kind: k, Plane: v.Orientation, At: v.At(normal), T: v.T, Pts: []render.Point{p, p}, Obl: rv.obl}
	if k == KindRect {
		r.Pts[0] = snapCorner(p)
		r.Pts[1] = r.Pts[0]
	}
	s.addROILocked(r)
	if k == KindPolygon {
		rs.list[rs.sel].Pts = rs.list[rs.sel].Pts[:1]
		rs.drawing = true
		s.unlockNotify(ROIChanged)
		return true
	}
	rs.drag = gesture{on: true, roi: rs.sel, vertex: 1, last: p, fresh: true}
	s.unlockNotify(ROIChanged)
	return true
}

// snapCorner puts a rectangle's corner on the nearest sample boundary.
func snapCorner(p render.Point) render.Point {
	return render.Point{Col: math.Round(p.Col+0.5) - 0.5, Row: math.Round(p.Row+0.5) - 0.5}
}

// pickLocked finds what a press at viewport (x, y) takes: a handle of the
// ROI selected (its index and the vertex), else the topmost visible ROI
// under it (vertex -1; a point of a set: that point), else -1.
func (s *Session) pickLocked(rv roiView, x, y float64) (int, int) {
	rs := &s.rois
	if i := rs.sel; i >= 0 && !rs.list[i].Hidden && rv.onPlane(&rs.list[i]) {
		if k := handleAt(rv, &rs.list[i], x, y); k >= 0 {
			return i, k
		}
	}
	for i := len(rs.list) - 1; i >= 0; i-- {
		r := &rs.list[i]
		if r.Hidden || !rv.onPlane(r) {
			continue
		}
		if r.Kind == KindPoints {
			if k := handleAt(rv, r, x, y); k >= 0 {
				return i, k
			}
			continue
		}
		if hit(rv, r, x, y) {
			return i, -1
		}
	}
	return -1, -1
}

// handles are the points of r a drag may take, in viewport pixels: a
// line's ends, a box's four corners, a polygon's vertices, the points.
func handles(rv roiView, r *ROI) [][2]float64 {
	var out [][2]float64
	pts := r.Pts
	if r.Kind == KindRect || r.Kind == KindEllipse {
		a, b := r.Pts[0], r.Pts[1]
		pts = []render.Point{a, {Col: b.Col, Row: a.Row}, b, {Col: a.Col, Row: b.Row}}
	}
	for i, p := range pts {
		x, y, ok := rv.screen(r, p)
		if !ok || r.Kind == KindPoints && !rv.pointShown(r, i) {
			x, y = math.Inf(1), math.Inf(1)
		}
		out = append(out, [2]float64{x, y})
	}
	return out
}

// handleAt is the handle of r within grab of (x, y), or -1.
func handleAt(rv roiView, r *ROI, x, y float64) int {
	best, at := float64(grab), -1
	for k, h := range handles(rv, r) {
		if d := math.Hypot(h[0]-x, h[1]-y); d <= best {
			best, at = d, k
		}
	}
	return at
}

// hit reports whether viewport (x, y) lies on r: inside a region, near a
// line.
func hit(rv roiView, r *ROI, x, y float64) bool {
	outline := outline(rv, r)
	if r.Kind == KindLine {
		return len(outline) == 2 && segmentDistance(outline[0], outline[1], [2]float64{x, y}) <= grab
	}
	return insidePolygon(outline, x, y)
}

// segmentDistance is the distance from p to the segment a–b.
func segmentDistance(a, b, p [2]float64) float64 {
	dx, dy := b[0]-a[0], b[1]-a[1]
	t := 0.0
	if l := dx*dx + dy*dy; l > 0 {
		t = max(0, min(1, ((p[0]-a[0])*dx+(p[1]-a[1])*dy)/l))
	}
	return math.Hypot(a[0]+t*dx-p[0], a[1]+t*dy-p[1])
}

// insidePolygon reports whether (x, y) lies inside the polygon (even-odd).
func insidePolygon(poly [][2]float64, x, y float64) bool {
	in := false
	for i, j := 0, len(poly)-1; i < len(poly); j, i = i, i+1 {
		a, b := poly[i], poly[j]
		if (a[1] > y) != (b[1] > y) && x < (b[0]-a[0])*(y-a[1])/(b[1]-a[1])+a[0] {
			in = !in
		}
	}
	return in
}

// outline is r's outline in viewport pixels: a line's two ends, a
// rectangle's four corners, an ellipse as a polygon of 64 sides, a
// polygon's vertices, a set's points.
func outline(rv roiView, r *ROI) [][2]float64 {
	switch r.Kind {
	case KindRect:
		return handles(rv, r)
	case KindEllipse:
		a, b := r.Pts[0], r.Pts[1]
		c := render.Point{Col: (a.Col + b.Col) / 2, Row: (a.Row + b.Row) / 2}
		rc, rr := math.Abs(b.Col-a.Col)/2, math.Abs(b.Row-a.Row)/2
		out := make([][2]float64, 64)
		for k := range out {
			t := 2 * math.Pi * float64(k) / float64(len(out))
			x, y, _ := rv.screen(r, render.Point{Col: c.Col + rc*math.Cos(t), Row: c.Row + rr*math.Sin(t)})
			out[k] = [2]float64{x, y}
		}
		return out
	}
	out := make([][2]float64, len(r.Pts))
	for i, p := range r.Pts {
		x, y, _ := rv.screen(r, p)
		out[i] = [2]float64{x, y}
	}
	return out
}

// dragROILocked follows a drag of the gesture to sample coordinate p.
func (s *Session) dragROILocked(p render.Point) {
	rs := &s.rois
	g := &rs.drag
	r := &rs.list[g.roi]
	switch {
	case g.vertex < 0:
		d := render.Point{Col: p.Col - g.last.Col, Row: p.Row - g.last.Row}
		if r.Kind == KindRect {
			d = render.Point{Col: math.Round(d.Col), Row: math.Round(d.Row)}
		}
		for i := range r.Pts {
			r.Pts[i].Col += d.Col
			r.Pts[i].Row += d.Row
		}
		g.last.Col += d.Col
		g.last.Row += d.Row
	case r.Kind == KindRect || r.Kind == KindEllipse:
		if r.Kind == KindRect {
			p = snapCorner(p)
		}
		// Corners 0 and 2 are the two points; 1 and 3 mix them.
		a, b := &r.Pts[0], &r.Pts[1]
		switch g.vertex {
		case 0:
			*a = p
		case 1:
			b.Col, a.Row = p.Col, p.Row
		case 2:
			*b = p
		case 3:
			a.Col, b.Row = p.Col, p.Row
		}
	default:
		r.Pts[g.vertex] = p
	}
	g.moved = true
}

// MouseUp ends the tool's drag: a new ROI too small to see is dropped, an
// edited one is measured.
func (s *Session) MouseUp() {
	s.mu.Lock()
	rs := &s.rois
	g := rs.drag
	rs.drag = gesture{}
	if !g.on || g.roi >= len(rs.list) {
		s.mu.Unlock()
		return
	}
	r := &rs.list[g.roi]
	if g.fresh {
		rv, _ := s.roiViewLocked()
		o := outline(rv, r)
		small := true
		for _, q := range o[1:] {
			small = small && math.Hypot(q[0]-o[0][0], q[1]-o[0][1]) < 2
		}
		if small || r.Kind != KindLine && (r.Pts[0].Col == r.Pts[1].Col || r.Pts[0].Row == r.Pts[1].Row) {
			s.removeLocked(g.roi)
			s.unlockNotify(ROIChanged)
			return
		}
		normalizeBox(r)
		rs.vertex = -1
	} else if r.Kind == KindRect || r.Kind == KindEllipse {
		normalizeBox(r)
	}
	s.trace.Event("roi", roiTrace(r))
	s.measureLocked()
	s.unlockNotify(ROIChanged)
}

// normalizeBox orders a box's corners: top left first.
func normalizeBox(r *ROI) {
	if r.Kind != KindRect && r.Kind != KindEllipse {
		return
	}
	a, b := r.Pts[0], r.Pts[1]
	r.Pts[0] = render.Point{Col: min(a.Col, b.Col), Row: min(a.Row, b.Row)}
	r.Pts[1] = render.Point{Col: max(a.Col, b.Col), Row: max(a.Row, b.Row)}
}

// roiTrace is an ROI's trace fields.
func roiTrace(r *ROI) map[string]any {
	pts := make([][2]float64, len(r.Pts))
	for i, p := range r.Pts {
		pts[i] = [2]float64{p.Row, p.Col}
	}
	return map[string]any{"name": r.Name, "kind": string(r.Kind), "plane": r.Plane.String(), "at": r.At, "t": r.T,
		"points": pts, "width": r.Width}
}

// Mark is an ROI as the window draws it over the picture, in viewport
// pixels.
type Mark struct {
	Outline [][2]float64 // a line's ends; a region's outline, closed
	Closed  bool
	// Segments are the outline's sides cut to the viewport: what is drawn.
	Segments [][2][2]float64
	Points   bool         // a set of points: Outline are the points, numbered
	Numbers  []int        // the points' numbers (from 1), for a set
	Handles  [][2]float64 // drawn for the ROI selected
	Selected bool
	Label    string
	Open     bool // a polygon being drawn
}

// Overlay is what the window draws over the picture: each visible ROI on
// the plane shown, in viewport pixels of the frame on screen; over the 3-D
// view, the clip box with its handles when they are shown.
func (s *Session) Overlay() []Mark {
	s.mu.Lock()
	defer s.mu.Unlock()
	if mk, ok := s.clipMarkLocked(); ok {
		return []Mark{mk}
	}
	rv, ok := s.roiViewLocked()
	if !ok {
		return nil
	}
	v := rv.v
	var out []Mark
	for i := range s.rois.list {
		r := &s.rois.list[i]
		if r.Hidden || !rv.onPlane(r) {
			continue
		}
		mk := Mark{Outline: outline(rv, r), Closed: r.region(), Selected: i == s.rois.sel, Label: r.Name}
		if r.Kind == KindPoints {
			mk.Points, mk.Outline = true, nil
			for k, p := range r.Pts {
				if rv.pointShown(r, k) {
					x, y, _ := rv.screen(r, p)
					mk.Outline = append(mk.Outline, [2]float64{x, y})
					mk.Numbers = append(mk.Numbers, k+1)
				}
			}
		}
		if mk.Selected && r.Kind != KindPoints {
			mk.Handles = handles(rv, r)
		}
		if s.rois.drawing && i == s.rois.sel {
			mk.Closed, mk.Open = false, true
		}
		mk.Segments = clipOutline(mk.Outline, mk.Closed && !mk.Points, float64(v.Width), float64(v.Height))
		mk.Handles = slices.DeleteFunc(mk.Handles, func(q [2]float64) bool { return !inViewport(q, v) })
		if mk.Points {
			pts, nums := mk.Outline[:0:0], mk.Numbers[:0:0]
			for k, q := range mk.Outline {
				if inViewport(q, v) {
					pts, nums = append(pts, q), append(nums, mk.Numbers[k])
				}
			}
			mk.Outline, mk.Numbers, mk.Segments = pts, nums, nil
		}
		out = append(out, mk)
	}
	return out
}

// RectRange is a rectangle's half-open sample ranges: rows y0 … y1−1,
// columns x0 … x1−1 (as `vastview measure --rect` takes them).
func (r *ROI) RectRange() (y0, x0, y1, x1 int) {
	a, b := r.Pts[0], r.Pts[1]
	return int(math.Round(min(a.Row, b.Row) + 0.5)), int(math.Round(min(a.Col, b.Col) + 0.5)),
		int(math.Round(max(a.Row, b.Row) + 0.5)), int(math.Round(max(a.Col, b.Col) + 0.5))
}

// inViewport reports whether q lies in view v's viewport.
func inViewport(q [2]float64, v render.View) bool {
	return q[0] >= 0 && q[1] >= 0 && q[0] <= float64(v.Width) && q[1] <= float64(v.Height)
}

// clipOutline cuts the sides of an outline (closed: the last vertex joined
// to the first) to the rectangle [0, w] × [0, h].
func clipOutline(pts [][2]float64, closed bool, w, h float64) [][2][2]float64 {
	var out [][2][2]float64
	n := len(pts)
	for i := range n {
		if i == n-1 && !closed {
			break
		}
		if seg, ok := clipSegment(pts[i], pts[(i+1)%n], w, h); ok {
			out = append(out, seg)
		}
	}
	return out
}

// clipSegment cuts the segment a–b to [0, w] × [0, h] (Liang–Barsky).
func clipSegment(a, b [2]float64, w, h float64) ([2][2]float64, bool) {
	t0, t1 := 0.0, 1.0
	d := [2]float64{b[0] - a[0], b[1] - a[1]}
	for _, e := range [4][2]float64{{-d[0], a[0]}, {d[0], w - a[0]}, {-d[1], a[1]}, {d[1], h - a[1]}} {
		p, q := e[0], e[1]
		if p == 0 {
			if q < 0 {
				return [2][2]float64{}, false
			}
			continue
		}
		r := q / p
		if p < 0 {
			t0 = max(t0, r)
		} else {
			t1 = min(t1, r)
		}
	}
	if t0 > t1 {
		return [2][2]float64{}, false
	}
	return [2][2]float64{{a[0] + t0*d[0], a[1] + t0*d[1]}, {a[0] + t1*d[0], a[1] + t1*d[1]}}, true
}

// followPlaneLocked moves the line selected to the plane shown, when
// another plane of the same orientation is shown: its profile follows the
// planes (and time points) as they are stepped through.
func (s *Session) followPlaneLocked() {
	rs := &s.rois
	if rs.sel < 0 || rs.sel >= len(rs.list) || Oblique(s.view) {
		return
	}
	r := &rs.list[rs.sel]
	_, _, normal := s.view.Orientation.Axes()
	if r.Kind != KindLine || r.Obl != nil || r.Plane != s.view.Orientation || r.At == s.view.At(normal) && r.T == s.view.T {
		return
	}
	r.At, r.T = s.view.At(normal), s.view.T
	s.measureLocked()
	s.noteLocked(ROIChanged)
}

// samePlane reports whether r lies on the plane shown, for a point more.
func samePlane(r *ROI, rv roiView) bool {
	if r.Obl != nil || rv.obl != nil {
		return r.Obl != nil && rv.obl != nil && *r.Obl == *rv.obl
	}
	return r.Plane == rv.v.Orientation && r.T == rv.v.T
}
