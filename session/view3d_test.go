package session

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/loader"
	"vastview/prefs"
	raycast "vastview/render/volume"
)

// blob is an anisotropic volume (Z spacing 3, Y and X 1) with a bright
// ball off centre in a dim ramp.
func blob() *arraySource {
	return volume([3]int{12, 48, 64}, [3]float64{3, 1, 1}, func(z, y, x int) uint16 {
		dz, dy, dx := float64(z-5)*3, float64(y-20), float64(x-36)
		if dz*dz+dy*dy+dx*dx < 144 {
			return 3000
		}
		return uint16(10*x + 5*y + 20*z)
	})
}

// want3D renders what the 3-D view of camera c at w × h in mode md
// (window lo..hi, gray) shows, at rest, with package volume's renderer
// alone: level 0 (the only one the small volume has), the step its
// smallest spacing.
func want3D(t *testing.T, h *harness, c Camera, w, hh int, o raycast.Options) *image.RGBA {
	t.Helper()
	pyr := h.s.Data().Pyr
	m := pyr.Meta()
	p := c.Plane(m, w, hh)
	o.Step = levelStep(m, 0)
	var r raycast.Renderer
	defer r.Close()
	img := image.NewRGBA(image.Rect(0, 0, w, hh))
	events, stop := pyr.Subscribe()
	defer stop()
	for {
		if info := r.RenderRGBA(img, p, pyr, 0, o, nil); info.Complete {
			return img
		}
		r.Request(pyr, 1, 1)
		<-events
	}
}

