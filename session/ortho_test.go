package session

import (
	"image"
	"testing"

	"vastview/loader"
	"vastview/prefs"
	"vastview/render"
)

// TestFourPanelsFollowAClick lays out the four panels, clicks a sample in
// the XY panel, then one in the XZ panel: the position moves to it on
// the panel's two axes, and each panel shows its plane through the
// position (the same picture as a view of that plane alone at the
// panel's size) with the crosshair on the position's column and row.
func TestFourPanelsFollowAClick(t *testing.T) {
	src := volume([3]int{20, 64, 96}, [3]float64{1, 1, 1}, func(z, y, x int) uint16 { return uint16(100*z + 7*y + 3*x) })
	h := newHarness(t, Options{})
	h.open(src, "/data/vol.tif")
	h.s.SetWindow(0, 4000)
	h.s.Resize(402, 302) // panels of 200 × 150
	h.s.SetLayout(FourPanels)
	if h.s.Layout() != FourPanels {
		t.Fatal("no four panels")
	}
	f := h.waitFrame(func(f *Frame) bool { return f.Panel == "xy" && f.Info.Complete && f.Img.Rect.Dx() == 402 })
	m := h.s.Meta()
	rects := panelRects(402, 302)
	click := func(panel int, col, row float64) {
		t.Helper()
		v := render.View{Orientation: panelOrient[panel], Width: 200, Height: 150}
		v.Zoom, v.Center = render.Fit(m, v)
		x, y := v.ToScreen(m, render.Point{Col: col + 0.5, Row: row + 0.5})
		h.s.Hover(x+float64(rects[panel].Min.X), y+float64(rects[panel].Min.Y), true)
		h.s.Click(x+float64(rects[panel].Min.X), y+float64(rects[panel].Min.Y))
	}
	check := func(z, y, x int, active string) {
		t.Helper()
		ok := func(f *Frame) bool {
			return f.Info.Complete && f.Panel == active && f.View.Z == z && f.View.Y == y && f.View.X == x
		}
		if !ok(f) {
			f = h.waitFrame(ok)
		}
		f.Img = copyImage(f.Img)
		compared := 0
		for i := 0; i < numPanels; i++ {
			v := render.View{Orientation: panelOrient[i], Z: z, Y: y, X: x, Width: 200, Height: 150, Lo: 0, Hi: 4000}
			v.Zoom, v.Center = render.Fit(m, v)
			row, col, _ := v.Orientation.Axes()
			at := map[byte]float64{'Z': float64(z) + 0.5, 'Y': float64(y) + 0.5, 'X': float64(x) + 0.5}
			cx, cy := v.ToScreen(m, render.Point{Col: at[col], Row: at[row]})
			lx, ly := int(cx), int(cy)
			r := rects[i]
			px := func(img *image.RGBA, x, y int) [3]uint8 {
				o := img.PixOffset(x, y)
				return [3]uint8{img.Pix[o], img.Pix[o+1], img.Pix[o+2]}
			}
			if i == panelProj {
				continue // the 3-D view (see TestFourPanelsShow3D)
			}
			cross := [3]uint8{crosshairColour.R, crosshairColour.G, crosshairColour.B}
			if got := px(f.Img, r.Min.X+lx, r.Min.Y+5); got != cross {
				t.Errorf("panel %s: no vertical line at x %d (%v)", panelNames[i], lx, got)
			}
			if got := px(f.Img, r.Min.X+5, r.Min.Y+ly); got != cross {
				t.Errorf("panel %s: no horizontal line at y %d (%v)", panelNames[i], ly, got)
			}
			if i == panelProj {
				continue
			}
			var rr render.Renderer
			want, info := rr.Render(v, h.s.Data().Pyr, 1)
			if !info.Complete {
				continue // not in memory for a fresh renderer: nothing to compare
			}
			bad := 0
			for yy := 0; yy < 120; yy++ { // above the panel's name
				for xx := 0; xx < 200; xx++ {
					if xx == lx || yy == ly {
						continue
					}
					if px(f.Img, r.Min.X+xx, r.Min.Y+yy) != px(want, xx, yy) {
						bad++
					}
				}
			}
			if bad > 0 {
				t.Errorf("panel %s: %d pixels differ from the plane's own view", panelNames[i], bad)
			}
			compared++
		}
		if compared < 2 {
			t.Errorf("only %d panels compared with their planes", compared)
		}
	}
	check(10, 32, 48, "xy")
	click(panelXY, 30, 20)
	check(10, 20, 30, "xy")
	click(panelXZ, 70, 4) // X 70, Z 4
	check(4, 20, 70, "xz")
	// A drag in the YZ panel moves the position as it goes; with Shift it
	// pans the panel instead.
	v := render.View{Orientation: render.YZ, Width: 200, Height: 150}
	v.Zoom, v.Center = render.Fit(m, v)
	dx, dy := v.ToScreen(m, render.Point{Col: 50.5, Row: 15.5}) // Y 50, Z 15
	h.s.Hover(dx+float64(rects[panelYZ].Min.X), dy+float64(rects[panelYZ].Min.Y), true)
	h.s.Drag(dx+float64(rects[panelYZ].Min.X), dy+float64(rects[panelYZ].Min.Y), 3, 2)
	check(15, 50, 70, "yz")
	h.s.KeyDown(KeyShiftLeft)
	h.s.Drag(dx+float64(rects[panelYZ].Min.X)+20, dy+float64(rects[panelYZ].Min.Y), 20, 0)
	h.s.KeyUp(KeyShiftLeft)
	if got := h.s.View(); got.Z != 15 || got.Y != 50 || !(got.Zoom > 0) {
		t.Errorf("Shift+drag moved the position or did not pan: %+v", got)
	}
	h.s.SetOrientation(render.XZ) // the toolbar's XZ: that panel takes the keys
	f = h.waitFrame(func(f *Frame) bool { return f.Panel == "xz" && f.Info.Complete })
	if f.View.Orientation != render.XZ || f.Img.Rect.Dx() != 402 {
		t.Errorf("XZ chosen in the four panels: %v %v", f.View.Orientation, f.Img.Rect)
	}
	h.s.SetOrientation(render.YZ)
	h.s.SetLayout(SingleView)
	f = h.waitFrame(func(f *Frame) bool { return f.Panel == "" && f.Info.Complete })
	if f.Img.Rect.Dx() != 402 || f.View.Orientation != render.YZ {
		t.Errorf("one plane again: %v, %v", f.Img.Rect, f.View.Orientation)
	}
}

