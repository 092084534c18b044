package session

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"vastview/render"
)

// TestDragTurnsATurnedPlane: in a view of an XY, XZ or YZ plane a drag
// pans; once the plane is turned out of them a plain drag turns it about
// the view's centre (0.25° a pixel, the side under the pointer following
// it), Shift+drag pans it, Ctrl+Shift+drag turns it in fine steps (0.05° a
// pixel); aligned again (1), a drag pans again.
func TestDragTurnsATurnedPlane(t *testing.T) {
	src := volume([3]int{20, 64, 96}, [3]float64{2, 1, 1}, func(z, y, x int) uint16 { return uint16(100*z + 7*y + 3*x) })
	h := newHarness(t, Options{})
	h.open(src, "/data/vol.tif")
	h.s.Resize(200, 150)
	m := h.s.Meta()
	u := func(v render.View) [3]float64 { return ObliquePlane(m, v).U }
	angle := func(a, b [3]float64) float64 {
		d := a[0]*b[0] + a[1]*b[1] + a[2]*b[2]
		return math.Acos(max(-1, min(1, d))) * 180 / math.Pi
	}
	drag := func(dx float64) (before, after render.View) {
		t.Helper()
		before = h.s.View()
		h.s.Drag(100+dx, 75, dx, 0)
		return before, h.s.View()
	}
	panned := func(what string, b, a render.View) {
		t.Helper()
		if a.Turn != b.Turn || a.Center == b.Center {
			t.Errorf("%s did not pan: center %v -> %v, turn %v -> %v", what, b.Center, a.Center, b.Turn, a.Turn)
		}
	}
	turned := func(what string, b, a render.View, deg float64) {
		t.Helper()
		if a.Center != b.Center || math.Abs(angle(u(b), u(a))-deg) > 1e-6 {
			t.Errorf("%s: center %v -> %v, turned %v°, want %v°", what, b.Center, a.Center, angle(u(b), u(a)), deg)
		}
	}

	b, a := drag(20)
	panned("a drag in the XY plane", b, a)
	h.s.Turn(2, 30) // turned within the XY plane: still XY, a drag pans
	b, a = drag(20)
	panned("a drag in the XY plane turned about its normal", b, a)
	h.s.Turn(0, 5) // out of XY
	b, a = drag(20)
	turned("a drag in a turned plane", b, a, 5)
	h.s.KeyDown(KeyShiftLeft)
	b, a = drag(20)
	panned("Shift+drag in a turned plane", b, a)
	h.s.KeyDown(KeyControlLeft)
	b, a = drag(20)
	turned("Ctrl+Shift+drag in a turned plane", b, a, 1)
	h.s.KeyUp(KeyShiftLeft)
	h.s.KeyUp(KeyControlLeft)
	h.s.SetOrientation(render.XZ) // aligned to XZ
	if h.s.View().Turn != (render.Turn{}) {
		t.Fatal("XZ did not align the plane")
	}
	b, a = drag(20)
	panned("a drag in the XZ plane aligned again", b, a)
	h.s.KeyDown(KeyControlLeft)
	b, a = drag(20)
	h.s.KeyUp(KeyControlLeft)
	turned("Ctrl+drag in the XZ plane", b, a, 5)
}

// gatedSource is an arraySource whose planes from Z `from` on load only
// once gate is closed.
type gatedSource struct {
	*arraySource
	from int
	gate chan struct{}
}

