package sequence

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
	_ "vastview/loader/tiff"
)

// picturesScript writes pictures with numpy and Pillow: argv is the
// folder, the width, the height, then name=mode pairs; each file NAME gets
// NAME.bin, the samples the picture shows (interleaved, little-endian):
// without alpha, palette indices looked up, the 0/1 of a 1-bit image and
// of a 1-bit PNG whose palette is black and white (P1).
const picturesScript = `
import sys, numpy as np
from PIL import Image
out, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(7)
pal = [(37 * i) % 256 for i in range(3 * 16)]
grays = [v for i in range(16) for v in (i * 16 + 3,) * 3]
for arg in sys.argv[4:]:
    name, mode = arg.split("=")
    if mode == "1":
        a = rng.integers(0, 2, (h, w), dtype=np.uint8)
        im, show = Image.fromarray(a.astype(bool)), a
    elif mode == "L":
        a = rng.integers(0, 256, (h, w), dtype=np.uint8)
        im, show = Image.fromarray(a, "L"), a
    elif mode == "I;16":
        a = rng.integers(0, 65536, (h, w), dtype=np.uint16)
        im, show = Image.fromarray(a), a
    elif mode in ("LA", "RGB", "RGBA"):
        a = rng.integers(0, 256, (h, w, len(mode)), dtype=np.uint8)
        im = Image.fromarray(a, mode)
        show = a[..., 0] if mode == "LA" else a[..., :3]
    elif mode in ("P", "Pgray"):
        a = rng.integers(0, 16, (h, w), dtype=np.uint8)
        p = pal if mode == "P" else grays
        im = Image.fromarray(a, "L").convert("P")
        im.putpalette(p)
        table = np.array(p, np.uint8).reshape(-1, 3)
        show = table[a] if mode == "P" else table[a][..., 0]
    elif mode == "P1":
        a = rng.integers(0, 2, (h, w), dtype=np.uint8)
        im, show = Image.fromarray(a, "P"), a
        im.putpalette([0, 0, 0, 255, 255, 255])
    im.save(out + "/" + name, **({"bits": 1} if mode == "P1" else {}))
    show.astype(show.dtype.newbyteorder("<")).tofile(out + "/" + name + ".bin")
`

// TestPictureNumpy opens single pictures whose samples numpy chose, in
// every format Pillow writes them, and compares every sample.
func TestPictureNumpy(t *testing.T) {
	testtool.RequirePython(t, "numpy", "PIL")
	cases := []struct {
		name, mode string
		c          int
		dt         loader.DType
	}{
		{"gray.png", "L", 1, loader.Uint8},
		{"gray16.png", "I;16", 1, loader.Uint16},
		{"mask.png", "1", 1, loader.Uint8},
		{"graya.png", "LA", 1, loader.Uint8},
		{"rgb.png", "RGB", 3, loader.Uint8},
		{"rgba.png", "RGBA", 3, loader.Uint8},
		{"palette.png", "P", 3, loader.Uint8},
		{"graypalette.png", "Pgray", 1, loader.Uint8},
		{"maskpalette.png", "P1", 1, loader.Uint8},
		{"mask.bmp", "1", 1, loader.Uint8},
		{"gray.bmp", "L", 1, loader.Uint8},
		{"palette.bmp", "P", 3, loader.Uint8},
		{"graypalette.bmp", "Pgray", 1, loader.Uint8},
		{"rgb.bmp", "RGB", 3, loader.Uint8},
		{"rgba.bmp", "RGBA", 3, loader.Uint8},
		{"gray.gif", "L", 1, loader.Uint8},
		{"palette.gif", "P", 3, loader.Uint8},
		{"graypalette.gif", "Pgray", 1, loader.Uint8},
	}
	const w, h = 29, 17
	dir := t.TempDir()
	args := []string{dir, fmt.Sprint(w), fmt.Sprint(h)}
	for _, tc := range cases {
		args = append(args, tc.name+"="+tc.mode)
	}
	testtool.RunPython(t, picturesScript, args...)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			m, got := readAll(t, p)
			axes, shape := "YX", []int{h, w}
			if tc.c == 3 {
				axes, shape = "CYX", []int{3, h, w}
			}
			format := strings.TrimPrefix(filepath.Ext(tc.name), ".")
			checkFormat(t, m, format, axes, shape, tc.dt)
			want, err := os.ReadFile(p + ".bin")
			if err != nil {
				t.Fatal(err)
			}
			if d := firstDiff(got, planar(want, tc.c, w, h, tc.dt.Size())); d != "" {
				t.Fatal(d)
			}
			if m.Palette != nil {
				t.Errorf("palette %v", m.Palette)
			}
		})
	}
}

