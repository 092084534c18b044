package ui

import (
	"math"
	"testing"
	"vastview/loader"
	"vastview/render"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
)

// contrastFixture is a panel in a headless window, over a histogram of
// [0, 100] in 10 bins, with the windows it reported.
type contrastFixture struct {
	c       *contrastPanel
	r       *contrastRenderer
	w       fyne.Window
	changes [][2]float64
	autos   int
}

func newContrastFixture(t *testing.T) *contrastFixture {
	t.Helper()
	test.NewTempApp(t)
	f := &contrastFixture{}
	f.c = newContrastPanel(func(lo, hi float64) { f.changes = append(f.changes, [2]float64{lo, hi}) }, func() { f.autos++ })
	f.w = test.NewTempWindow(t, f.c)
	f.w.Resize(fyne.NewSize(420, 200))
	f.c.setHistogram(render.Histogram{Min: 0, Max: 100, Counts: []int64{0, 1, 10, 100, 1000, 100, 10, 1, 0, 5}})
	f.c.setWindow(20, 80)
	f.r = test.WidgetRenderer(f.c).(*contrastRenderer)
	if f.c.Size().Width < 300 {
		t.Fatalf("panel laid out %v wide", f.c.Size())
	}
	return f
}

// plotW is the width of the value axis.
func (f *contrastFixture) plotW() float32 { return f.c.Size().Width - 2*contrastMargin }

// x is where value v lies on the panel.
func (f *contrastFixture) x(v float64) float32 {
	return contrastMargin + float32(v/100)*f.plotW()
}

// drag drags from x by the steps, then lets go.
func (f *contrastFixture) drag(x float32, steps ...float32) {
	for _, dx := range steps {
		x += dx
		f.c.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(x, 30)}, Dragged: fyne.Delta{DX: dx}})
	}
	f.c.DragEnd()
}

// last is the last window reported; it fails when none was.
func (f *contrastFixture) last(t *testing.T) (lo, hi float64) {
	t.Helper()
	if len(f.changes) == 0 {
		t.Fatal("the drag reported no window")
	}
	w := f.changes[len(f.changes)-1]
	return w[0], w[1]
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-3 }

func centre(o fyne.CanvasObject) float32 { return o.Position().X + o.Size().Width/2 }

func TestContrastSetWindowPlacesHandles(t *testing.T) {
	f := newContrastFixture(t)
	check := func(lo, hi float64) {
		t.Helper()
		if got, want := centre(f.r.loLine), f.x(lo); math.Abs(float64(got-want)) > 0.01 {
			t.Errorf("low handle at x %g, want %g", got, want)
		}
		if got, want := centre(f.r.hiLine), f.x(hi); math.Abs(float64(got-want)) > 0.01 {
			t.Errorf("high handle at x %g, want %g", got, want)
		}
		if f.r.shade.Position().X != centre(f.r.loLine) || f.r.shade.Size().Width != centre(f.r.hiLine)-centre(f.r.loLine) {
			t.Errorf("shade %v+%v not between the handles", f.r.shade.Position(), f.r.shade.Size())
		}
	}
	check(20, 80)
	if f.r.text.Text != "20 … 80" {
		t.Errorf("read-out %q, want %q", f.r.text.Text, "20 … 80")
	}
	f.c.setWindow(0, 100)
	check(0, 100)
	f.c.setWindow(-50, 150) // beyond the histogram: at its ends
	check(0, 100)
	f.c.setWindow(12.5, 50)
	check(12.5, 50)
	if f.r.text.Text != "12.5 … 50.0" {
		t.Errorf("read-out %q, want %q", f.r.text.Text, "12.5 … 50.0")
	}
	// The handles follow the panel's width.
	f.w.Resize(fyne.NewSize(300, 200))
	check(12.5, 50)
	if len(f.changes) != 0 {
		t.Errorf("setWindow reported windows %v", f.changes)
	}
}

