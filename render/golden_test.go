package render

import (
	"flag"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"vastview/levels"
	"vastview/loader"
)

var update = flag.Bool("update", false, "rewrite the golden images in testdata/golden")

// The golden volume: 24 planes 4 units apart of 600×520 samples, with a
// gradient, a checkerboard whose phase moves every 6 planes and a ring
// whose centre moves along X with Z, so that every plane orientation is
// recognisable.
var goldenShape = []int{24, 600, 520}

func goldenValue(pos []int) float64 {
	z, y, x := pos[0], pos[1], pos[2]
	v := 1000 + 30*z + (x+2*y)/2
	if (x/40+y/40+z/6)%2 == 1 {
		v += 1000
	}
	dx, dy := x-(200+5*z), y-300
	if d := dx*dx + dy*dy; d > 140*140 && d < 155*155 {
		v += 1500
	}
	return float64(v)
}

// goldenLabel is a label image of 40×40 blocks, renumbered every 6 planes.
func goldenLabel(pos []int) float64 {
	z, y, x := pos[0], pos[1], pos[2]
	return float64(1 + x/40 + 14*(y/40) + 300*(z/6))
}

// goldenPyramid is a pyramid of three stored levels (halved in Y and X),
// so that the frames do not depend on how levels plans computed ones.
// Label blocks are aligned with the binning, so that the mean is the mode.
func goldenPyramid(t testing.TB, f func([]int) float64, label bool) *levels.Pyramid {
	spacing := []float64{4, 1, 1}
	m := loader.NewMeta("mem", "ZYX", goldenShape, loader.Uint16, []int{4, 128, 128},
		spacing, []string{"micrometer", "micrometer", "micrometer"})
	m.Label = label
	data := bytesU16(makeArray(goldenShape, loader.Uint16, f))
	lv, arrays := binLevels(goldenShape, []int{4, 128, 128}, spacing, data, 160)
	if len(lv) != 3 {
		t.Fatalf("%d golden levels, want 3", len(lv))
	}
	m.Levels = lv
	return openPyramid(t, &memSource{meta: m, arrays: arrays}, levels.Options{})
}

// TestGolden renders each colormap, and each plane orientation at two
// zooms, of a deterministic pyramid, and compares the frames with
// testdata/golden (go test -run TestGolden -update rewrites them).
func TestGolden(t *testing.T) {
	const w, h = 160, 120
	vol := goldenPyramid(t, goldenValue, false)
	lab := goldenPyramid(t, goldenLabel, true)
	m := vol.Meta()
	base := func(o Orientation) View {
		v := View{Orientation: o, Z: 12, Y: 310, X: 260, Lo: 800, Hi: 4500, Colormap: "gray", Width: w, Height: h}
		v.Zoom, v.Center = Fit(m, v)
		return v
	}
	var r Renderer
	for _, name := range ColormapNames() {
		v, p := base(XY), vol
		if name == "glasbey" {
			p = lab
		}
		v.Colormap = name
		img, info := renderComplete(t, &r, v, p, 1)
		if info.Level != 2 {
			t.Errorf("colormap %s at fit: level %d, want 2", name, info.Level)
		}
		compareGolden(t, "colormap-"+name, img)
	}
	for _, o := range []Orientation{XY, XZ, YZ} {
		v := base(o)
		img, _ := renderComplete(t, &r, v, vol, 1)
		compareGolden(t, o.String()+"-fit", img)
		v = v.ZoomAbout(m, w*0.3, h*0.6, 5)
		img, info := renderComplete(t, &r, v, vol, 1)
		if info.Level != 0 {
			t.Errorf("%s zoomed in: level %d, want 0", o, info.Level)
		}
		compareGolden(t, o.String()+"-zoom", img)
	}
}

func compareGolden(t *testing.T, name string, img *image.RGBA) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".png")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		writePNG(t, path, img)
		return
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestGolden -update to create it)", err)
	}
	defer f.Close()
	want, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if want.Bounds() != img.Bounds() {
		t.Fatalf("%s: size %v, golden %v", name, img.Bounds(), want.Bounds())
	}
	bad := 0
	for y := 0; y < img.Rect.Dy(); y++ {
		for x := 0; x < img.Rect.Dx(); x++ {
			r, g, b, a := want.At(x, y).RGBA()
			if pixel(img, x, y) != [4]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)} {
				bad++
			}
		}
	}
	if bad > 0 {
		got := filepath.Join(t.TempDir(), name+".png")
		writePNG(t, got, img)
		t.Errorf("%s: %d pixels differ from %s; this frame is in %s", name, bad, path, got)
	}
}

func writePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
