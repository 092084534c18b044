package session

import (
	"math"
	"testing"

	raycast "vastview/render/volume"
)

// The clip box's handles: shown over the 3-D view, the box's twelve
// edges and a handle on each face; a drag from the handle of the high X
// face moves that face by the pointer's motion along X on screen, in
// whole samples, and the picture is the renderer's of the box; a drag
// elsewhere turns the volume and leaves the box.
func TestView3DClipBoxHandles(t *testing.T) {
	h := newHarness(t, Options{})
	h.open(blob(), "/data/blob.tif")
	h.s.SetWindow(0, 3000)
	h.s.SetLayout(View3D)
	h.waitFrame(func(f *Frame) bool { return f.Info.Complete && f.Vol != nil })
	if marks := h.s.Overlay(); len(marks) != 0 {
		t.Fatalf("marks %v over the 3-D view before the handles are shown", marks)
	}
	h.s.ToggleClipHandles()
	if !h.s.ClipHandles() {
		t.Fatal("handles not shown")
	}
	marks := h.s.Overlay()
	if len(marks) != 1 || len(marks[0].Segments) != 12 || len(marks[0].Handles) != 6 {
		t.Fatalf("marks %+v: want the box's 12 edges and 6 handles", marks)
	}
	m := h.s.Data().Pyr.Meta()
	p := h.s.Camera().Plane(m, 400, 300)
	// The high X face (samples up to 63: the boundary at 63.5) in the
	// middle of Z and Y.
	hx := toScreen(p, [3]float64{5.5 * 3, 23.5, 63.5})
	found := false
	for _, q := range marks[0].Handles {
		found = found || math.Hypot(q[0]-hx[0], q[1]-hx[1]) < 1e-6
	}
	if !found {
		t.Fatalf("no handle at the high X face %v: %v", hx, marks[0].Handles)
	}
	// Drag it 50 pixels toward low X on screen (U is +X or −X).
	dir := math.Copysign(1, p.U[2])
	for i := 1; i <= 5; i++ {
		h.s.Drag(hx[0]-dir*10*float64(i)+2, hx[1]+1, -dir*10, 0)
	}
	h.s.DragEnd()
	want := raycast.Box{Hi: [3]int{12, 48, 64 - int(math.Round(50*p.Pixel))}}
	if box, _ := h.s.Clip3D(); box != want {
		t.Fatalf("box after the drag %+v, want %+v (pixel %v)", box, want, p.Pixel)
	}
	if h.s.Camera() != (Camera{}) {
		t.Errorf("the camera turned while a face was dragged: %+v", h.s.Camera())
	}
	f := h.waitFrame(func(f *Frame) bool { return f.Info.Complete && f.Vol != nil && f.Vol.Scale == 1 })
	ref := want3D(t, h, Camera{}, 400, 300, raycast.Options{Mode: raycast.MIP, Window: [2]float64{0, 3000}, Clip: want})
	for i := range ref.Pix {
		if f.Img.Pix[i] != ref.Pix[i] {
			t.Fatalf("the picture after the drag differs from the renderer's of box %+v at byte %d", want, i)
		}
	}
	// A drag away from the handles turns the volume.
	h.s.Drag(40, 40, 5, 3)
	h.s.DragEnd()
	if box, _ := h.s.Clip3D(); box != want || h.s.Camera() == (Camera{}) {
		t.Errorf("a drag off the handles: box %+v, camera %+v; want the box kept and the volume turned", box, h.s.Camera())
	}
	h.s.ToggleClipHandles()
	if marks := h.s.Overlay(); len(marks) != 0 {
		t.Errorf("marks %v after the handles are hidden", marks)
	}
}
