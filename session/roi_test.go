package session

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"vastview/base/testtool"
	"vastview/loader/demo"
	"vastview/measure"
	"vastview/render"
	"vastview/render/oblique"
)

// screenOf is the viewport position of sample coordinate (col, row) in
// the frame on screen.
func (h *harness) screenOf(col, row float64) (float64, float64) {
	f := h.s.Shown()
	return toViewport(h.s.Meta(), f.View, render.Point{Col: col, Row: row})
}

// drag presses at sample (c0, r0), drags to (c1, r1) in steps and releases.
func (h *harness) drag(c0, r0, c1, r1 float64) {
	h.t.Helper()
	x0, y0 := h.screenOf(c0, r0)
	x1, y1 := h.screenOf(c1, r1)
	if !h.s.MouseDown(x0, y0) {
		h.t.Fatalf("the press at (%g, %g) is not the tool's", x0, y0)
	}
	px, py := x0, y0
	for k := 1; k <= 4; k++ {
		x, y := x0+(x1-x0)*float64(k)/4, y0+(y1-y0)*float64(k)/4
		h.s.Drag(x, y, x-px, y-py)
		px, py = x, y
	}
	h.s.MouseUp()
}

// click presses and releases at sample (c, r).
func (h *harness) click(c, r float64) {
	x, y := h.screenOf(c, r)
	h.s.MouseDown(x, y)
	h.s.MouseUp()
}

func nearPoint(a, b render.Point) bool {
	return math.Abs(a.Col-b.Col) < 1e-6 && math.Abs(a.Row-b.Row) < 1e-6
}