// TestPictureMagick opens single pictures ImageMagick wrote and compares
// every sample with ImageMagick's reading of the file; gray samples of
// fewer than 8 bits keep their stored values.
func TestPictureMagick(t *testing.T) {
	plasma := []string{"-size", "31x23", "-seed", "4", "plasma:"}
	cases := []struct {
		name     string
		args     []string // after the plasma picture; the file name is last
		identify string   // identify "%z %[channels]"
		raw      string   // ImageMagick raw format of the reference
		depth    int      // bits of the reference's samples, or of the stored values
		dt       loader.DType
	}{
		{"gray16.png", []string{"-colorspace", "Gray", "-depth", "16", "-define", "png:color-type=0", "PNG:"}, "16 gray", "gray", 16, loader.Uint16},
		{"graya16.png", []string{"-colorspace", "Gray", "-depth", "16", "-alpha", "set", "-channel", "A", "-fx", "i/31", "+channel", "-define", "png:color-type=4", "PNG:"}, "16 graya", "gray", 16, loader.Uint16},
		{"rgb16.png", []string{"PNG48:"}, "16 srgb", "rgb", 16, loader.Uint16},
		{"rgba16.png", []string{"-alpha", "set", "-channel", "A", "-fx", "i/31", "+channel", "PNG64:"}, "16 srgba", "rgb", 16, loader.Uint16},
		{"rgba8.png", []string{"-alpha", "set", "-channel", "A", "-fx", "j/23", "+channel", "PNG32:"}, "8 srgba", "rgb", 8, loader.Uint8},
		{"palette8.png", []string{"-colors", "50", "PNG8:"}, "8 srgb", "rgb", 8, loader.Uint8},
		{"rgb.bmp", []string{"-depth", "8", "BMP:"}, "8 srgb", "rgb", 8, loader.Uint8},
		{"rgb3.bmp", []string{"-depth", "8", "BMP3:"}, "8 srgb", "rgb", 8, loader.Uint8},
		{"palette.bmp", []string{"-colors", "40", "-type", "Palette", "-compress", "None", "BMP3:"}, "8 srgb", "rgb", 8, loader.Uint8},
		// A bilevel palette of white and black: not the ramp of 1-bit gray.
		{"bilevel.png", []string{"-monochrome", "-define", "png:bit-depth=1", "-define", "png:color-type=3", "PNG8:"}, "8 srgb", "gray", 8, loader.Uint8},
		{"gray.gif", []string{"-colorspace", "Gray", "-colors", "100", "GIF:"}, "8 srgb", "gray", 8, loader.Uint8},
		{"palette.gif", []string{"-colors", "64", "GIF:"}, "8 srgb", "rgb", 8, loader.Uint8},
		{"interlaced.gif", []string{"-colors", "64", "-interlace", "GIF", "GIF:"}, "8 srgb", "rgb", 8, loader.Uint8},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), tc.name)
			last := len(tc.args) - 1
			convert(t, append(append(plasma, tc.args[:last]...), tc.args[last]+p)...)
			if got := identify(t, "%z %[channels]", p); got != tc.identify {
				t.Fatalf("identify says %q, want %q", got, tc.identify)
			}
			c := 3
			if tc.raw == "gray" {
				c = 1
			}
			m, got := readAll(t, p)
			axes, shape := "YX", []int{23, 31}
			if c == 3 {
				axes, shape = "CYX", []int{3, 23, 31}
			}
			checkFormat(t, m, strings.TrimPrefix(filepath.Ext(tc.name), "."), axes, shape, tc.dt)
			want := planar(magickRaw(t, p, tc.raw, tc.depth), c, 31, 23, tc.depth/8)
			if d := firstDiff(got, want); d != "" {
				t.Fatal(d)
			}
		})
	}
}

