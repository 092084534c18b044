package session

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"vastview/levels"
	"vastview/loader"
	"vastview/render"
)

// TestTheViewShowsProjections draws the max, min and mean projections
// along Z, over every plane and over a slab about the plane shown, and
// along X in the YZ view: each complete frame equals the projection that
// levels.ProjectPlane computes, drawn through the same window.
func TestTheViewShowsProjections(t *testing.T) {
	src := volume([3]int{9, 40, 56}, [3]float64{1, 1, 1}, func(z, y, x int) uint16 {
		return uint16((z*37+y*11+x*5)%97*30 + z)
	})
	h := newHarness(t, Options{})
	h.open(src, "/data/vol.tif")
	h.s.SetWindow(0, 3000)
	for _, c := range []struct {
		op    loader.Projection
		thick int
		o     render.Orientation
		at    int
		a, b  int
	}{
		{loader.ProjectMax, 0, render.XY, 4, 0, 8},
		{loader.ProjectMin, 3, render.XY, 6, 5, 7},
		{loader.ProjectMean, 0, render.XY, 4, 0, 8},
		{loader.ProjectMax, 5, render.YZ, 2, 0, 4},
	} {
		h.s.SetOrientation(c.o)
		cols, rows := render.PlaneSize(h.s.Meta(), c.o)
		h.s.Resize(cols, rows) // one pixel a sample
		h.s.Fit()
		_, _, normal := c.o.Axes()
		h.s.SetAt(normal, c.at)
		h.s.SetProjection(c.op, c.thick)
		h.s.SetWindow(0, 3000)
		f := h.waitFrame(func(f *Frame) bool {
			return f.Info.Complete && f.View.Orientation == c.o && f.View.At(normal) == c.at && f.View.Lo == 0 && f.View.Hi == 3000 &&
				f.Projection == c.op && f.Slab == [2]int{c.a, c.b}
		})
		f.Img = copyImage(f.Img)
		if got := h.s.SlabLabel(); c.thick > 0 && got == "" {
			t.Errorf("no slab label")
		}
		buf, dt, w, hh, err := levels.ProjectPlane(context.Background(), h.s.Data().Pyr, 0, loader.Plane{Orientation: c.o, At: map[byte]int{}}, c.op, c.a, c.b)
		if err != nil {
			t.Fatal(err)
		}
		h.s.Hover(10.5, 7.5, true) // one pixel a sample: sample (10, 7) of the projection
		if got, val := h.s.HoverText(), dt.At(buf, 7*w+10); !strings.Contains(got, fmt.Sprintf("   %s %.6g", c.op, val)) {
			t.Errorf("hover over the %v projection says %q, want %s %.6g", c.op, got, c.op, val)
		}
		want := render.Plane(buf, dt, w, hh, 0, 3000, render.ColormapOrGray("gray"))
		if want.Rect != f.Img.Rect {
			t.Fatalf("frame %v, projection %v", f.Img.Rect, want.Rect)
		}
		if d := diffCount(f.Img.Pix, want.Pix); d > 0 {
			t.Errorf("%v over %d:%d in %v: %d bytes differ from the projection: %v vs %v", c.op, c.a, c.b, c.o, d, f.Img.Pix[:12], want.Pix[:12])
		}
	}
}

// diffCount counts the bytes that differ.
func diffCount(a, b []byte) int {
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}
