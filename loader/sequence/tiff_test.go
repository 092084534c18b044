package sequence

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
	_ "vastview/loader/tiff"
)

// TestMagickTIFF reads folders of TIFF frames written by ImageMagick.
func TestMagickTIFF(t *testing.T) {
	cases := []struct {
		name  string
		opts  []string
		ident string
		raw   string
		depth int
		c     int
		dt    loader.DType
	}{
		{"gray8", []string{"-colorspace", "Gray", "-depth", "8"}, "8 gray", "gray", 8, 1, loader.Uint8},
		{"gray16", []string{"-colorspace", "Gray", "-depth", "16"}, "16 gray", "gray", 16, 1, loader.Uint16},
		{"rgb8", []string{"-depth", "8"}, "8 srgb", "rgb", 8, 3, loader.Uint8},
		{"rgb16lzw", []string{"-depth", "16", "-compress", "LZW"}, "16 srgb", "rgb", 16, 3, loader.Uint16},
	}
	const w, h, n = 40, 30, 3
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var want []byte
			for i := 0; i < n; i++ {
				p := filepath.Join(dir, fmt.Sprintf("f%d.tif", i))
				args := append([]string{"-size", fmt.Sprintf("%dx%d", w, h), "-seed", fmt.Sprint(20 + i), "plasma:"}, tc.opts...)
				convert(t, append(args, "TIFF:"+p)...)
				if got := identify(t, "%w %h %z %[channels]", p); got != fmt.Sprintf("%d %d %s", w, h, tc.ident) {
					t.Fatalf("identify says %q", got)
				}
				want = append(want, planar(magickRaw(t, p, tc.raw, tc.depth), tc.c, w, h, tc.depth/8)...)
			}
			m, got := readAll(t, dir)
			shape, axes := []int{n, h, w}, "ZYX"
			if tc.c > 1 {
				shape, axes = []int{n, tc.c, h, w}, "ZCYX"
			}
			checkMeta(t, m, axes, shape, tc.dt)
			if d := firstDiff(got, want); d != "" {
				t.Fatal(d)
			}
		})
	}
}

// tifffileScript writes TIFF frames with tifffile from numpy arrays, and
// the exact samples (C order, little-endian) to frame%d.bin. argv: folder,
// dtype, shape (comma-separated), then tifffile options as key=value.
const tifffileScript = `
import sys, numpy as np, tifffile
out, dtype, shape = sys.argv[1], sys.argv[2], tuple(int(s) for s in sys.argv[3].split(","))
opts = {}
for kv in sys.argv[4:]:
    k, v = kv.split("=")
    opts[k] = eval(v)
rng = np.random.default_rng(5)
for i in range(3):
    if np.dtype(dtype).kind == "f":
        a = rng.normal(100, 30, shape).astype(dtype)
    else:
        a = rng.integers(0, np.iinfo(dtype).max, shape, dtype=dtype, endpoint=True)
    tifffile.imwrite("%s/frame%d.tif" % (out, i), a, **opts)
    open("%s/frame%d.bin" % (out, i), "wb").write(a.astype(a.dtype.newbyteorder("<")).tobytes())
`