// TestPictureLowBits opens gray PNGs stored with 1, 2 or 4 bits, and BMP
// and GIF files whose palette is black and white (the ramp of 1-bit gray):
// the samples are the stored values, 0 to 2^bits-1.
func TestPictureLowBits(t *testing.T) {
	for _, depth := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("png%d", depth), func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "f.png")
			lowBitPNG(t, p, depth)
			m, got := readAll(t, p)
			checkFormat(t, m, "png", "YX", []int{13, 19}, loader.Uint8)
			if d := firstDiff(got, storedValues(t, p, depth)); d != "" {
				t.Fatal(d)
			}
		})
	}
	for _, f := range []string{"BMP3:", "GIF:"} {
		t.Run(strings.ToLower(strings.TrimSuffix(f, ":")), func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "mask")
			convert(t, "-size", "21x11", "pattern:checkerboard", "-monochrome", f+p)
			if got := identify(t, "%[type] %k", p); got != "Bilevel 2" {
				t.Fatalf("identify says %q", got)
			}
			m, got := readAll(t, p)
			if m.Axes != "YX" || m.DType != loader.Uint8 || m.RGB {
				t.Fatalf("got %s %v RGB %v", m.Axes, m.DType, m.RGB)
			}
			if d := firstDiff(got, storedValues(t, p, 1)); d != "" {
				t.Fatal(d)
			}
		})
	}
}

// TestJPEGPicture opens single gray and colour JPEG files: exactly the
// samples image/jpeg decodes.
func TestJPEGPicture(t *testing.T) {
	for _, cs := range []string{"Gray", "sRGB"} {
		t.Run(cs, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "photo.jpg")
			convert(t, "-size", "45x27", "-seed", "2", "plasma:", "-colorspace", cs, "-quality", "90", "JPEG:"+p)
			m, got := readAll(t, p)
			axes, shape := "YX", []int{27, 45}
			if cs != "Gray" {
				axes, shape = "CYX", []int{3, 27, 45}
			}
			checkFormat(t, m, "jpeg", axes, shape, loader.Uint8)
			if d := firstDiff(got, goJPEG(t, p)); d != "" {
				t.Fatal(d)
			}
		})
	}
}

// TestTIFFLikePNG checks that a single-page TIFF opens like a PNG of the
// same picture: the same axes, shape, type, colour and samples.
func TestTIFFLikePNG(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []string
	}{
		{"gray8", []string{"-colorspace", "Gray", "-depth", "8"}},
		{"gray16", []string{"-colorspace", "Gray", "-depth", "16"}},
		{"rgb8", []string{"-depth", "8"}},
		{"rgb16", []string{"-depth", "16"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			pic := filepath.Join(dir, "pic.png")
			convert(t, append(append([]string{"-size", "26x18", "-seed", "8", "plasma:"}, tc.opts...), "-define", "png:exclude-chunks=date", "PNG:"+pic)...)
			tif := filepath.Join(dir, "pic.tif")
			convert(t, pic, "TIFF:"+tif)
			pm, pdata := readAll(t, pic)
			tm, tdata := readAll(t, tif)
			if pm.Format != "png" || tm.Format != "tiff" {
				t.Fatalf("formats %s and %s", pm.Format, tm.Format)
			}
			pd := fmt.Sprint(pm.Axes, pm.Shape, pm.DType, pm.RGB, pm.Levels[0].Chunk)
			td := fmt.Sprint(tm.Axes, tm.Shape, tm.DType, tm.RGB, tm.Levels[0].Chunk)
			if pd != td {
				t.Fatalf("PNG is %s, TIFF is %s", pd, td)
			}
			if d := firstDiff(tdata, pdata); d != "" {
				t.Fatal(d)
			}
		})
	}
}