// The 3-D view at rest shows what package volume renders for the
// camera's plane, in every mode; dragging turns it (frames at a reduced
// screen scale while the drag lasts) and the picture after the drag ends
// is the renderer's for the turned camera.
func TestView3DIsTheRenderersPicture(t *testing.T) {
	h := newHarness(t, Options{})
	h.open(blob(), "/data/blob.tif")
	h.s.SetWindow(0, 3000)
	h.s.SetLayout(View3D)
	if h.s.Layout() != View3D {
		t.Fatal("no 3-D view")
	}
	same := func(f *Frame, want *image.RGBA, what string) {
		t.Helper()
		bad := 0
		for i := range want.Pix {
			if f.Img.Pix[i] != want.Pix[i] {
				bad++
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d bytes differ from the renderer's picture", what, bad)
		}
	}
	rest := func(md raycast.Mode) *Frame {
		return h.waitFrame(func(f *Frame) bool {
			return f.Info.Complete && f.Vol != nil && f.Vol.Mode == md && f.Vol.Scale == 1
		})
	}
	f := rest(raycast.MIP)
	if f.Panel != "3d" || f.Img.Rect.Dx() != 400 || f.Img.Rect.Dy() != 300 {
		t.Fatalf("frame of panel %q, %v", f.Panel, f.Img.Rect)
	}
	same(f, want3D(t, h, Camera{}, 400, 300, raycast.Options{Mode: raycast.MIP, Window: [2]float64{0, 3000}}), "mip")
	for _, md := range []raycast.Mode{raycast.MinIP, raycast.Mean, raycast.Alpha, raycast.Iso} {
		h.s.CycleMode3D()
		f = rest(md)
		o := raycast.Options{Mode: md, Window: [2]float64{0, 3000}, Iso: 1500}
		same(f, want3D(t, h, Camera{}, 400, 300, o), md.String())
	}
	h.s.SetMode3D(raycast.MIP)
	rest(raycast.MIP)
	h.s.Drag(260, 150, 60, 0)
	// While the drag lasts the frames are not complete (at a reduced
	// screen scale unless a full one is drawn fast enough).
	f = h.waitFrame(func(f *Frame) bool { return f.Vol != nil && f.Vol.Args == nil })
	if f.Img.Rect.Dx() != 400 || f.Info.Complete {
		t.Errorf("a frame while moving is %v, complete %v", f.Img.Rect, f.Info.Complete)
	}
	h.s.DragEnd()
	f = rest(raycast.MIP)
	c := Camera{}.Arcball(200, 150, 260, 150, 400, 300)
	if got := h.s.Camera(); got != c {
		t.Fatalf("camera after the drag %+v, want %+v", got, c)
	}
	same(f, want3D(t, h, c, 400, 300, raycast.Options{Mode: raycast.MIP, Window: [2]float64{0, 3000}}), "turned")
}

// The camera and the 3-D view's settings are remembered per file, and the
// 3-D view is shown again when the file is; 0 resets the camera.
func TestView3DRememberedPerFile(t *testing.T) {
	p := prefs.New(&prefs.MapStore{})
	h := newHarness(t, Options{Prefs: p})
	h.open(blob(), "/data/a.tif")
	h.s.SetLayout(View3D)
	h.s.Drag(260, 150, 60, 10)
	h.s.DragEnd()
	h.s.Scroll(200, 150, 10)
	h.s.SetMode3D(raycast.Iso)
	h.s.SetIso3D(1234)
	h.s.SetClipBox([3]int{1, 2, 3}, [3]int{10, 40, 60})
	h.s.ToggleClipPlane()
	cam := h.s.Camera()
	if cam == (Camera{}) || cam.Zoom == 0 {
		t.Fatalf("the drag and the wheel left the camera %+v", cam)
	}
	h.open(blob(), "/data/b.tif")
	if h.s.Camera() != (Camera{}) || h.s.Mode3D() != raycast.MIP {
		t.Errorf("another file starts with camera %+v mode %v", h.s.Camera(), h.s.Mode3D())
	}
	h.open(blob(), "/data/a.tif")
	box, plane := h.s.Clip3D()
	iso, set := h.s.Iso3D()
	if got := h.s.Camera(); got != cam || h.s.Mode3D() != raycast.Iso || iso != 1234 || !set || !plane ||
		box != (raycast.Box{Lo: [3]int{1, 2, 3}, Hi: [3]int{10, 40, 60}}) || h.s.Layout() != View3D {
		t.Errorf("a.tif again: camera %+v (want %+v), mode %v, iso %v %v, clip %v %v, layout %v",
			got, cam, h.s.Mode3D(), iso, set, box, plane, h.s.Layout())
	}
	h.s.Rune('0')
	if h.s.Camera() != (Camera{}) {
		t.Errorf("0 left the camera %+v", h.s.Camera())
	}
	h.s.Rune('5')
	if h.s.Layout() != SingleView {
		t.Errorf("5 again: layout %v", h.s.Layout())
	}
	h.s.Rune('5')
	h.s.Rune('n') // after the isosurface: the maximum again
	h.s.Rune('n')
	if h.s.Layout() != View3D || h.s.Mode3D() != raycast.MinIP {
		t.Errorf("5, N, N: layout %v, mode %v", h.s.Layout(), h.s.Mode3D())
	}
}

// In the four panels the fourth shows the 3-D view (the renderer's
// picture at the panel's size, kept as the planes step), and
// a drag there turns the volume.
func TestFourPanelsShow3D(t *testing.T) {
	h := newHarness(t, Options{})
	h.open(blob(), "/data/blob.tif")
	h.s.SetWindow(0, 3000)
	h.s.Resize(402, 302) // panels of 200 × 150
	h.s.SetLayout(FourPanels)
	f := h.waitFrame(func(f *Frame) bool {
		return f.Panel == "xy" && f.Info.Complete && f.Img.Rect.Dx() == 402 && f.Vol != nil && f.Vol.Complete
	})
	want := want3D(t, h, Camera{}, 200, 150, raycast.Options{Mode: raycast.MIP, Window: [2]float64{0, 3000}})
	r := panelRects(402, 302)[panelProj]
	check := func(f *Frame, want *image.RGBA, what string) {
		t.Helper()
		bad := 0
		for y := 0; y < 120; y++ { // above the panel's name
			for x := 0; x < 200; x++ {
				o, w := f.Img.PixOffset(r.Min.X+x, r.Min.Y+y), want.PixOffset(x, y)
				if [3]uint8(f.Img.Pix[o:o+3]) != [3]uint8(want.Pix[w:w+3]) {
					bad++
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d pixels of the fourth panel differ from the renderer's picture", what, bad)
		}
	}
	check(f, want, "at first")
	h.s.Press(KeyPeriod) // a step in the XY panel: the 3-D panel is kept
	f = h.waitFrame(func(f *Frame) bool { return f.Info.Complete && f.View.Z == 7 && f.Vol.Complete })
	check(f, want, "after a step")
	x, y := float64(r.Min.X+100), float64(r.Min.Y+75)
	h.s.Drag(x+30, y, 30, 0)
	h.s.DragEnd()
	c := Camera{}.Arcball(100, 75, 130, 75, 200, 150)
	if got := h.s.Camera(); got != c {
		t.Fatalf("a drag over the fourth panel left the camera %+v, want %+v", got, c)
	}
	f = h.waitFrame(func(f *Frame) bool { return f.Info.Complete && f.Vol != nil && f.Vol.Complete })
	check(f, want3D(t, h, c, 200, 150, raycast.Options{Mode: raycast.MIP, Window: [2]float64{0, 3000}}), "turned")
}

// Over the 3-D view the pointer reads out nothing (no one sample lies
// under it), and the status names the 3-D mode, not the 2-D view's zoom.
func TestView3DHoverAndStatus(t *testing.T) {
	h := newHarness(t, Options{})
	h.open(blob(), "/data/blob.tif")
	h.s.Hover(200, 150, true)
	if h.s.HoverText() == "" {
		t.Fatal("no read-out over the plane")
	}
	h.s.SetLayout(View3D)
	h.waitFrame(func(f *Frame) bool { return f.Info.Complete && f.Vol != nil })
	if got := h.s.HoverText(); got != "" {
		t.Errorf("over the 3-D view the read-out is %q", got)
	}
	if st := h.s.Status().Text; !strings.HasPrefix(st, "3-D mip") || strings.Contains(st, "zoom") {
		t.Errorf("the status over the 3-D view: %q", st)
	}
}

// The screen scale of moving frames follows their drawing time: coarser
// after a frame over the budget, finer when four times the pixels would
// fit in it; a first picture at rest is drawn at that scale, then at
// full scale.
func TestView3DScreenScales(t *testing.T) {
	var o view3dDraw
	o.scale = 1 // 1/2
	o.adapt(2 * movingBudget)
	if screenScales[o.scale] != 0.25 {
		t.Errorf("after a slow frame: scale %v", screenScales[o.scale])
	}
	o.adapt(movingBudget / 8)
	if screenScales[o.scale] != 0.5 {
		t.Errorf("after a fast frame: scale %v", screenScales[o.scale])
	}
	o.adapt(movingBudget / 2)
	if screenScales[o.scale] != 0.5 {
		t.Errorf("after a frame that fits, not four times over: scale %v", screenScales[o.scale])
	}
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	copy(img.Pix, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	big := image.NewRGBA(image.Rect(0, 0, 4, 4))
	upscale(big, img)
	if o := big.PixOffset(3, 1); big.Pix[o] != 5 || big.Pix[big.PixOffset(0, 2)] != 9 || big.Pix[big.PixOffset(1, 1)] != 1 {
		t.Errorf("upscaled %v", big.Pix)
	}
}

// A movie of the 3-D view turns the camera a whole turn about the
// screen's vertical axis, 2° a frame, each frame the view's picture at
// rest for that camera.
func TestView3DMovieOrbits(t *testing.T) {
	h := newHarness(t, Options{})
	h.open(blob(), "/data/blob.tif")
	h.s.SetWindow(0, 3000)
	h.s.SetLayout(View3D)
	h.waitFrame(func(f *Frame) bool { return f.Info.Complete && f.Vol != nil })
	dir := t.TempDir()
	ended := make(chan *Export, 1)
	e, err := h.s.ExportMovie(filepath.Join(dir, "o.png"), MovieOptions{From: 45, To: 45}, func(e *Export) { ended <- e })
	if err != nil {
		t.Fatal(err)
	}
	<-ended
	if err := e.Err(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "o_a0045.png"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	want := want3D(t, h, Camera{}.Orbit(90), 400, 300, raycast.Options{Mode: raycast.MIP, Window: [2]float64{0, 3000}})
	bad := 0
	for y := 0; y < 300; y++ {
		for x := 0; x < 400; x++ {
			r, g, bb, _ := img.At(x, y).RGBA()
			o := want.PixOffset(x, y)
			if [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(bb >> 8)} != [3]uint8(want.Pix[o:o+3]) {
				bad++
			}
		}
	}
	if bad > 0 {
		t.Errorf("frame 45 (90°): %d pixels differ from the 3-D view turned 90°", bad)
	}
}

// The clipping box and the 2-D view's plane clip the 3-D view as the
// renderer clips: the box's ranges of samples, the half beyond the plane.
func TestView3DClips(t *testing.T) {
	h := newHarness(t, Options{})
	h.open(blob(), "/data/blob.tif")
	h.s.SetWindow(0, 3000)
	h.s.SetLayout(View3D)
	h.waitFrame(func(f *Frame) bool { return f.Info.Complete && f.Vol != nil })
	same := func(want *image.RGBA, what string) {
		t.Helper()
		f := h.waitFrame(func(f *Frame) bool { return f.Info.Complete && f.Vol != nil && f.Vol.Scale == 1 })
		bad := 0
		for i := range want.Pix {
			if f.Img.Pix[i] != want.Pix[i] {
				bad++
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d bytes differ from the renderer's picture", what, bad)
		}
	}
	h.s.SetClipBox([3]int{2, 10, 30}, [3]int{9, 40, 60})
	box := raycast.Box{Lo: [3]int{2, 10, 30}, Hi: [3]int{9, 40, 60}}
	same(want3D(t, h, Camera{}, 400, 300, raycast.Options{Mode: raycast.MIP, Window: [2]float64{0, 3000}, Clip: box}), "box")
	h.s.SetClipBox([3]int{}, [3]int{})
	h.s.SetAt('Z', 7)
	h.s.ToggleClipPlane()
	cp := &raycast.ClipPlane{Point: [3]float64{21, 23.5, 31.5}, Normal: [3]float64{1, 0, 0}}
	clipped := want3D(t, h, Camera{}, 400, 300, raycast.Options{Mode: raycast.MIP, Window: [2]float64{0, 3000}, ClipPlane: cp})
	if bytes.Equal(clipped.Pix, want3D(t, h, Camera{}, 400, 300, raycast.Options{Mode: raycast.MIP, Window: [2]float64{0, 3000}}).Pix) {
		t.Fatal("the plane at z 7 clips nothing of the test volume")
	}
	same(clipped, "plane z 7")
}

// TestView3DStartsAsTheAxialPlaneIsShown: a volume stored RAS (X toward
// the patient's right, Y anterior) is shown radiologically, its right
// at the screen's left and anterior up; the 3-D view starts looking at
// it the same way (and so after 0), so a marker at the left anterior
// corner is top right in both.
func TestView3DStartsAsTheAxialPlaneIsShown(t *testing.T) {
	src := volume([3]int{8, 40, 60}, [3]float64{1, 1, 1}, func(z, y, x int) uint16 {
		if x < 10 && y >= 30 {
			return 3000
		}
		return 100
	})
	src.meta.Anatomy = &loader.Anatomy{Affine: [3][4]float64{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}, Space: loader.SpaceRAS}
	h := newHarness(t, Options{})
	h.open(src, "/data/head.nii")
	h.s.SetWindow(0, 3000)
	// The quarter of the picture the bright marker is in.
	quarter := func(f *Frame) (right, top bool) {
		var sx, sy, n int
		b := f.Img.Rect
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				if f.Img.Pix[f.Img.PixOffset(x, y)] > 200 {
					sx, sy, n = sx+x, sy+y, n+1
				}
			}
		}
		if n == 0 {
			t.Fatal("no marker in the picture")
		}
		return sx/n > b.Dx()/2, sy/n < b.Dy()/2
	}
	plane := h.waitFrame(func(f *Frame) bool { return f.Info.Complete && f.View.Lo == 0 && f.View.Hi == 3000 })
	if r, top := quarter(plane); !r || !top {
		t.Fatalf("the axial plane shows the marker right %v, top %v", r, top)
	}
	for _, step := range []string{"open", "reset"} {
		if step == "reset" {
			h.s.Drag(200, 150, 80, 30)
			h.s.DragEnd()
			h.s.ResetCamera()
		} else {
			h.s.SetLayout(View3D)
		}
		f := h.waitFrame(func(f *Frame) bool { return f.Info.Complete && f.Vol != nil && f.Vol.Scale == 1 })
		if r, top := quarter(f); !r || !top {
			t.Errorf("after %s the 3-D view shows the marker right %v, top %v; the axial plane: right, top", step, r, top)
		}
	}
}