func TestContrastBarsLogScaled(t *testing.T) {
	f := newContrastFixture(t)
	counts := f.c.hist.Counts
	plotH := f.r.loLine.Size().Height
	if plotH < contrastPlotH {
		t.Errorf("plot %g high", plotH)
	}
	if f.r.bars.Position().Y+f.r.bars.Size().Height != plotH {
		t.Error("the histogram does not stand on the bottom of the plot")
	}
	// The image: each bin's columns are filled from the bottom to its
	// bar's height, nothing above.
	const w, h = 10 * 7, 90
	img := f.r.bars.Generator(w, h)
	hs := barHeights(counts, h, false)
	for i := range counts {
		x := i*w/len(counts) + w/len(counts)/2
		filled := 0
		for y := 0; y < h; y++ {
			if _, _, _, a := img.At(x, y).RGBA(); a != 0 {
				filled++
				if y < h-hs[i] {
					t.Fatalf("bin %d: pixel at y %d above its bar of %d", i, y, hs[i])
				}
			}
		}
		if filled != hs[i] || (counts[i] == 0) != (filled == 0) {
			t.Errorf("bin %d (count %d): %d pixels filled, bar %d", i, counts[i], filled, hs[i])
		}
	}
	if hs[4] != h || !(hs[3] < hs[4]) || !(hs[2] < hs[3]) || !(hs[1] < hs[2]) || hs[3] != hs[5] {
		t.Errorf("bar heights %v do not follow the counts %v", hs, counts)
	}
	// Log scale: a count of 1 beside 1000 still shows (linear would be 1/1000).
	if hs[1] < h/20 {
		t.Errorf("count 1 of 1000 drawn %d of %d high", hs[1], h)
	}
	// However many bins, the histogram is one object.
	f.c.setHistogram(render.Histogram{Min: 0, Max: 4, Counts: []int64{1, 2, 3, 4}})
	if n := len(f.r.Objects()); n != 8 {
		t.Errorf("%d objects for 4 bins, want 8", n)
	}
	if got := barHeights(f.r.drawn.Counts, 100, false); len(got) != 4 {
		t.Errorf("the image was not redrawn for the new histogram: %v", got)
	}
	if ms := f.c.MinSize(); ms.Height < contrastPlotH || ms.Width > 200 {
		t.Errorf("MinSize %v", ms)
	}
}

func TestContrastDragLowHandle(t *testing.T) {
	f := newContrastFixture(t)
	step := f.plotW() / 100 // one value
	f.drag(f.x(20)+2, 4*step, 6*step)
	if len(f.changes) != 2 {
		t.Errorf("%d windows reported for 2 drag events", len(f.changes))
	}
	if lo, hi := f.last(t); !near(lo, 30) || hi != 80 {
		t.Errorf("low handle dragged +10: window [%g, %g], want [30, 80]", lo, hi)
	}
	f.drag(f.x(30)-3, -50*step) // below the histogram
	if lo, hi := f.last(t); lo != 0 || hi != 80 {
		t.Errorf("low handle dragged below 0: window [%g, %g], want [0, 80]", lo, hi)
	}
	f.drag(f.x(0), 200*step) // past the high handle
	if lo, hi := f.last(t); !(lo < hi) || lo < 79 || hi != 80 {
		t.Errorf("low handle dragged past high: window [%g, %g]", lo, hi)
	}
}

func TestContrastDragHighHandle(t *testing.T) {
	f := newContrastFixture(t)
	step := f.plotW() / 100
	f.drag(f.x(80)-3, -15*step)
	if lo, hi := f.last(t); lo != 20 || !near(hi, 65) {
		t.Errorf("high handle dragged -15: window [%g, %g], want [20, 65]", lo, hi)
	}
	f.drag(f.x(65)+3, 60*step)
	if lo, hi := f.last(t); lo != 20 || hi != 100 {
		t.Errorf("high handle dragged beyond 100: window [%g, %g], want [20, 100]", lo, hi)
	}
	f.drag(f.x(100), -200*step)
	if lo, hi := f.last(t); !(hi > lo) || hi > 21 || lo != 20 {
		t.Errorf("high handle dragged past low: window [%g, %g]", lo, hi)
	}
}

