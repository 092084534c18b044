package render

import (
	"testing"

	"vastview/levels"
	"vastview/loader"
)

// TestRGBViewShowsColourPixels checks the RGB colormap: a colour image's
// three samples make each pixel's red, green and blue, at full resolution
// and from a computed level alike, with no allocation per frame.
func TestRGBViewShowsColourPixels(t *testing.T) {
	shape := []int{3, 300, 400} // C, Y, X; chunks of one plane of one sample
	val := func(p []int) float64 { return float64((p[0]*97 + p[1]*3 + p[2]*5) % 256) }
	data := makeArray(shape, loader.Uint8, val)
	m := loader.NewMeta("mem", "CYX", shape, loader.Uint8, []int{1, 300, 400}, nil, nil)
	m.RGB = true
	p := openPyramid(t, &memSource{meta: m, arrays: [][]byte{data}}, levels.Options{})
	var r Renderer
	v := View{Colormap: RGB, Zoom: 1, Center: Point{200, 150}, Lo: 0, Hi: 255, Width: 120, Height: 80}
	img, info := renderComplete(t, &r, v, p, 1)
	if info.Level != 0 {
		t.Fatalf("drawn at level %d", info.Level)
	}
	for y := 0; y < 80; y++ {
		for x := 0; x < 120; x++ {
			row, col := 110+y, 140+x
			want := [4]uint8{uint8(val([]int{0, row, col})), uint8(val([]int{1, row, col})), uint8(val([]int{2, row, col})), 255}
			if got := pixel(img, x, y); got != want {
				t.Fatalf("pixel (%d,%d) = %v, want %v", x, y, got, want)
			}
		}
	}
	// Zoomed out: level 1, each sample the mean of its own 2×2 block.
	v.Zoom, v.Width, v.Height = 0.5, 200, 150
	img, info = renderComplete(t, &r, v, p, 2)
	if info.Level != 1 {
		t.Fatalf("zoomed out: level %d", info.Level)
	}
	mean := func(c, y, x int) uint8 {
		s := 0.0
		for _, d := range [][2]int{{0, 0}, {0, 1}, {1, 0}, {1, 1}} {
			s += val([]int{c, 2*y + d[0], 2*x + d[1]})
		}
		return uint8(int(s+2) / 4)
	}
	for _, q := range [][2]int{{0, 0}, {77, 31}, {149, 199}} {
		y, x := q[0], q[1]
		want := [4]uint8{mean(0, y, x), mean(1, y, x), mean(2, y, x), 255}
		if got := pixel(img, x, y); got != want {
			t.Errorf("level-1 pixel (%d,%d) = %v, want %v", x, y, got, want)
		}
	}
	if n := testing.AllocsPerRun(20, func() { r.Render(v, p, 2) }); n != 0 {
		t.Errorf("%v allocations per RGB frame", n)
	}
}
