package sequence

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// TestMagickPNG reads folders of PNG frames written by ImageMagick and
// compares every sample with ImageMagick's own reading of each file.
func TestMagickPNG(t *testing.T) {
	cases := []struct {
		name     string
		prefix   string   // ImageMagick output format prefix
		opts     []string // extra options before the output
		identify string   // identify "%z %[channels]"
		raw      string   // ImageMagick raw format of the reference
		depth    int
		axes     string
		c        int
		dt       loader.DType
	}{
		{"gray8", "PNG:", []string{"-colorspace", "Gray", "-depth", "8", "-define", "png:color-type=0"}, "8 gray", "gray", 8, "ZYX", 1, loader.Uint8},
		{"gray16", "PNG:", []string{"-colorspace", "Gray", "-depth", "16", "-define", "png:color-type=0"}, "16 gray", "gray", 16, "ZYX", 1, loader.Uint16},
		{"rgb8", "PNG24:", nil, "8 srgb", "rgb", 8, "ZCYX", 3, loader.Uint8},
		{"rgb16", "PNG48:", nil, "16 srgb", "rgb", 16, "ZCYX", 3, loader.Uint16},
		// Alpha is dropped: the colour samples stay as stored.
		{"rgba8", "PNG32:", []string{"-alpha", "set", "-channel", "A", "-fx", "(i+j)/110", "+channel"}, "8 srgba", "rgb", 8, "ZCYX", 3, loader.Uint8},
		{"rgba16", "PNG64:", []string{"-alpha", "set", "-channel", "A", "-fx", "(i+j)/110", "+channel"}, "16 srgba", "rgb", 16, "ZCYX", 3, loader.Uint16},
		{"graya8", "PNG:", []string{"-colorspace", "Gray", "-depth", "8", "-alpha", "set", "-channel", "A", "-fx", "(i+j)/110", "+channel", "-define", "png:color-type=4"}, "8 graya", "gray", 8, "ZYX", 1, loader.Uint8},
	}
	const w, h, n = 64, 48, 3
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var want []byte
			for i := 0; i < n; i++ {
				p := filepath.Join(dir, fmt.Sprintf("frame%d.png", i+1))
				args := append([]string{"-size", fmt.Sprintf("%dx%d", w, h), "-seed", fmt.Sprint(7 + i), "plasma:"}, tc.opts...)
				convert(t, append(args, tc.prefix+p)...)
				if got := identify(t, "%w %h %z %[channels]", p); got != fmt.Sprintf("%d %d %s", w, h, tc.identify) {
					t.Fatalf("identify says %q", got)
				}
				want = append(want, planar(magickRaw(t, p, tc.raw, tc.depth), tc.c, w, h, tc.depth/8)...)
			}
			m, got := readAll(t, dir)
			shape := []int{n, h, w}
			if tc.c > 1 {
				shape = []int{n, tc.c, h, w}
			}
			checkMeta(t, m, tc.axes, shape, tc.dt)
			if d := firstDiff(got, want); d != "" {
				t.Fatal(d)
			}
		})
	}
}

// pilScript writes frames with numpy and Pillow: for each mode, frame%d.png
// and, as frame%d.bin, the exact samples the picture shows (interleaved,
// little-endian): without alpha, palette indices looked up.
const pilScript = `
import sys, numpy as np
from PIL import Image
out, mode, n, w, h = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
rng = np.random.default_rng(42)
for i in range(n):
    if mode == "I;16":
        a = rng.integers(0, 65536, (h, w), dtype=np.uint16)
        im = Image.fromarray(a)
    elif mode == "L":
        a = rng.integers(0, 256, (h, w), dtype=np.uint8)
        im = Image.fromarray(a, "L")
    elif mode in ("LA", "RGB", "RGBA"):
        a = rng.integers(0, 256, (h, w, len(mode)), dtype=np.uint8)
        im = Image.fromarray(a, mode)
    elif mode == "P":
        a = rng.integers(0, 7, (h, w), dtype=np.uint8)
        im = Image.fromarray(a, "L").convert("P")
        im.putpalette([10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160, 170, 180, 250, 0, 5])
    im.save("%s/frame%d.png" % (out, i))
    if mode in ("LA", "RGBA"):
        a = a[..., :-1]
    elif mode == "P":
        a = np.array(im.getpalette()[:3*7], np.uint8).reshape(-1, 3)[a]
    open("%s/frame%d.bin" % (out, i), "wb").write(a.astype(a.dtype.newbyteorder("<")).tobytes())
`

