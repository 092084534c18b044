package render

import (
	"image"
	"testing"

	"vastview/levels"
	"vastview/loader"
)

// TestRenderAllocatesNothing: once a view's chunks are in memory, drawing
// it again, panned within the same chunks, with another window or another
// colormap, allocates nothing.
func TestRenderAllocatesNothing(t *testing.T) {
	for _, dt := range []loader.DType{loader.Uint16, loader.Uint8, loader.Float32} {
		m := loader.NewMeta("mem", "ZYX", goldenShape, dt, []int{4, 128, 128}, []float64{4, 1, 1}, nil)
		src := &memSource{meta: m, arrays: [][]byte{makeArray(goldenShape, dt, goldenValue)}}
		p := openPyramid(t, src, levels.Options{})
		base := View{Orientation: XY, Z: 5, Zoom: 1.5, Center: Point{300, 250}, Lo: 800, Hi: 4500,
			Colormap: "gray", Width: 200, Height: 150}
		panned := base
		panned.Center.Col += 0.4
		windowed := base
		windowed.Lo, windowed.Hi = 1000, 3000
		coloured := base
		coloured.Colormap = "magma"
		var r Renderer
		views := []View{base, panned, windowed, coloured}
		for _, v := range views {
			renderComplete(t, &r, v, p, 1)
		}
		i := 0
		allocs := testing.AllocsPerRun(100, func() {
			if _, info := r.Render(views[i%len(views)], p, 1); !info.Complete {
				t.Fatal("incomplete")
			}
			i++
		})
		if allocs != 0 {
			t.Errorf("%s: %g allocations per frame, want 0", dt, allocs)
		}
	}
}

// TestRenderAlternatesBuffers: a frame returned is not drawn over by the
// next two Render calls.
func TestRenderAlternatesBuffers(t *testing.T) {
	m := loader.NewMeta("mem", "YX", []int{8, 8}, loader.Uint8, []int{8, 8}, nil, nil)
	src := &memSource{meta: m, arrays: [][]byte{makeArray([]int{8, 8}, loader.Uint8, hashByte)}}
	f := newFake(m)
	f.load(t, src, 0)
	var r Renderer
	v := View{Zoom: 1, Center: Point{4, 4}, Lo: 0, Hi: 255, Width: 8, Height: 8}
	first, _ := r.Render(v, f, 1)
	keep := append([]byte(nil), first.Pix...)
	seen := map[*image.RGBA]bool{first: true}
	for i, cm := range []string{"fire", "magma"} {
		v.Colormap = cm
		img, _ := r.Render(v, f, 1)
		if seen[img] {
			t.Fatalf("call %d returned a buffer returned by one of the two calls before", i+2)
		}
		seen[img] = true
	}
	if string(first.Pix) != string(keep) {
		t.Error("the first frame changed during the next two calls")
	}
}
