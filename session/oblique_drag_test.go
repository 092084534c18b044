package session

import (
	"math"
	"testing"

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
