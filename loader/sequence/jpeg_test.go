package sequence

import (
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"

	"vastview/loader"
)

// goJPEG decodes path with image/jpeg and returns its samples as planes,
// converting YCbCr with color.YCbCrToRGB.
func goJPEG(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := jpeg.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	switch im := img.(type) {
	case *image.Gray:
		out := make([]byte, 0, w*h)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				out = append(out, im.GrayAt(x, y).Y)
			}
		}
		return out
	case *image.YCbCr:
		out := make([]byte, 3*w*h)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				c := im.YCbCrAt(x, y)
				r, g, bl := color.YCbCrToRGB(c.Y, c.Cb, c.Cr)
				out[y*w+x], out[w*h+y*w+x], out[2*w*h+y*w+x] = r, g, bl
			}
		}
		return out
	}
	t.Fatalf("image/jpeg decoded %T", img)
	return nil
}

// TestJPEG reads gray and colour JPEG frames written by ImageMagick: exactly
// the samples image/jpeg decodes, and close to ImageMagick's own decoding
// (the two decoders round their inverse DCT and chroma upsampling
// differently).
func TestJPEG(t *testing.T) {
	cases := []struct {
		name, sampling, colorspace, ident, raw string
		c                                      int
		// Largest and mean absolute difference allowed from ImageMagick:
		// rounding only, or also libjpeg's smooth chroma upsampling where
		// image/jpeg replicates chroma samples.
		maxDiff  int
		meanDiff float64
	}{
		{"gray", "", "Gray", "8 gray", "gray", 1, 2, 0.1},
		{"rgb444", "1x1", "sRGB", "8 srgb", "rgb", 3, 4, 0.5},
		{"rgb420", "2x2", "sRGB", "8 srgb", "rgb", 3, 40, 4},
		{"rgb422", "2x1", "sRGB", "8 srgb", "rgb", 3, 40, 4},
	}
	const w, h, n = 70, 45, 3
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var exact, magick []byte
			for i := 0; i < n; i++ {
				p := filepath.Join(dir, fmt.Sprintf("img_%d.JPG", i))
				args := []string{"-size", fmt.Sprintf("%dx%d", w, h), "-seed", fmt.Sprint(11 + i), "plasma:", "-colorspace", tc.colorspace, "-quality", "92"}
				if tc.sampling != "" {
					args = append(args, "-sampling-factor", tc.sampling)
				}
				convert(t, append(args, "JPEG:"+p)...)
				if got := identify(t, "%w %h %z %[channels]", p); got != fmt.Sprintf("%d %d %s", w, h, tc.ident) {
					t.Fatalf("identify says %q", got)
				}
				exact = append(exact, goJPEG(t, p)...)
				magick = append(magick, planar(magickRaw(t, p, tc.raw, 8), tc.c, w, h, 1)...)
			}
			m, got := readAll(t, dir)
			shape := []int{n, h, w}
			axes := "ZYX"
			if tc.c > 1 {
				shape, axes = []int{n, tc.c, h, w}, "ZCYX"
			}
			checkMeta(t, m, axes, shape, loader.Uint8)
			if d := firstDiff(got, exact); d != "" {
				t.Fatalf("differs from image/jpeg: %s", d)
			}
			maxDiff, sum := 0, 0
			for i := range got {
				d := int(got[i]) - int(magick[i])
				d = max(d, -d)
				maxDiff = max(maxDiff, d)
				sum += d
			}
			if mean := float64(sum) / float64(len(got)); maxDiff > tc.maxDiff || mean > tc.meanDiff {
				t.Fatalf("differs from ImageMagick by up to %d, %.3f on average", maxDiff, mean)
			}
		})
	}
}
