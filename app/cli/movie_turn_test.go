package cli

import (
	"fmt"
	"path/filepath"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
	"vastview/session"
)

// TestMovieOfATurnedPlane: a movie along the planes of a turned view has
// the turned plane at each position: each frame is what plane --rotate
// draws through that position.
func TestMovieOfATurnedPlane(t *testing.T) {
	testtool.RequirePython(t, "numpy", "tifffile", "zarr")
	dir := t.TempDir()
	testtool.RunPython(t, obliqueVolumes, dir)
	path := filepath.Join(dir, "vol.tif")
	const w, h = 160, 120
	s, f := turnedFrame(t, path, w, h, "wd")
	v := f.View
	out := filepath.Join(dir, "movie")
	done := make(chan *session.Export, 1)
	if _, err := s.ExportMovie(out, session.MovieOptions{Axis: 'Z', From: 3, To: 4}, func(e *session.Export) { done <- e }); err != nil {
		t.Fatal(err)
	}
	if e := <-done; e.Err() != nil {
		t.Fatal(e.Err())
	}
	names, _ := filepath.Glob(filepath.Join(out, "*.png"))
	if len(names) != 2 {
		t.Fatalf("frames %v", names)
	}
	for k, name := range names {
		args := []string{"plane", path, "--rotate", "y:5,x:5",
			"--center", fmt.Sprintf("%v,%v,%v", 3+k, v.Center.Row-0.5, v.Center.Col-0.5),
			"--pixel", fmt.Sprint(0.75 / v.Zoom), "--size", fmt.Sprintf("%d,%d", h, w),
			"--level", fmt.Sprint(f.Info.Level), "--level-range", fmt.Sprintf("%v,%v", v.Lo, v.Hi)}
		raw, png := filepath.Join(dir, "m.raw"), filepath.Join(dir, "m.png")
		mustRun(t, append(args, "--out", raw)...)
		mustRun(t, append(args, "--out", png)...)
		samples, want, got := readFile(t, raw), testtool.ReadPNG(t, png), testtool.ReadPNG(t, name)
		bad := 0
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				r, g, b, _ := want.At(x, y).RGBA()
				exp := [3]uint32{r >> 8, g >> 8, b >> 8}
				if loader.Uint16.At(samples, y*w+x) == 0 {
					exp = [3]uint32{32, 32, 32}
				}
				gr, gg, gb, _ := got.At(x, y).RGBA()
				if [3]uint32{gr >> 8, gg >> 8, gb >> 8} != exp {
					bad++
				}
			}
		}
		if bad > 0 {
			t.Fatalf("frame %s: %d of %d pixels differ from plane %v", name, bad, w*h, args)
		}
	}
}
