package cli

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"vastview/base/testtool"
)

// movieFixture writes a tifffile ImageJ movie of t frames of 151 × 201
// uint16 samples (odd sizes: an MP4 is cropped to even ones), 0.04 s
// apart, whose pattern moves from frame to frame, and a volume of z
// planes beside it.
func movieFixture(t *testing.T, frames int) (movie, volume string) {
	t.Helper()
	testtool.RequirePython(t, "numpy", "tifffile")
	dir := t.TempDir()
	movie, volume = filepath.Join(dir, "movie.tif"), filepath.Join(dir, "volume.tif")
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
n = int(sys.argv[3])
t = np.arange(n)[:, None, None]; y = np.arange(151)[None, :, None]; x = np.arange(201)[None, None, :]
a = (((x + 9 * t) % 201) * 200 + y * 60).astype(np.uint16)
tifffile.imwrite(sys.argv[1], a, imagej=True, metadata={'axes': 'TYX', 'finterval': 0.04})
tifffile.imwrite(sys.argv[2], a[:7], imagej=True, metadata={'axes': 'ZYX', 'spacing': 2.0, 'unit': 'um'})
`, movie, volume, strconv.Itoa(frames))
	return movie, volume
}

// grayOf returns the red samples of a picture, row by row.
func grayOf(img image.Image) (w, h int, g []float64) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, _, _, _ := img.At(x, y).RGBA()
			g = append(g, float64(r>>8))
		}
	}
	return b.Dx(), b.Dy(), g
}

// meanAbsDiff is the mean absolute difference of picture a and the
// top-left w × h part of picture b (w columns a row).
func meanAbsDiff(a []float64, w, h int, b []float64, bw int) float64 {
	s := 0.0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			d := a[y*w+x] - b[y*bw+x]
			s += max(d, -d)
		}
	}
	return s / float64(w*h)
}

// TestMovieSeriesEqualsThePlanes writes a movie as a series of PNG
// images, along t and along z: each frame is, pixel for pixel, the PNG
// plane writes for the same position and window.
func TestMovieSeriesEqualsThePlanes(t *testing.T) {
	movie, volume := movieFixture(t, 12)
	dir := t.TempDir()
	mustRun(t, "movie", movie, filepath.Join(dir, "frames")+"/", "--range", "3:5", "--window", "40000,20000")
	mustRun(t, "movie", volume, filepath.Join(dir, "vol.png"), "--axis", "z", "--window", "40000,20000")
	check := func(frame, src string, args ...string) {
		t.Helper()
		want := filepath.Join(dir, "want.png")
		mustRun(t, append([]string{"plane", src, "--out", want, "--window", "40000,20000"}, args...)...)
		gw, gh, got := grayOf(testtool.ReadPNG(t, frame))
		ww, wh, ref := grayOf(testtool.ReadPNG(t, want))
		if gw != ww || gh != wh {
			t.Fatalf("%s is %d×%d, plane %v %d×%d", frame, gw, gh, args, ww, wh)
		}
		if d := meanAbsDiff(got, gw, gh, ref, ww); d != 0 {
			t.Errorf("%s differs from plane %v by %.3f on average", frame, args, d)
		}
	}
	entries, err := os.ReadDir(filepath.Join(dir, "frames"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "frame_t0003.png frame_t0004.png frame_t0005.png" {
		t.Fatalf("the series is %v", names)
	}
	for i := 3; i <= 5; i++ {
		check(filepath.Join(dir, "frames", fmt.Sprintf("frame_t%04d.png", i)), movie, "--t", strconv.Itoa(i))
	}
	for z := 0; z < 7; z++ {
		check(filepath.Join(dir, fmt.Sprintf("vol_z%04d.png", z)), volume, "--z", strconv.Itoa(z))
	}
}

// TestMovieOfProjections writes the maximum projection along Z of every
// time point of a TZYX hyperstack as PNG images: each equal to `plane
// --t N --project max`.
func TestMovieOfProjections(t *testing.T) {
	testtool.RequirePython(t, "numpy", "tifffile")
	dir := t.TempDir()
	src := filepath.Join(dir, "tzyx.tif")
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
t, z, y, x = np.mgrid[0:4, 0:6, 0:50, 0:70]
tifffile.imwrite(sys.argv[1], ((x * 31 + y * 17 + z * 57 + t * 13) % 199 * 150).astype(np.uint16), imagej=True, metadata={'axes': 'TZYX'})
`, src)
	mustRun(t, "movie", src, filepath.Join(dir, "mip.png"), "--project", "max", "--slab", "1:4", "--window", "30000,15000")
	for tp := 0; tp < 4; tp++ {
		want := filepath.Join(dir, "want.png")
		mustRun(t, "plane", src, "--out", want, "--t", strconv.Itoa(tp), "--project", "max", "--slab", "1:4", "--window", "30000,15000")
		gw, gh, got := grayOf(testtool.ReadPNG(t, filepath.Join(dir, fmt.Sprintf("mip_t%04d.png", tp))))
		ww, wh, ref := grayOf(testtool.ReadPNG(t, want))
		if gw != ww || gh != wh {
			t.Fatalf("frame %d is %d×%d, the projection %d×%d", tp, gw, gh, ww, wh)
		}
		if d := meanAbsDiff(got, gw, gh, ref, ww); d != 0 {
			t.Errorf("frame %d differs from plane --project by %.3f on average", tp, d)
		}
	}
	code, _, errs := vv("movie", src, filepath.Join(dir, "z.png"), "--project", "max", "--axis", "z")
	if code != 1 || !strings.Contains(errs, "the same at every plane") {
		t.Errorf("a projection's movie along z: exit %d, %q", code, errs)
	}
}

// TestMovieMP4DecodesToTheFrames writes an MP4 and decodes it with
// ffmpeg: as many frames as asked for, at the file's rate, even
// dimensions, and its first and last frames near (H.264 is lossy) the
// planes they show and far from each other.
func TestMovieMP4DecodesToTheFrames(t *testing.T) {
	ffmpeg := testtool.Require(t, "ffmpeg")
	ffprobe := testtool.Require(t, "ffprobe")
	movie, _ := movieFixture(t, 30)
	dir := t.TempDir()
	out := filepath.Join(dir, "m.mp4")
	mustRun(t, "movie", movie, out, "--range", "2:21", "--window", "40000,20000")
	probe := strings.TrimSpace(string(testtool.Run(t, ffprobe, "-v", "error", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=nb_read_frames,width,height,r_frame_rate,pix_fmt", "-of", "csv=p=0", out)))
	if probe != "200,150,yuv420p,25/1,20" {
		t.Fatalf("ffprobe: %q, want 200×150 yuv420p at 25/1 (0.04 s apart), 20 frames", probe)
	}
	decode := func(frame int) []float64 {
		png := filepath.Join(dir, fmt.Sprintf("d%d.png", frame))
		testtool.Run(t, ffmpeg, "-v", "error", "-i", out, "-vf", fmt.Sprintf("select=eq(n\\,%d)", frame), "-frames:v", "1", png)
		_, _, g := grayOf(testtool.ReadPNG(t, png))
		return g
	}
	plane := func(tp int) []float64 {
		p := filepath.Join(dir, fmt.Sprintf("p%d.png", tp))
		mustRun(t, "plane", movie, "--out", p, "--t", strconv.Itoa(tp), "--window", "40000,20000")
		_, _, g := grayOf(testtool.ReadPNG(t, p))
		return g
	}
	first, last := decode(0), decode(19)
	p2, p21 := plane(2), plane(21)
	for _, c := range []struct {
		name string
		got  []float64
		near []float64
		far  []float64
	}{{"first", first, p2, p21}, {"last", last, p21, p2}} {
		if d := meanAbsDiff(c.got, 200, 150, c.near, 201); d > 3 {
			t.Errorf("the %s frame differs from its plane by %.2f on average", c.name, d)
		}
		if d := meanAbsDiff(c.got, 200, 150, c.far, 201); d < 20 {
			t.Errorf("the %s frame is as near the other end's plane (%.2f)", c.name, d)
		}
	}
}

// TestMovieRefusesInOneLine: an existing output needs --overwrite, a
// range outside the data and a wrong axis are refused, each in one line,
// and nothing is written.
func TestMovieRefusesInOneLine(t *testing.T) {
	movie, _ := movieFixture(t, 5)
	dir := t.TempDir()
	out := filepath.Join(dir, "m.mp4")
	if err := os.WriteFile(out, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"movie", movie, out}, "exists already (replace it with --overwrite)"},
		{[]string{"movie", movie, filepath.Join(dir, "s.png"), "--range", "2:9"}, "range 2:9 is outside t 0..4"},
		{[]string{"movie", movie, filepath.Join(dir, "s.png"), "--axis", "q"}, "--axis must be t or z"},
		{[]string{"movie", movie, filepath.Join(dir, "s.gif")}, "a movie is written as .mp4"},
	} {
		code, _, errs := vv(c.args...)
		if code != 1 || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, %q; want one line with %q", c.args[3:], code, errs, c.want)
		}
	}
	if b, _ := os.ReadFile(out); string(b) != "keep" {
		t.Errorf("the existing movie was changed")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left %d files", len(entries))
	}
	mustRun(t, "movie", movie, out, "--overwrite")
	if b, _ := os.ReadFile(out); string(b) == "keep" {
		t.Errorf("--overwrite kept the old file")
	}
}