func TestToolsDrawEditAndDeleteROIs(t *testing.T) {
	h := newHarness(t, Options{})
	h.open(small(), "/data/volume.tif")
	before := h.s.View()
	if h.s.MouseDown(100, 100) {
		t.Fatal("a press while navigating is taken by a tool")
	}
	h.s.Press("L") // L alone picks a label, Alt+L takes the line tool
	if h.s.CurrentTool() != Navigate {
		t.Fatal("L alone chose a tool")
	}
	h.s.PressWith("L", Mods{Alt: true})
	if h.s.CurrentTool() != LineTool {
		t.Fatalf("Alt+L: tool %v", h.s.CurrentTool())
	}
	h.drag(10, 20, 50, 40)
	rois := h.s.ROIs()
	if len(rois) != 1 || rois[0].Kind != KindLine || !nearPoint(rois[0].Pts[0], render.Point{Col: 10, Row: 20}) ||
		!nearPoint(rois[0].Pts[1], render.Point{Col: 50, Row: 40}) || rois[0].At != 4 || rois[0].Width != 1 {
		t.Fatalf("a line drawn from (10, 20) to (50, 40) on z 4 is %+v", rois)
	}
	if v := h.s.View(); v.Center != before.Center || v.Zoom != before.Zoom {
		t.Error("drawing a line panned the view")
	}
	// Its end dragged elsewhere; the line dragged by its middle.
	h.drag(50, 40, 60, 30)
	h.drag(35, 25, 37, 28)
	if l := h.s.ROIs()[0]; !nearPoint(l.Pts[0], render.Point{Col: 12, Row: 23}) || !nearPoint(l.Pts[1], render.Point{Col: 62, Row: 33}) {
		t.Errorf("after moving an end and the whole line: %v", l.Pts)
	}

	// A rectangle: its corners on sample boundaries.
	h.s.PressWith("R", Mods{Alt: true})
	h.drag(59.7, 9.6, 79.6, 29.7)
	r := h.s.ROIs()[1]
	if r.Kind != KindRect || !nearPoint(r.Pts[0], render.Point{Col: 59.5, Row: 9.5}) || !nearPoint(r.Pts[1], render.Point{Col: 79.5, Row: 29.5}) {
		t.Fatalf("rectangle %+v", r)
	}
	if y0, x0, y1, x1 := r.RectRange(); y0 != 10 || x0 != 60 || y1 != 30 || x1 != 80 {
		t.Errorf("rectangle's samples %d,%d,%d,%d, want 10,60,30,80", y0, x0, y1, x1)
	}
	// Its bottom right corner dragged in; a press inside moves it.
	h.drag(79.5, 29.5, 75.5, 25.5)
	h.drag(70, 20, 72, 21)
	if y0, x0, y1, x1 := h.s.ROIs()[1].RectRange(); y0 != 11 || x0 != 62 || y1 != 27 || x1 != 78 {
		t.Errorf("rectangle edited to %d,%d,%d,%d, want 11,62,27,78", y0, x0, y1, x1)
	}
	// A click that draws nothing adds nothing.
	h.click(5, 50)
	if n := len(h.s.ROIs()); n != 2 {
		t.Errorf("a click with the rectangle tool left %d ROIs", n)
	}

	// A polygon: three clicks, closed at its first vertex.
	h.s.PressWith("P", Mods{Alt: true})
	for _, p := range [][2]float64{{20, 45}, {40, 45}, {30, 60}, {20, 45}} {
		h.click(p[0], p[1])
	}
	if rois := h.s.ROIs(); len(rois) != 3 || rois[2].Kind != KindPolygon || len(rois[2].Pts) != 3 {
		t.Fatalf("polygon: %+v", rois[len(rois)-1])
	}
	// A vertex more, then the vertex selected and deleted.
	h.s.PressWith("P", Mods{Alt: true})
	for _, p := range [][2]float64{{5, 5}, {15, 5}, {15, 15}, {5, 15}} {
		h.click(p[0], p[1])
	}
	h.s.Press(KeyReturn)
	if p := h.s.ROIs()[3]; len(p.Pts) != 4 {
		t.Fatalf("Enter closed a polygon of %d vertices, want 4", len(p.Pts))
	}
	h.click(15, 15) // its vertex selected
	h.s.Press(KeyDelete)
	if p := h.s.ROIs()[3]; len(p.Pts) != 3 || !nearPoint(p.Pts[2], render.Point{Col: 5, Row: 15}) {
		t.Fatalf("Delete on a vertex left %v", p.Pts)
	}
	h.click(8, 8) // inside: the polygon selected
	h.s.Press(KeyDelete)
	if n := len(h.s.ROIs()); n != 3 {
		t.Fatalf("Delete on a polygon left %d ROIs, want 3", n)
	}

	// Points: numbered in a set, one per click.
	h.s.PressWith("O", Mods{Alt: true})
	h.click(3, 3)
	h.click(90, 60)
	pts := h.s.ROIs()[3]
	if pts.Kind != KindPoints || len(pts.Pts) != 2 || pts.Ats[1] != 4 {
		t.Fatalf("points %+v", pts)
	}
	marks := h.s.Overlay()
	if len(marks) != 4 || !marks[3].Points || len(marks[3].Numbers) != 2 || marks[3].Numbers[1] != 2 {
		t.Fatalf("overlay %+v", marks)
	}
	// Another plane shows none of them.
	h.s.Press(KeyPeriod)
	h.waitFrame(func(f *Frame) bool { return f.View.Z == 5 })
	if m := h.s.Overlay(); len(m) != 0 {
		t.Errorf("z 5 shows %d ROIs drawn on z 4", len(m))
	}
	h.s.Press(KeyComma)
	h.waitFrame(func(f *Frame) bool { return f.View.Z == 4 })

	// Escape: navigating again, a drag pans.
	h.s.Escape()
	if h.s.CurrentTool() != Navigate {
		t.Error("Escape kept the tool")
	}
}

func TestOverlayFollowsTheZoom(t *testing.T) {
	h := newHarness(t, Options{})
	h.open(small(), "/data/volume.tif")
	h.s.SetTool(LineTool)
	h.drag(10, 10, 30, 10)
	m := h.s.Overlay()
	if len(m) != 1 || len(m[0].Outline) != 2 {
		t.Fatalf("overlay %+v", m)
	}
	w0 := m[0].Outline[1][0] - m[0].Outline[0][0]
	h.s.Zoom(2)
	h.waitFrame(func(f *Frame) bool { return f.View.Zoom == h.s.View().Zoom })
	m = h.s.Overlay()
	if w1 := m[0].Outline[1][0] - m[0].Outline[0][0]; math.Abs(w1-2*w0) > 1e-6 {
		t.Errorf("the line is %g pixels long at twice the zoom of %g", w1, w0)
	}
}