// TestRememberedFourPanelsOpenBeforeTheSizeIsKnown: a file last shown in
// four panels opens in them again, drawn whatever size the view has when
// its first frame is drawn (a window's first frames come before its
// layout settles), then at the window's size.
func TestRememberedFourPanelsOpenBeforeTheSizeIsKnown(t *testing.T) {
	src := func() loader.Source {
		return volume([3]int{20, 64, 96}, [3]float64{1, 1, 1}, func(z, y, x int) uint16 { return uint16(100*z + 7*y + 3*x) })
	}
	pr := prefs.New(&prefs.MapStore{})
	h := newHarness(t, Options{Prefs: pr})
	h.s.Resize(402, 302)
	h.open(src(), "/data/vol.tif")
	h.s.SetLayout(FourPanels)
	h.waitFrame(func(f *Frame) bool { return f.Panel != "" && f.Info.Complete })
	h.s.Close()

	h = newHarness(t, Options{Prefs: pr})
	h.s.Resize(1, 1)
	if err := h.s.OpenSource(src(), "/data/vol.tif"); err != nil {
		t.Fatal(err)
	}
	h.waitFrame(func(f *Frame) bool { return f.Panel != "" })
	h.s.Resize(402, 302)
	h.waitFrame(func(f *Frame) bool { return f.Panel != "" && f.Info.Complete && f.Img.Rect.Dx() == 402 })
}

// TestFourPanelsAnatomicalPlaces lays out the four panels of a volume
// acquired sagittally (X toward anterior, Y superior, Z right: its XY
// plane is sagittal, XZ axial, YZ coronal): the axial panel is at the top
// left, coronal at the top right, sagittal at the bottom left, as for a
// volume stored RAS; a click in the top left quarter of the axial panel
// activates it and moves the position to the patient's right and
// anterior (high Z and X).
func TestFourPanelsAnatomicalPlaces(t *testing.T) {
	src := volume([3]int{40, 30, 50}, [3]float64{1, 1, 1}, func(z, y, x int) uint16 { return uint16(100*z + 7*y + 3*x) })
	src.meta.Anatomy = &loader.Anatomy{Space: loader.SpaceRAS, Affine: [3][4]float64{{0, 0, 1, -20}, {1, 0, 0, 5}, {0, 1, 0, 7}}}
	h := newHarness(t, Options{})
	h.open(src, "/data/asr.nii")
	h.s.Resize(402, 302) // panels of 200 × 150
	h.s.SetLayout(FourPanels)
	m := h.s.Meta()
	places := map[string]render.Orientation{"axial": render.XZ, "coronal": render.YZ, "sagittal": render.XY}
	rects := panelRects(402, 302)
	for name, o := range places {
		if got := PlaneName(m, o); got != name {
			t.Fatalf("%s: %q, want %q", o, got, name)
		}
	}
	for i, name := range []string{"axial", "coronal", "sagittal"} {
		r := rects[i]
		h.s.Hover(float64(r.Min.X+r.Dx()/4), float64(r.Min.Y+r.Dy()/4), true)
		want := places[name].String()
		f := h.waitFrame(func(f *Frame) bool { return f.Panel == want })
		if f.View.Orientation != places[name] {
			t.Errorf("the panel at %v shows %s, want %s (%s)", r.Min, f.View.Orientation, places[name], name)
		}
	}
	r := rects[0]
	h.s.Click(float64(r.Min.X+r.Dx()/4), float64(r.Min.Y+r.Dy()/4))
	f := h.waitFrame(func(f *Frame) bool { return f.Panel == "xz" && f.View.Z > 20 && f.View.X > 25 })
	if f.View.Y != 15 {
		t.Errorf("a click in the axial panel moved Y (superior) to %d", f.View.Y)
	}
}