// TestTifffileTIFF reads TIFF frames whose exact samples numpy chose:
// several sample types, tiles, and planar or interleaved RGB.
func TestTifffileTIFF(t *testing.T) {
	testtool.RequirePython(t, "numpy", "tifffile")
	cases := []struct {
		name, dtype, shape string
		opts               []string
		axes               string
		shapeOut           []int
		dt                 loader.DType
		interleaved        int // channels stored last, to be made planar; 0 if not
	}{
		{"uint16", "uint16", "30,50", nil, "ZYX", []int{3, 30, 50}, loader.Uint16, 0},
		{"float32", "float32", "30,50", nil, "ZYX", []int{3, 30, 50}, loader.Float32, 0},
		{"int16tiled", "int16", "70,90", []string{"tile=(32,32)"}, "ZYX", []int{3, 70, 90}, loader.Int16, 0},
		{"rgb", "uint8", "30,50,3", []string{"photometric='rgb'"}, "ZCYX", []int{3, 3, 30, 50}, loader.Uint8, 3},
		{"rgbplanar", "uint8", "3,30,50", []string{"photometric='rgb'", "planarconfig='separate'"}, "ZCYX", []int{3, 3, 30, 50}, loader.Uint8, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			raw := t.TempDir()
			testtool.RunPython(t, tifffileScript, append([]string{raw, tc.dtype, tc.shape}, tc.opts...)...)
			var want []byte
			for i := 0; i < 3; i++ {
				name := fmt.Sprintf("frame%d.tif", i)
				if err := os.Rename(filepath.Join(raw, name), filepath.Join(dir, name)); err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(filepath.Join(raw, fmt.Sprintf("frame%d.bin", i)))
				if err != nil {
					t.Fatal(err)
				}
				if tc.interleaved > 0 {
					b = planar(b, tc.interleaved, tc.shapeOut[3], tc.shapeOut[2], tc.dt.Size())
				}
				want = append(want, b...)
			}
			m, got := readAll(t, dir)
			checkMeta(t, m, tc.axes, tc.shapeOut, tc.dt)
			if d := firstDiff(got, want); d != "" {
				t.Fatal(d)
			}
		})
	}
}

// TestTIFFFrameErrors checks a multi-page TIFF among the frames and a TIFF
// whose size differs, and that PNG and TIFF frames that agree mix.
func TestTIFFFrameErrors(t *testing.T) {
	dir := t.TempDir()
	for i := 1; i <= 4; i++ {
		convert(t, "-size", "12x8", "-seed", fmt.Sprint(i), "plasma:", "-colorspace", "Gray", "-depth", "8",
			"TIFF:"+filepath.Join(dir, fmt.Sprintf("s%d.tif", i)))
	}
	convert(t, "-size", "12x8", "-seed", "9", "plasma:", "-colorspace", "Gray", "-depth", "8",
		"-define", "png:color-type=0", "PNG:"+filepath.Join(dir, "s5.png"))
	if _, data := readAll(t, dir); len(data) != 5*96 {
		t.Fatalf("read %d bytes from 5 frames of 96", len(data))
	}
	// s3 becomes a two-page TIFF, s2 a larger image.
	convert(t, "-size", "12x8", "xc:gray20", "xc:gray80", "-colorspace", "Gray", "-depth", "8",
		"TIFF:"+filepath.Join(dir, "s3.tif"))
	convert(t, "-size", "13x8", "xc:gray20", "-colorspace", "Gray", "-depth", "8",
		"TIFF:"+filepath.Join(dir, "s2.tif"))
	src, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dst := make([]byte, 96)
	err = src.ReadChunk(ctx, 0, []int{2, 0, 0}, dst)
	if err == nil || !strings.HasPrefix(err.Error(), "s3.tif: holds 2 images") {
		t.Errorf("two-page frame: %v", err)
	}
	want := "s2.tif: 13x8 uint8, but s1.tif is 12x8 uint8"
	if err := src.ReadChunk(ctx, 0, []int{1, 0, 0}, dst); err == nil || err.Error() != want {
		t.Errorf("wider frame: %v, want %s", err, want)
	}
	if err := src.Check(ctx); err == nil || err.Error() != want {
		t.Errorf("Check: %v, want %s", err, want)
	}
}

// TestTIFFSpacing checks that the pixel size of ImageJ TIFF frames becomes
// the sequence's Y and X spacing.
func TestTIFFSpacing(t *testing.T) {
	testtool.RequirePython(t, "numpy", "tifffile")
	dir := t.TempDir()
	testtool.RunPython(t, tifffileScript, dir, "uint8", "6,9", "imagej=True",
		"resolution=(4.0,2.5)", "metadata={'unit':'um'}")
	m, _ := readAll(t, filepath.Join(dir, "*.tif"))
	got := fmt.Sprint(m.Spacing, m.Units, m.Levels[0].Scale)
	if want := "[1 0.4 0.25] [ micrometer micrometer] [1 0.4 0.25]"; got != want {
		t.Fatalf("spacing, units, scale %s, want %s", got, want)
	}
}
