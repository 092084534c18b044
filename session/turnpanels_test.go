package session

import (
	"math"
	"testing"

	"vastview/prefs"
	"vastview/render"
	"vastview/render/oblique"
)

// TestTurnedPanelStepsAlongItsNormal: in the four panels with a turned
// frame, the plane keys move the shared position along the active
// panel's own normal (its plane's U × V), the smallest spacing a step
// (Shift: 10), '.' towards its unturned normal axis's higher indices and
// ',' back; End and Home take it to the data's edge along that normal.
func TestTurnedPanelStepsAlongItsNormal(t *testing.T) {
	src := volume([3]int{20, 64, 96}, [3]float64{2, 1, 0.5}, func(z, y, x int) uint16 { return uint16(100*z + 7*y + 3*x) })
	h := newHarness(t, Options{})
	h.open(src, "/data/vol.tif")
	h.s.Resize(402, 302)
	h.s.SetLayout(FourPanels)
	h.s.Turn(0, 20)
	h.s.Turn(1, -15)
	m := h.s.Meta()
	sp, n := oblique.Spacing(m), oblique.Extent(m)
	const D = 0.5 // the smallest spacing
	physical := func(at oblique.Vec) oblique.Vec { return oblique.Vec{at[0] * sp[0], at[1] * sp[1], at[2] * sp[2]} }
	state := func() (at oblique.Vec, pl oblique.Plane, v render.View) {
		h.s.mu.Lock()
		defer h.s.mu.Unlock()
		v = h.s.view
		at = h.s.ortho.position(v)
		return at, turnedPanelPlane(m, v, at), v
	}
	for _, o := range []render.Orientation{render.XY, render.XZ, render.YZ} {
		h.s.SetOrientation(o) // that panel takes the keys
		_, _, normal := o.Axes()
		var e oblique.Vec
		e[axisSlot(normal)] = 1
		for _, c := range []struct {
			key   string
			mods  Mods
			steps float64
		}{{KeyPeriod, Mods{}, 1}, {KeyPeriod, Mods{}, 1}, {KeyComma, Mods{}, -1}, {KeyPeriod, Mods{Shift: true}, 10}, {KeyComma, Mods{Shift: true}, -10}} {
			at, pl, v := state()
			if v.Orientation != o || v.Turn == (render.Turn{}) {
				t.Fatalf("%v: view %+v", o, v)
			}
			h.s.PressWith(c.key, c.mods)
			after, _, nv := state()
			move := physical(after).Add(physical(at).Scale(-1))
			w := oblique.Vec(v.Turn.Apply(e))
			if math.Abs(move.Dot(pl.U)) > 1e-9 || math.Abs(move.Dot(pl.V)) > 1e-9 ||
				math.Abs(move.Dot(w)-c.steps*D) > 1e-9 {
				t.Errorf("%v %q %+v: the position moved by %v (along the panel's U %g, V %g, normal %g), want %g along its normal",
					o, c.key, c.mods, move, move.Dot(pl.U), move.Dot(pl.V), move.Dot(w), c.steps*D)
			}
			for a, i := range []int{nv.Z, nv.Y, nv.X} {
				if i != int(math.Floor(after[a]+0.5)) {
					t.Errorf("%v: view's indices %d %d %d are not the samples nearest %v", o, nv.Z, nv.Y, nv.X, after)
				}
			}
		}
		for _, c := range []struct {
			key  string
			sign float64
		}{{KeyEnd, 1}, {KeyHome, -1}} {
			at, pl, v := state()
			h.s.Press(c.key)
			after, _, _ := state()
			move := physical(after).Add(physical(at).Scale(-1))
			w := oblique.Vec(v.Turn.Apply(e))
			edge := false
			for a := range after {
				edge = edge || math.Abs(after[a]+0.5) < 1e-9 || math.Abs(after[a]-float64(n[a])+0.5) < 1e-9
			}
			if math.Abs(move.Dot(pl.U)) > 1e-9 || math.Abs(move.Dot(pl.V)) > 1e-9 || move.Dot(w)*c.sign <= 0 || !edge {
				t.Errorf("%v %q: the position moved from %v to %v, not along the normal to the data's edge", o, c.key, at, after)
			}
		}
	}
}