func TestContrastDragWindow(t *testing.T) {
	f := newContrastFixture(t)
	step := f.plotW() / 100
	f.drag(f.x(50), -5*step, -5*step)
	if lo, hi := f.last(t); !near(lo, 10) || !near(hi, 70) {
		t.Errorf("window dragged -10: [%g, %g], want [10, 70]", lo, hi)
	}
	f.drag(f.x(40), -30*step)
	if lo, hi := f.last(t); lo != 0 || !near(hi, 60) {
		t.Errorf("window dragged below 0: [%g, %g], want [0, 60]", lo, hi)
	}
	f.drag(f.x(30), 70*step)
	if lo, hi := f.last(t); !near(lo, 40) || hi != 100 {
		t.Errorf("window dragged beyond 100: [%g, %g], want [40, 100]", lo, hi)
	}
	lo, hi := f.c.lo, f.c.hi
	if !near(lo, 40) || hi != 100 {
		t.Errorf("panel shows [%g, %g] after the drags", lo, hi)
	}
	if got := centre(f.r.loLine); math.Abs(float64(got-f.x(40))) > 0.01 {
		t.Errorf("low handle at %g after the drag, want %g", got, f.x(40))
	}
}

func TestContrastDragOutsideWindowDoesNothing(t *testing.T) {
	f := newContrastFixture(t)
	step := f.plotW() / 100
	f.drag(f.x(20)-contrastHit-2, 5*step) // left of the low handle's reach
	f.drag(f.x(80)+contrastHit+2, -5*step)
	if len(f.changes) != 0 {
		t.Errorf("drags outside the window reported %v", f.changes)
	}
}

func TestContrastHandlesThatMeetGoByDirection(t *testing.T) {
	f := newContrastFixture(t)
	step := f.plotW() / 100
	f.c.setWindow(50, 50.01)
	f.drag(f.x(50), -10*step)
	if lo, hi := f.last(t); !near(lo, 40) || hi != 50.01 {
		t.Errorf("dragged left from meeting handles: [%g, %g], want [40, 50.01]", lo, hi)
	}
	f.c.setWindow(50, 50.01)
	f.drag(f.x(50), 10*step)
	if lo, hi := f.last(t); lo != 50 || !near(hi, 60.01) {
		t.Errorf("dragged right from meeting handles: [%g, %g], want [50, 60.01]", lo, hi)
	}
}

func TestContrastDoubleTapAsksForAuto(t *testing.T) {
	f := newContrastFixture(t)
	test.DoubleTap(f.c)
	if f.autos != 1 || len(f.changes) != 0 {
		t.Errorf("double tap: %d auto-contrast calls, windows %v", f.autos, f.changes)
	}
}

func TestContrastCursorOverHandles(t *testing.T) {
	f := newContrastFixture(t)
	move := func(x float32) desktop.Cursor {
		f.c.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(x, 30)}})
		return f.c.Cursor()
	}
	if move(f.x(20)+3) != desktop.HResizeCursor || move(f.x(80)-3) != desktop.HResizeCursor {
		t.Error("no resize cursor over the handles")
	}
	if move(f.x(50)) != desktop.DefaultCursor {
		t.Error("resize cursor between the handles")
	}
}

func TestContrastReadoutCompact(t *testing.T) {
	for _, c := range []struct {
		lo, hi, span float64
		want         string
	}{
		{0, 65535, 65535, "0 … 65535"},
		{0.125, 0.5, 1, "0.125 … 0.500"},
		{-0.0001, 0.5, 1, "0.00 … 0.50"},
		{-3, 12, 255, "-3.0 … 12.0"},
		{-3, 300, 1000, "-3 … 300"},
		{1e-6, 3e-6, 1e-5, "1e-06 … 3e-06"},
		{1e7, 3e7, 1e8, "1e+07 … 3e+07"},
	} {
		if got := contrastReadout(c.lo, c.hi, c.span); got != c.want {
			t.Errorf("contrastReadout(%g, %g, %g) = %q, want %q", c.lo, c.hi, c.span, got, c.want)
		}
	}
}

// TestContrastReadoutInFileUnits: data with a value scale (CT's rescale
// slope and intercept) and a unit has the window read out in those
// units, named ("HU"), the bars and handles staying where they are.
func TestContrastReadoutInFileUnits(t *testing.T) {
	f := newContrastFixture(t)
	f.c.scale, f.c.unit = &loader.ValueScale{Slope: 2, Intercept: -100}, "HU"
	f.c.setWindow(20, 80)
	if got, want := f.r.text.Text, "-60 … 60 HU"; got != want {
		t.Errorf("read-out %q, want %q", got, want)
	}
	if got, want := centre(f.r.loLine), f.x(20); math.Abs(float64(got-want)) > 0.01 {
		t.Errorf("low handle at x %g, want %g", got, want)
	}
}