func (s gatedSource) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if idx[0] >= s.from {
		select {
		case <-s.gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return s.arraySource.ReadChunk(ctx, level, idx, dst)
}

// TestTurnedPlaneKeepsItsPixelsUntilDataComes: turning a plane onto
// planes of the data no level holds yet, those parts of the view keep
// the last frame's pixels until their data comes, rather than turning to
// background.
func TestTurnedPlaneKeepsItsPixelsUntilDataComes(t *testing.T) {
	vol := volume([3]int{24, 64, 96}, [3]float64{1, 1, 1}, func(z, y, x int) uint16 { return uint16(1000 + 40*z + 7*y + 3*x) })
	src := gatedSource{vol, 16, make(chan struct{})}
	t.Cleanup(func() { close(src.gate) })
	h := newHarness(t, Options{})
	h.open(src, "/data/vol.tif")
	h.s.SetWindow(0, 4000)
	h.s.Resize(200, 150)
	h.s.Turn(0, 3)
	first := h.waitFrame(func(f *Frame) bool { return f.Info.Complete && f.View.Turn != (render.Turn{}) })
	before := slices.Clone(first.Img.Pix)
	h.s.Turn(0, 20)
	f := h.waitFrame(func(f *Frame) bool { return f.View.Turn != first.View.Turn && f.Info.Unfilled > 0 })
	m := h.s.Meta()
	pl := ObliquePlane(m, f.View)
	bg := func(p []uint8, i int) bool {
		return p[4*i] == obliqueBackground[0] && p[4*i+1] == obliqueBackground[1] && p[4*i+2] == obliqueBackground[2]
	}
	held, bad := 0, 0
	for i := 0; i < pl.H; i++ {
		for j := 0; j < pl.W; j++ {
			q := pl.At(float64(i), float64(j))
			// A sample on a plane still held back, well inside the data,
			// where the last frame showed data.
			if !(q[0] >= 16.5 && q[0] < 22.5 && q[1] > 1 && q[1] < 62 && q[2] > 1 && q[2] < 94) || bg(before, i*pl.W+j) {
				continue
			}
			held++
			if bg(f.Img.Pix, i*pl.W+j) {
				bad++
			}
		}
	}
	if held < 100 || bad > 0 {
		t.Errorf("%d of %d pixels on planes without data turned to background", bad, held)
	}
}

// TestDragOfATurnedPlanePausesTheBuild: while an oblique plane is
// dragged the levels being built pause (their work would take the cores
// from the frames), and go on when the drag ends; a pan of an
// axis-aligned plane leaves them be.
func TestDragOfATurnedPlanePausesTheBuild(t *testing.T) {
	src := volume([3]int{20, 64, 96}, [3]float64{1, 1, 1}, func(z, y, x int) uint16 { return uint16(100*z + 7*y + 3*x) })
	h := newHarness(t, Options{})
	h.open(src, "/data/vol.tif")
	h.s.Resize(200, 150)
	holding := func() bool {
		h.s.mu.Lock()
		defer h.s.mu.Unlock()
		return h.s.dragEnd != nil
	}
	h.s.Drag(100, 80, 0, 5)
	if holding() {
		t.Error("a pan of an XY plane paused the build")
	}
	h.s.DragEnd()
	h.s.Turn(0, 3)
	h.s.Drag(100, 80, 0, 5)
	h.s.Drag(100, 85, 0, 5)
	if !holding() {
		t.Error("a drag of a turned plane did not pause the build")
	}
	h.s.DragEnd()
	if holding() {
		t.Error("the build stays paused after the drag")
	}
}

// TestSlowDragIsDrawnCoarser: a drag of a turned plane whose frames are
// drawn within the budget keeps the screen's level; once one has taken
// longer (here, with a budget below 0, the first), the rest of the drag is
// drawn one level coarser; the end of the drag draws the plane again at
// the screen's level, complete.
func TestSlowDragIsDrawnCoarser(t *testing.T) {
	saved := dragFrameBudget
	t.Cleanup(func() { dragFrameBudget = saved }) // after the harness's, which stops its painters
	src := volume([3]int{24, 300, 600}, [3]float64{1, 1, 1}, func(z, y, x int) uint16 { return uint16(100*z + 7*y + 3*x) })
	h := newHarness(t, Options{})
	h.open(src, "/data/vol.tif")
	h.s.Resize(700, 400)
	h.s.Turn(0, 5)
	turn := h.s.View().Turn
	f := h.waitFrame(func(f *Frame) bool { return f.View.Turn == turn && f.Info.Complete })
	fine := f.Info.Level
	if levels := len(h.s.Meta().Levels); fine+1 >= levels {
		t.Fatalf("the plane is drawn from level %d of %d: none coarser", fine, levels)
	}
	// Each frame of a drag (the refinements of one included) comes from
	// level want.
	drag := func(budget time.Duration, want int) {
		t.Helper()
		dragFrameBudget = budget
		for i := range 3 {
			h.s.Drag(300+8*float64(i), 200, 8, 0)
			turn = h.s.View().Turn
			f = h.waitFrame(func(f *Frame) bool { return f.View.Turn == turn })
			if i > 0 && f.Info.Level != want {
				t.Errorf("budget %v: frame %d of the drag drawn from level %d, want %d", budget, i, f.Info.Level, want)
			}
		}
		h.s.DragEnd()
		h.waitFrame(func(f *Frame) bool { return f.View.Turn == turn && f.Info.Level == fine && f.Info.Complete })
	}
	drag(time.Hour, fine)
	drag(-1, fine+1)
}