// waitResults waits until ok holds of the measurements.
func (h *harness) waitResults(ok func([]Result) bool) []Result {
	h.t.Helper()
	for {
		if r := h.s.Results(); ok(r) {
			return r
		}
		h.waitUpdate(func(u Update) bool { return u.Changes&ROIChanged != 0 })
	}
}

func TestROIFiguresAreMeasures(t *testing.T) {
	h := newHarness(t, Options{})
	src := small()
	h.open(src, "/data/volume.tif")
	h.s.SetPlotSize(300, 200)
	h.s.SetTool(RectTool)
	h.drag(59.7, 9.6, 79.6, 29.7)
	h.s.SetTool(LineTool)
	h.drag(10.2, 20.7, 50.1, 40.4)
	h.s.SetLineWidth(3)
	res := h.waitResults(func(r []Result) bool {
		return len(r) == 2 && r[0].Final && r[1].Final && r[1].Length > 0
	})
	rect, err := measure.Compute(context.Background(), src, measure.Query{Plane: measure.Plane{Orientation: render.XY, Index: 4},
		Region: measure.Rect{Row0: 10, Col0: 60, Row1: 30, Col1: 80}, Channels: []int{0}}, measure.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := res[0].Stats
	if got.Count != rect[0].Count || got.Sum != rect[0].Sum || got.Mean != rect[0].Mean || !sameFigure(got.Std, rect[0].Std) ||
		got.Min != rect[0].Min || got.Max != rect[0].Max || got.Area != rect[0].Area || got.Estimate {
		t.Errorf("rectangle's figures %+v, measure's %+v", got, rect[0])
	}
	prof := measure.NewProfiler(src, 0)
	line := h.s.ROIs()[1]
	want, err := prof.ProfileLine(context.Background(), measure.Plane{Orientation: render.XY, Index: 4}, 0,
		measure.Line{From: measure.Pt{Row: line.Pts[0].Row, Col: line.Pts[0].Col}, To: measure.Pt{Row: line.Pts[1].Row, Col: line.Pts[1].Col}, Width: 3})
	if err != nil {
		t.Fatal(err)
	}
	if line.Width != 3 || math.Abs(res[1].Length-want.Length) != 0 || res[1].Angle != want.Angle {
		t.Errorf("line %+v: length %g angle %g, measure's %g %g", line, res[1].Length, res[1].Angle, want.Length, want.Angle)
	}
	ev := h.eventsNamed("profile")
	last := ev[len(ev)-1]["profiles"].([]any)[0].([]any)
	if len(last) != len(want.Values) {
		t.Fatalf("profile of %d points, measure's %d", len(last), len(want.Values))
	}
	for i, v := range last {
		if v.(float64) != want.Values[i] {
			t.Fatalf("profile point %d is %v, measure's %v", i, v, want.Values[i])
		}
	}
	for h.s.Plot() == nil {
		h.waitUpdate(func(u Update) bool { return u.Changes&ROIChanged != 0 })
	}
	img := h.s.Plot()
	if img == nil || img.Bounds().Dx() != 300 {
		t.Fatal("no plot of the line selected")
	}
	white, dark := 0, 0
	for i := 0; i < len(img.Pix); i += 4 {
		switch {
		case img.Pix[i] == 255 && img.Pix[i+1] == 255 && img.Pix[i+2] == 255:
			white++
		case img.Pix[i] < 128 && img.Pix[i+3] == 255:
			dark++
		}
	}
	if white < len(img.Pix)/4/2 || dark < 300 {
		t.Errorf("the plot has %d white and %d dark pixels of %d: no axes and curve on white", white, dark, len(img.Pix)/4)
	}
}

func TestProfileFollowsThePlane(t *testing.T) {
	h := newHarness(t, Options{})
	src := small()
	h.open(src, "/data/volume.tif")
	h.s.SetTool(LineTool)
	h.drag(10, 20, 50, 40)
	h.waitResults(func(r []Result) bool { return len(r) == 1 && r[0].Final })
	h.s.Press(KeyPeriod)
	h.waitFrame(func(f *Frame) bool { return f.View.Z == 5 })
	if l := h.s.ROIs()[0]; l.At != 5 {
		t.Fatalf("the line selected stayed on z %d when z 5 was shown", l.At)
	}
	line := h.s.ROIs()[0]
	want, err := measure.NewProfiler(src, 0).ProfileLine(context.Background(), measure.Plane{Orientation: render.XY, Index: 5}, 0, line.Line())
	if err != nil {
		t.Fatal(err)
	}
	waitFor := func() bool {
		ev := h.eventsNamed("profile")
		last := ev[len(ev)-1]["profiles"].([]any)[0].([]any)
		return len(last) == len(want.Values) && last[3].(float64) == want.Values[3]
	}
	for !waitFor() {
		h.waitUpdate(func(u Update) bool { return u.Changes&ROIChanged != 0 })
	}
	if m := h.s.Overlay(); len(m) != 1 {
		t.Errorf("z 5 shows %d ROIs, want the line", len(m))
	}
}

func TestROIFilesAndMemory(t *testing.T) {
	testtool.RequirePython(t, "numpy")
	h := newHarness(t, Options{})
	src := small()
	h.open(src, "/data/volume.tif")
	h.s.SetTool(RectTool)
	h.drag(59.7, 9.6, 79.6, 29.7)
	h.s.SetTool(EllipseTool)
	h.drag(10, 10, 40, 30)
	h.s.SetTool(PointTool)
	h.click(3, 4)
	h.click(90, 60)
	h.waitResults(func(r []Result) bool { return len(r) == 2 && r[0].Final && r[1].Final })
	for h.s.PointValues(2)[1].Values == nil {
		h.waitUpdate(func(u Update) bool { return u.Changes&ROIChanged != 0 })
	}
	dir := t.TempDir()
	csvPath, ptsPath, jsonPath := filepath.Join(dir, "Results.csv"), filepath.Join(dir, "points.csv"), filepath.Join(dir, "rois.json")
	if err := h.s.ExportResults(csvPath); err != nil {
		t.Fatal(err)
	}
	if err := h.s.ExportPoints(2, ptsPath); err != nil {
		t.Fatal(err)
	}
	if err := h.s.ExportROIs(jsonPath); err != nil {
		t.Fatal(err)
	}
	// Python's csv module reads them, with the columns documented.
	out := testtool.RunPython(t, `
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
pts = list(csv.DictReader(open(sys.argv[2], newline="")))
print(json.dumps({"results": rows, "points": pts}))
`, csvPath, ptsPath)
	var got struct{ Results, Points []map[string]string }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(got.Results) != 2 || got.Results[0]["Label"] != "Rectangle 1:C0" || got.Results[0]["Count"] != "400" ||
		got.Results[0]["Ch"] != "1" || got.Results[1]["Label"] != "Ellipse 1:C0" {
		t.Errorf("Results.csv read as %v", got.Results)
	}
	for _, col := range measure.ResultColumns {
		if _, ok := got.Results[0][col]; !ok {
			t.Errorf("Results.csv has no column %q", col)
		}
	}
	want := h.s.Results()[0]
	if got.Results[0]["Mean"] != strconv.FormatFloat(want.Mean, 'g', -1, 64) || got.Results[0]["RawIntDen"] != strconv.FormatFloat(want.Sum, 'g', -1, 64) {
		t.Errorf("Results.csv row %v, the panel's figures %+v", got.Results[0], want.Stats)
	}
	// The demo's axes are TCZYX: napari's points of it are t, z, y, x.
	p1 := got.Points[1]
	if len(got.Points) != 2 || p1["index"] != "1" || p1["axis-0"] != "0" || p1["axis-1"] != "4" ||
		p1["axis-2"] != "60" || p1["axis-3"] != "90" {
		t.Errorf("points.csv read as %v", got.Points)
	}

	// Imported again: the same ROIs, beside the first.
	if err := h.s.ImportROIs(jsonPath); err != nil {
		t.Fatal(err)
	}
	if err := h.s.ImportPoints(ptsPath); err != nil {
		t.Fatal(err)
	}
	rois := h.s.ROIs()
	if len(rois) != 7 {
		t.Fatalf("%d ROIs after importing 3 and a set of points", len(rois))
	}
	for i, j := range map[int]int{0: 3, 1: 4, 2: 5, 2 + 4: 2} {
		a, b := rois[i], rois[j]
		if a.Kind != b.Kind || a.At != b.At || len(a.Pts) != len(b.Pts) || !nearPoint(a.Pts[0], b.Pts[0]) || !nearPoint(a.Pts[len(a.Pts)-1], b.Pts[len(b.Pts)-1]) {
			t.Errorf("ROI %d read back as %+v, was %+v", i, b, a)
		}
	}

	// Kept with the file's view: open it again, they are back.
	h.open(small(), "/data/other.tif")
	if n := len(h.s.ROIs()); n != 0 {
		t.Errorf("another file shows %d ROIs", n)
	}
	h.open(small(), "/data/volume.tif")
	if back := h.s.ROIs(); len(back) != 7 || back[0].Name != "Rectangle 1" || back[2].Kind != KindPoints || len(back[2].Pts) != 2 {
		t.Errorf("the file opened again has the ROIs %+v", back)
	}
	// A rectangle drawn now is named after those.
	h.s.SetTool(RectTool)
	h.drag(45.2, 40.2, 55.2, 50.2)
	if back := h.s.ROIs(); back[len(back)-1].Name != "Rectangle 2" {
		t.Errorf("a rectangle drawn after Rectangle 1 was restored is named %q", back[len(back)-1].Name)
	}
}

func TestLineAndPointsOnATurnedPlane(t *testing.T) {
	h := newHarness(t, Options{})
	src := small()
	h.open(src, "/data/volume.tif")
	h.s.Rune('w') // turned 5° about the screen's horizontal axis
	h.waitFrame(func(f *Frame) bool { return Oblique(f.View) && f.Info.Complete })
	h.s.SetTool(LineTool)
	press := func(x0, y0, x1, y1 float64) {
		h.s.MouseDown(x0, y0)
		h.s.Drag(x1, y1, x1-x0, y1-y0)
		h.s.MouseUp()
	}
	press(100.5, 100.5, 300.5, 200.5)
	rois := h.s.ROIs()
	if len(rois) != 1 || rois[0].Obl == nil || !nearPoint(rois[0].Pts[0], render.Point{Col: 100, Row: 100}) ||
		!nearPoint(rois[0].Pts[1], render.Point{Col: 300, Row: 200}) {
		t.Fatalf("a line on a turned plane: %+v", rois)
	}
	line := rois[0]
	h.waitResults(func(r []Result) bool { return len(r) == 1 && r[0].Final })
	want, err := measure.NewProfiler(src, 0).ProfileLine(context.Background(), line.MeasurePlane(), 0, line.Line())
	if err != nil {
		t.Fatal(err)
	}
	if got := h.s.Results()[0]; got.Length != want.Length || got.Angle != want.Angle {
		t.Errorf("length %g angle %g, measure's %g %g", got.Length, got.Angle, want.Length, want.Angle)
	}
	m := h.s.Overlay()
	if len(m) != 1 || len(m[0].Segments) != 1 || math.Abs(m[0].Segments[0][0][0]-100.5) > 1e-6 ||
		math.Abs(m[0].Segments[0][1][1]-200.5) > 1e-6 {
		t.Errorf("overlay of the turned line %+v", m)
	}
	// Zoomed in about the centre: drawn twice as long.
	h.s.Zoom(2)
	h.waitFrame(func(f *Frame) bool { return f.View.Zoom == h.s.View().Zoom })
	if m := h.s.Overlay(); len(m) != 1 || math.Abs((m[0].Outline[1][0]-m[0].Outline[0][0])-400) > 1e-6 {
		t.Errorf("after zooming in, the turned line is drawn as %+v", m)
	}
	// A point: its position in the volume is the plane's sample there.
	h.s.SetTool(PointTool)
	h.s.MouseDown(50.5, 60.5)
	h.s.MouseUp()
	pts := h.s.ROIs()[1]
	if pts.Kind != KindPoints || pts.Obl == nil {
		t.Fatalf("a point on a turned plane: %+v", pts)
	}
	pv := h.s.PointValues(1)
	sp := oblique.Spacing(src.Meta())
	q := pts.Obl.At(pts.Pts[0].Row, pts.Pts[0].Col)
	for a := range 3 {
		if math.Abs(pv[0].Index[a]-q[a]/sp[a]) > 1e-9 {
			t.Errorf("the point lies at %v, the plane's sample at %v", pv[0].Index, q)
		}
	}
	// Aligned again: neither is drawn.
	h.s.Rune('1')
	h.waitFrame(func(f *Frame) bool { return !Oblique(f.View) })
	if m := h.s.Overlay(); len(m) != 0 {
		t.Errorf("the aligned plane shows %d ROIs of the turned one", len(m))
	}
}

// TestRegionOnATurnedPlane: a rectangle and a polygon drawn on a turned
// view lie on that plane, and their figures are package measure's of the
// same shapes on it, from level 0.
func TestRegionOnATurnedPlane(t *testing.T) {
	h := newHarness(t, Options{})
	src := small()
	h.open(src, "/data/volume.tif")
	h.s.Rune('w')
	h.s.Rune('d')
	h.waitFrame(func(f *Frame) bool { return Oblique(f.View) && f.Info.Complete })
	h.s.SetTool(RectTool)
	x0, y0, x1, y1 := 80.0, 90.0, 260.0, 170.0
	if !h.s.MouseDown(x0, y0) {
		t.Fatal("the rectangle tool's press on a turned plane is not the tool's")
	}
	h.s.Drag(x1, y1, x1-x0, y1-y0)
	h.s.MouseUp()
	h.s.SetTool(PolygonTool)
	for _, p := range [][2]float64{{300.5, 60.5}, {420.5, 90.5}, {380.5, 230.5}, {290.5, 200.5}, {300.5, 60.5}} {
		h.s.MouseDown(p[0], p[1])
		h.s.MouseUp()
	}
	rois := h.s.ROIs()
	if len(rois) != 2 || rois[0].Kind != KindRect || rois[1].Kind != KindPolygon || rois[0].Obl == nil || rois[1].Obl == nil {
		t.Fatalf("a rectangle and a polygon on a turned plane: %+v", rois)
	}
	pl := ObliquePlane(src.Meta(), h.s.Shown().View)
	if *rois[0].Obl != pl {
		t.Errorf("the rectangle lies on %+v, the plane shown is %+v", *rois[0].Obl, pl)
	}
	res := h.waitResults(func(r []Result) bool { return len(r) == 2 && r[0].Final && r[1].Final })
	r0, c0, r1, c1 := rois[0].RectRange()
	if r0 != 90 || c0 != 80 || r1 != 170 || c1 != 260 {
		t.Errorf("rectangle rows %d..%d columns %d..%d, want 90..170, 80..260", r0, r1, c0, c1)
	}
	var verts []measure.Pt
	for _, p := range rois[1].Pts {
		verts = append(verts, measure.Pt{Row: p.Row, Col: p.Col})
	}
	if len(verts) != 4 {
		t.Fatalf("polygon of %d vertices, want 4", len(verts))
	}
	for i, reg := range []measure.Region{measure.Rect{Row0: r0, Col0: c0, Row1: r1, Col1: c1}, measure.Polygon{Vertices: verts}} {
		want, err := measure.Compute(context.Background(), src, measure.Query{Plane: measure.Plane{Oblique: &pl},
			Region: reg, Channels: []int{0}}, measure.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, w := res[i].Stats, want[0]
		if res[i].Err != nil || got.Count == 0 || got.Count != w.Count || got.Sum != w.Sum || got.Mean != w.Mean ||
			!sameFigure(got.Std, w.Std) || got.Min != w.Min || got.Max != w.Max || got.Area != w.Area || got.Estimate {
			t.Errorf("%s: figures %+v (error %v), measure's %+v", reg.Kind(), got, res[i].Err, w)
		}
		if px := pl.Pixel; !sameFigure(got.Area, float64(got.Count)*px*px) {
			t.Errorf("%s: area %v for %d samples of %v", reg.Kind(), got.Area, got.Count, px)
		}
	}
	// Exported and imported again: the same shapes on the same plane.
	path := filepath.Join(t.TempDir(), "rois.json")
	if err := h.s.ExportROIs(path); err != nil {
		t.Fatal(err)
	}
	if err := h.s.ImportROIs(path); err != nil {
		t.Fatalf("importing regions of a turned plane: %v", err)
	}
	back := h.s.ROIs()
	if len(back) != 4 {
		t.Fatalf("%d ROIs after importing 2 into 2", len(back))
	}
	for i := range 2 {
		a, b := rois[i], back[2+i]
		if b.Kind != a.Kind || b.Obl == nil || len(b.Pts) != len(a.Pts) {
			t.Fatalf("imported %+v, exported %+v", b, a)
		}
		for k := range a.Pts {
			if !nearPoint(a.Pts[k], b.Pts[k]) {
				t.Errorf("%s: vertex %d imported at %v, exported at %v", a.Kind, k, b.Pts[k], a.Pts[k])
			}
		}
	}
}

// TestTurnedRegionEstimateThenLevel0: a big region of a turned plane
// shows a coarse estimate first, then measure's level-0 figures; "planes"
// does not make it a prism.
func TestTurnedRegionEstimateThenLevel0(t *testing.T) {
	h := newHarness(t, Options{})
	src := stored{demo.NewSized(1, 6, 1024, 1024)}
	h.open(src, "/data/big.tif")
	for !h.s.Data().Built() {
		h.waitUpdate(func(u Update) bool { return u.Changes&StatusChanged != 0 })
	}
	sp := oblique.Spacing(src.Meta())
	u, v, _ := oblique.Basis([]oblique.Turn{{Axis: 'x', Deg: 0.3}, {Axis: 'y', Deg: 0.2}})
	pl := oblique.Plane{Center: oblique.Vec{2.5 * sp[0], 511 * sp[1], 509 * sp[2]}, U: u, V: v, Pixel: sp[2], W: 1000, H: 1000}
	h.s.AddROI(ROI{Kind: KindRect, Obl: &pl, Pts: []render.Point{{Col: 99.5, Row: 149.5}, {Col: 799.5, Row: 849.5}}})
	res := h.waitResults(func(r []Result) bool { return len(r) == 1 && r[0].Final })
	q := measure.Query{Plane: measure.Plane{Oblique: &pl}, Region: measure.Rect{Row0: 150, Col0: 100, Row1: 850, Col1: 800}, Channels: []int{0}}
	exact, err := measure.Compute(context.Background(), src, q, measure.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := res[0].Stats; got.Count == 0 || got.Count != exact[0].Count || got.Mean != exact[0].Mean || !sameFigure(got.Std, exact[0].Std) ||
		got.Area != exact[0].Area || got.Estimate {
		t.Errorf("level-0 figures %+v, measure's %+v", got, exact[0])
	}
	var est []map[string]any
	for _, e := range h.eventsNamed("measured") {
		if e["estimate"] == true {
			est = append(est, e)
		}
	}
	if len(est) != 1 {
		t.Fatalf("%d estimates before the level-0 figures, want 1", len(est))
	}
	ch := est[0]["channels"].([]any)[0].(map[string]any)
	if lvl := ch["level"].(float64); lvl < 1 || math.Abs(ch["mean"].(float64)-exact[0].Mean) > 0.05*exact[0].Mean ||
		math.Abs(ch["count"].(float64)-float64(exact[0].Count)) > 0.05*float64(exact[0].Count) {
		t.Errorf("the estimate (level %v) has count %v mean %v; level 0's are %d %g", lvl, ch["count"], ch["mean"], exact[0].Count, exact[0].Mean)
	}
	h.s.EditROI(0, func(r *ROI) { r.Depth = 3 })
	h.s.Measure()
	res = h.waitResults(func(r []Result) bool { return len(r) == 1 && (r[0].Final || r[0].Err != nil) })
	if got := res[0].Stats; res[0].Err != nil || got.Volume != 0 || got.Count != exact[0].Count {
		t.Errorf("with 3 planes: %+v (error %v), want the plane's figures", got, res[0].Err)
	}
}

func TestRegionEstimateThenLevel0AndPrism(t *testing.T) {
	h := newHarness(t, Options{})
	src := stored{demo.NewSized(1, 6, 1024, 1024)}
	h.open(src, "/data/big.tif")
	for !h.s.Data().Built() {
		h.waitUpdate(func(u Update) bool { return u.Changes&StatusChanged != 0 })
	}
	// A region of 600×600 samples: more than an estimate reads.
	h.s.AddROI(ROI{Kind: KindRect, Plane: render.XY, At: 3, Pts: []render.Point{{Col: 99.5, Row: 199.5}, {Col: 699.5, Row: 799.5}}})
	res := h.waitResults(func(r []Result) bool { return len(r) == 1 && r[0].Final })
	q := measure.Query{Plane: measure.Plane{Orientation: render.XY, Index: 3}, Region: measure.Rect{Row0: 200, Col0: 100, Row1: 800, Col1: 700},
		Channels: []int{0}}
	exact, err := measure.Compute(context.Background(), src, q, measure.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// (measure sums chunks in the order they come: the deviation may
	// differ in its last bit between two runs)
	if got := res[0].Stats; got.Count != exact[0].Count || got.Mean != exact[0].Mean || !sameFigure(got.Std, exact[0].Std) || got.Estimate {
		t.Errorf("level-0 figures %+v, measure's %+v", got, exact[0])
	}
	var est []map[string]any
	for _, e := range h.eventsNamed("measured") {
		if e["estimate"] == true {
			est = append(est, e)
		}
	}
	if len(est) != 1 {
		t.Fatalf("%d estimates before the level-0 figures, want 1", len(est))
	}
	ch := est[0]["channels"].([]any)[0].(map[string]any)
	if lvl := ch["level"].(float64); lvl < 1 || math.Abs(ch["mean"].(float64)-exact[0].Mean) > 0.05*exact[0].Mean {
		t.Errorf("the estimate (level %v) has mean %v; level 0's is %g", lvl, ch["mean"], exact[0].Mean)
	}
	// Over three planes: a volume, as measure's prism.
	h.s.EditROI(0, func(r *ROI) { r.Depth = 3 })
	res = h.waitResults(func(r []Result) bool { return len(r) == 1 && r[0].Final && r[0].Volume > 0 })
	q.From, q.To = 3, 6
	prism, err := measure.Compute(context.Background(), src, q, measure.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := res[0].Stats; got.Count != prism[0].Count || got.Volume != prism[0].Volume || got.Mean != prism[0].Mean {
		t.Errorf("prism figures %+v, measure's %+v", got, prism[0])
	}
}

// sameFigure reports whether a and b agree to 1e-12 of their size: the same
// figure summed in another order.
func sameFigure(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b)) }

// TestROIsStayOffThe3DView: the ROIs of a plane are not drawn over the
// 3-D view, and a tool's press there is the camera's, not the tool's;
// back on the plane, they are there again.
func TestROIsStayOffThe3DView(t *testing.T) {
	h := newHarness(t, Options{})
	h.open(small(), "/data/volume.tif")
	h.s.PressWith("L", Mods{Alt: true})
	h.drag(10, 20, 50, 40)
	if len(h.s.Overlay()) != 1 {
		t.Fatalf("the line drawn gives %d marks", len(h.s.Overlay()))
	}
	h.s.SetLayout(View3D)
	if h.s.Layout() != View3D {
		t.Fatal("no 3-D view")
	}
	if n := len(h.s.Overlay()); n != 0 {
		t.Errorf("%d ROI marks over the 3-D view", n)
	}
	if h.s.MouseDown(100, 100) {
		t.Error("a press on the 3-D view is taken by the line tool")
	}
	h.s.MouseUp()
	if n := len(h.s.ROIs()); n != 1 {
		t.Errorf("%d ROIs after a press on the 3-D view", n)
	}
	h.s.SetLayout(SingleView)
	if len(h.s.Overlay()) != 1 {
		t.Error("the line is not drawn on its plane again")
	}
}