// TestNumpyPNG reads PNG frames whose exact samples numpy chose.
func TestNumpyPNG(t *testing.T) {
	testtool.RequirePython(t, "numpy", "PIL")
	cases := []struct {
		mode  string
		c     int
		dt    loader.DType
		axes  string
		ident string
	}{
		{"L", 1, loader.Uint8, "ZYX", "8 gray"},
		{"I;16", 1, loader.Uint16, "ZYX", "16 gray"},
		{"LA", 1, loader.Uint8, "ZYX", "8 graya"},
		{"RGB", 3, loader.Uint8, "ZCYX", "8 srgb"},
		{"RGBA", 3, loader.Uint8, "ZCYX", "8 srgba"},
		{"P", 3, loader.Uint8, "ZCYX", "8 srgb"},
	}
	const w, h, n = 37, 23, 4
	for _, tc := range cases {
		t.Run(strings.ReplaceAll(tc.mode, ";", ""), func(t *testing.T) {
			dir := t.TempDir()
			raw := t.TempDir()
			testtool.RunPython(t, pilScript, raw, tc.mode, fmt.Sprint(n), fmt.Sprint(w), fmt.Sprint(h))
			var want []byte
			for i := 0; i < n; i++ {
				p := filepath.Join(raw, fmt.Sprintf("frame%d.png", i))
				if got := identify(t, "%z %[channels]", p); got != tc.ident {
					t.Fatalf("identify says %q, want %q", got, tc.ident)
				}
				if err := os.Rename(p, filepath.Join(dir, filepath.Base(p))); err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(filepath.Join(raw, fmt.Sprintf("frame%d.bin", i)))
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, planar(b, tc.c, w, h, tc.dt.Size())...)
			}
			m, got := readAll(t, dir)
			shape := []int{n, h, w}
			if tc.c > 1 {
				shape = []int{n, tc.c, h, w}
			}
			checkMeta(t, m, tc.axes, shape, tc.dt)
			if d := firstDiff(got, want); d != "" {
				t.Fatal(d)
			}
			if m.Palette != nil {
				t.Fatalf("palette %v on a %s image", m.Palette, tc.mode)
			}
		})
	}
}

// TestPNGLowBitDepth reads 1-, 2- and 4-bit gray frames as the values
// stored (0 to 2^depth-1), which ImageMagick's 16-bit reading scales by
// 65535/(2^depth-1).
func TestPNGLowBitDepth(t *testing.T) {
	for _, depth := range []int{1, 2, 4} {
		t.Run(fmt.Sprint(depth), func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "f.png")
			lowBitPNG(t, p, depth)
			m, got := readAll(t, dir)
			checkMeta(t, m, "ZYX", []int{1, 13, 19}, loader.Uint8)
			if d := firstDiff(got, storedValues(t, p, depth)); d != "" {
				t.Fatal(d)
			}
			if w := m.Channels; len(w) != 1 || !w[0].HasWindow || w[0].Lo != 0 || w[0].Hi != float64(int(1)<<depth-1) {
				t.Fatalf("display window %+v, want 0 to %d", w, 1<<depth-1)
			}
		})
	}
}

// lowBitPNG writes a 19x13 gray PNG of the given bit depth with
// ImageMagick, using every value the depth has.
func lowBitPNG(t *testing.T, path string, depth int) {
	t.Helper()
	d := fmt.Sprint(depth)
	convert(t, "-size", "13x19", "gradient:", "-rotate", "90", "-colorspace", "Gray", "-depth", d,
		"-define", "png:color-type=0", "-define", "png:bit-depth="+d, "PNG:"+path)
	if got := identify(t, "%[png:IHDR.bit-depth-orig] %[png:IHDR.color-type-orig]", path); got != d+" 0" {
		t.Fatalf("identify says bit depth and colour type %q", got)
	}
}

// storedValues returns the gray samples of a PNG of the given bit depth
// as stored: ImageMagick's 16-bit reading, scaled back. It fails t unless
// every value from 0 to 2^depth-1 occurs.
func storedValues(t *testing.T, path string, depth int) []byte {
	t.Helper()
	raw := magickRaw(t, path, "gray", 16)
	out := make([]byte, len(raw)/2)
	top := 1<<depth - 1
	seen := make(map[int]bool)
	for i := range out {
		v := int(raw[2*i]) | int(raw[2*i+1])<<8
		if v*top%65535 != 0 {
			t.Fatalf("ImageMagick reads %d, not a %d-bit value", v, depth)
		}
		out[i] = byte(v * top / 65535)
		seen[int(out[i])] = true
	}
	if len(seen) != top+1 {
		t.Fatalf("the picture has %d of the %d values", len(seen), top+1)
	}
	return out
}

// TestPNGInterlaced reads an Adam7-interlaced frame.
func TestPNGInterlaced(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.png")
	convert(t, "-size", "33x17", "-seed", "5", "plasma:", "-interlace", "PNG", "PNG24:"+p)
	if got := identify(t, "%[interlace]", p); got != "PNG" {
		t.Fatalf("identify says interlace %q", got)
	}
	_, got := readAll(t, dir)
	if d := firstDiff(got, planar(magickRaw(t, p, "rgb", 8), 3, 33, 17, 1)); d != "" {
		t.Fatal(d)
	}
}

// TestPNGTransparentKey reads a gray frame with a tRNS colour key as gray
// samples (the key does not add a channel).
func TestPNGTransparentKey(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.png")
	convert(t, "-size", "16x9", "gradient:", "-colorspace", "Gray", "-depth", "8", "-transparent", "white",
		"-define", "png:color-type=0", "PNG:"+p)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("tRNS")) || data[25] != 0 {
		t.Skip("ImageMagick did not write a gray PNG with a tRNS chunk")
	}
	m, got := readAll(t, dir)
	checkMeta(t, m, "ZYX", []int{1, 9, 16}, loader.Uint8)
	if d := firstDiff(got, magickRaw(t, p, "gray", 8)); d != "" {
		t.Fatal(d)
	}
}
