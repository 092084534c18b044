package render

import (
	"image"
	"image/color"
	"testing"

	"vastview/loader"
)

func TestScaleBarIsARoundLength(t *testing.T) {
	for _, c := range []struct {
		spacing float64
		unit    string
		zoom    float64
		width   int
		px      int
		label   string
	}{
		{0.5, "micrometer", 1, 800, 100, "50 µm"},  // 80 µm at most
		{2, "nanometer", 4, 400, 40, "20 nm"},      // 0.5 nm a pixel, 40 at most
		{1, "millimeter", 0.01, 1000, 200, "20 m"}, // 100 mm a pixel
		{0.3, "micrometer", 3, 600, 100, "10 µm"},  // 0.1 µm a pixel, 12 at most
		{1, "meter", 1, 500, 100, "100 m"},
	} {
		m := loader.NewMeta("mem", "YX", []int{100, 100}, loader.Uint8, []int{100, 100}, []float64{c.spacing, c.spacing}, []string{c.unit, c.unit})
		px, label, ok := ScaleBar(m, View{Zoom: c.zoom, Width: c.width, Height: 300})
		if !ok || px != c.px || label != c.label {
			t.Errorf("%g %s at zoom %g, %d wide: %d px %q (%v), want %d px %q", c.spacing, c.unit, c.zoom, c.width, px, label, ok, c.px, c.label)
		}
	}
	m := loader.NewMeta("mem", "YX", []int{100, 100}, loader.Uint8, []int{100, 100}, nil, nil)
	if _, _, ok := ScaleBar(m, View{Zoom: 1, Width: 400, Height: 300}); ok || PixelSize(m, View{Zoom: 1}) != "" {
		t.Error("a scale for data without physical units")
	}
	for _, c := range []struct {
		spacing float64
		unit    string
		zoom    float64
		want    string
	}{{0.4, "micrometer", 1.02, "0.392 µm/px"}, {2, "nanometer", 4, "0.5 nm/px"}, {5, "micrometer", 0.5, "10 µm/px"}, {1, "millimeter", 0.001, "1 m/px"}} {
		m := loader.NewMeta("mem", "YX", []int{100, 100}, loader.Uint8, []int{100, 100}, []float64{c.spacing, c.spacing}, []string{c.unit, c.unit})
		if got := PixelSize(m, View{Zoom: c.zoom, Width: 10, Height: 10}); got != c.want {
			t.Errorf("%g %s at zoom %g: %q, want %q", c.spacing, c.unit, c.zoom, got, c.want)
		}
	}
}

func TestScaleBarIsDrawnBottomRight(t *testing.T) {
	m := loader.NewMeta("mem", "YX", []int{300, 400}, loader.Uint8, []int{300, 400}, []float64{0.5, 0.5}, []string{"micrometer", "micrometer"})
	v := View{Zoom: 1, Center: Point{Col: 200, Row: 150}, Width: 400, Height: 300}
	img := image.NewRGBA(image.Rect(0, 0, 400, 300))
	for i := range img.Pix {
		img.Pix[i] = 100
	}
	DrawScaleBar(img, m, v) // 40 µm at most: 20 µm, 40 px
	white, changed := 0, 0
	for y := 0; y < 300; y++ {
		for x := 0; x < 400; x++ {
			p := img.RGBAAt(x, y)
			if p.R == 100 && p.A == 100 {
				continue
			}
			changed++
			if x < 300 || y < 250 {
				t.Fatalf("the scale bar reaches (%d,%d)", x, y)
			}
			if p.R > 180 {
				white++ // the bar's, and the label's ink
			}
		}
	}
	// The bar: 40×3 white pixels ending 8 from the right and the bottom.
	for x := 400 - 8 - 40; x < 400-8; x++ {
		for y := 300 - 8 - 3; y < 300-8; y++ {
			if p := img.RGBAAt(x, y); p.R != 255 || p.G != 255 || p.B != 255 {
				t.Fatalf("bar pixel (%d,%d) = %v", x, y, p)
			}
		}
	}
	if white < 40*3+20 {
		t.Errorf("only %d light pixels: no label over the bar", white)
	}
	// The label is written in an outline font, anti-aliased: its mask
	// has partly covered pixels, and the µ is a glyph of its own.
	mask, partial := textMask("20 µm", 11), 0
	for _, a := range mask.Pix {
		if a > 0 && a < 255 {
			partial++
		}
	}
	if partial == 0 || mask.Rect.Dy() < 11 {
		t.Errorf("label mask %v with %d partly covered pixels", mask.Rect, partial)
	}
}

// TestOverlaysAreOnTheImage draws the scale bar and a stamp over a view
// that shows its 100×100 plane in the middle of a 400×300 viewport: both
// lie on the image (x 150 to 250, y 100 to 200), none on the margins.
func TestOverlaysAreOnTheImage(t *testing.T) {
	m := loader.NewMeta("mem", "YX", []int{100, 100}, loader.Uint8, []int{100, 100}, []float64{0.5, 0.5}, []string{"micrometer", "micrometer"})
	v := View{Zoom: 1, Center: Point{Col: 50, Row: 50}, Width: 400, Height: 300}
	if r := ImageRect(m, v); r != image.Rect(150, 100, 250, 200) {
		t.Fatalf("image rect %v", r)
	}
	img := image.NewRGBA(image.Rect(0, 0, 400, 300))
	DrawScaleBar(img, m, v)
	DrawStamp(img, m, v, "t 3")
	var got image.Rectangle
	for y := 0; y < 300; y++ {
		for x := 0; x < 400; x++ {
			if img.RGBAAt(x, y) != (color.RGBA{}) {
				got = got.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	if got.Empty() || !got.In(image.Rect(150, 100, 250, 200)) {
		t.Errorf("the overlays cover %v, not within the image", got)
	}
	// The bar ends 8 pixels inside the image's bottom right corner.
	if p := img.RGBAAt(250-8-1, 200-8-1); p.R != 255 {
		t.Errorf("no bar at the image's corner: %v", p)
	}
}
