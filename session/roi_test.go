package session

import (
	"context"
	"math"
	"testing"

	"vastview/measure"
	"vastview/render"
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
	if got.Count != rect[0].Count || got.Sum != rect[0].Sum || got.Mean != rect[0].Mean || got.Std != rect[0].Std ||
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
	img := h.s.Plot(300, 200)
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