// TestTurnedViewStepsAlongItsNormal: one turned plane shown alone, the
// plane keys move it along its own normal (BigDataViewer's habit), the
// smallest spacing a step, the point at the view's centre moving with it
// (between samples if so: the picture does not slide); the drawn frame
// is the plane moved, ',' takes it back, and the place between samples
// is remembered with the view. Aligning the plane again drops it.
func TestTurnedViewStepsAlongItsNormal(t *testing.T) {
	src := volume([3]int{20, 64, 96}, [3]float64{2, 1, 0.5}, func(z, y, x int) uint16 { return uint16(100*z + 7*y + 3*x) })
	pr := prefs.New(&prefs.MapStore{})
	h := newHarness(t, Options{Prefs: pr})
	h.open(src, "/data/vol.tif")
	h.s.Resize(300, 200)
	h.s.Turn(0, 35)
	h.s.Turn(1, -50)
	m := h.s.Meta()
	const D = 0.5 // the smallest spacing
	plane := func() oblique.Plane { return ObliquePlane(m, h.s.View()) }
	start := plane()
	w := start.U.Cross(start.V)
	for i, c := range []struct {
		key   string
		mods  Mods
		steps float64
	}{{KeyPeriod, Mods{}, 1}, {KeyPeriod, Mods{}, 1}, {KeyComma, Mods{}, -1}, {KeyPeriod, Mods{Shift: true}, 10}, {KeyComma, Mods{Shift: true}, -10}} {
		before := plane()
		h.s.PressWith(c.key, c.mods)
		after := plane()
		move := after.Center.Add(before.Center.Scale(-1))
		if after.U != before.U || after.V != before.V || math.Abs(move.Dot(before.U)) > 1e-9 || math.Abs(move.Dot(before.V)) > 1e-9 ||
			math.Abs(move.Dot(w)-c.steps*D) > 1e-9 {
			t.Errorf("press %d, %q %+v: the plane's centre moved by %v (along U %g, V %g, the normal %g), want %g along its normal",
				i, c.key, c.mods, move, move.Dot(before.U), move.Dot(before.V), move.Dot(w), c.steps*D)
		}
	}
	h.s.Press(KeyPeriod)
	v := h.s.View()
	if v.Depth == 0 {
		t.Fatalf("the plane's centre is on a sample along the normal axis after a turned step: %+v", v)
	}
	want := plane()
	f := h.waitFrame(func(f *Frame) bool { return f.Info.Complete && f.View.Depth == v.Depth && f.View.Center == v.Center })
	if f.plane == nil || f.plane.Center != want.Center {
		t.Errorf("the frame drawn samples the plane through %v, want %v", f.plane, want.Center)
	}

	// Opened again: the same plane.
	h.s.SaveView()
	h2 := newHarness(t, Options{Prefs: pr})
	h2.open(src, "/data/vol.tif")
	h2.s.Resize(300, 200)
	if got := ObliquePlane(m, h2.s.View()); got.Center != want.Center || got.U != want.U {
		t.Errorf("opened again, the plane is through %v along %v, want %v along %v", got.Center, got.U, want.Center, want.U)
	}
	h.s.SetOrientation(render.XY)
	if v := h.s.View(); v.Turn != (render.Turn{}) || v.Depth != 0 {
		t.Errorf("aligned to XY again: turn %v, depth %v", v.Turn, v.Depth)
	}
}

// TestLeavingTurnedPanelsKeepsThePlane: leaving the four panels of a
// turned frame shows the active panel's plane alone, centred on the
// point the panel's centre showed (between samples when the position
// is), at the panel's zoom: the plane does not jump along its normal or
// within itself.
func TestLeavingTurnedPanelsKeepsThePlane(t *testing.T) {
	src := volume([3]int{20, 64, 96}, [3]float64{2, 1, 0.5}, func(z, y, x int) uint16 { return uint16(100*z + 7*y + 3*x) })
	h := newHarness(t, Options{})
	h.open(src, "/data/vol.tif")
	h.s.Resize(402, 302)
	h.s.Turn(0, 20)
	h.s.Turn(1, -15)
	for _, c := range []struct {
		o     render.Orientation
		panel string
		zoom  bool
	}{{render.XY, "xy", false}, {render.XZ, "xz", true}, {render.YZ, "yz", false}} {
		h.s.SetLayout(FourPanels)
		h.s.SetOrientation(c.o) // that panel takes the keys
		h.s.Press(KeyPeriod)    // the position between samples
		h.s.Press(KeyPeriod)
		if c.zoom {
			h.s.Rune('+') // a panel zoomed, not fitted
		}
		// The plane the active panel shows now, and the frame that shows it.
		m := h.s.Meta()
		h.s.mu.Lock()
		v := h.s.view
		at := h.s.ortho.position(v)
		if !(v.Zoom > 0) {
			lo, hi := h.s.fitBoxLocked(v.Orientation)
			v.Zoom, v.Center = render.FitBox(m, v, lo, hi)
		}
		want := turnedPanelPlane(m, v, at)
		h.s.mu.Unlock()
		h.waitFrame(func(f *Frame) bool {
			p, ok := f.Plane()
			return f.Panel == c.panel && f.Info.Complete && ok && p == want
		})
		h.s.SetLayout(SingleView)
		f := h.waitFrame(func(f *Frame) bool { return f.Panel == "" && f.Info.Complete })
		got, ok := f.Plane()
		if !ok || f.Img.Rect.Dx() != 402 || f.Img.Rect.Dy() != 302 {
			t.Fatalf("%v: one plane again: %v, turned %v", c.o, f.Img.Rect, ok)
		}
		d := got.Center.Add(want.Center.Scale(-1))
		if got.U != want.U || got.V != want.V || math.Abs(got.Pixel-want.Pixel) > 1e-12 || math.Sqrt(d.Dot(d)) > 1e-9 {
			t.Errorf("%v: the panel showed the plane through %v (U %v, V %v, pixel %g), alone it is through %v (U %v, V %v, pixel %g)",
				c.o, want.Center, want.U, want.V, want.Pixel, got.Center, got.U, got.V, got.Pixel)
		}
	}
}
