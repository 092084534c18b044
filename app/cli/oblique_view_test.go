package cli

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"vastview/base/testtool"
	"vastview/loader"
	"vastview/session"
)

// turnedFrame opens path in a session with a w×h view, types keys and
// waits for the complete frame of the turned view they make.
func turnedFrame(t *testing.T, path string, w, h int, keys string) *session.Frame {
	t.Helper()
	ready := make(chan struct{}, 1)
	s := session.New(session.Options{DiskRoot: t.TempDir(), OnFrame: func() {
		select {
		case ready <- struct{}{}:
		default:
		}
	}})
	t.Cleanup(s.Close)
	s.SetScaleBar(false)
	s.Resize(w, h)
	src, err := openSource(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.OpenSource(src, path); err != nil {
		t.Fatal(err)
	}
	s.Zoom(1.6)
	for _, r := range keys {
		s.Rune(r)
	}
	want := len(keys) > 0
	deadline := time.After(time.Minute)
	for {
		select {
		case <-ready:
			f := s.TakeFrame()
			if f != nil && f.Info.Complete && session.Oblique(f.View) == want && f.View.Lo != f.View.Hi {
				return f
			}
		case <-deadline:
			t.Fatal("no complete frame of the turned view")
		}
	}
}

// TestTurnedViewIsThePlaneRotateDraws: the plane the turn keys show (W
// turns 5° about the screen's horizontal axis, D 5° about its vertical
// axis, Shift 1°; I samples trilinearly) is, pixel for pixel, the picture
// `plane --rotate` draws of the same plane (the turns in reverse order,
// about the physical axes), with the background where the plane leaves
// the data.
func TestTurnedViewIsThePlaneRotateDraws(t *testing.T) {
	testtool.RequirePython(t, "numpy", "tifffile", "zarr")
	dir := t.TempDir()
	testtool.RunPython(t, obliqueVolumes, dir)
	path := filepath.Join(dir, "vol.tif")
	const w, h = 160, 120
	for _, c := range []struct{ keys, rotate, interp string }{
		{"wd", "y:5,x:5", "nearest"},
		{"wwdqi", "z:-5,y:5,x:10", "linear"},
	} {
		f := turnedFrame(t, path, w, h, c.keys)
		v := f.View
		args := []string{"plane", path, "--rotate", c.rotate, "--interp", c.interp,
			"--center", fmt.Sprintf("%v,%v,%v", v.Z, v.Center.Row-0.5, v.Center.Col-0.5),
			"--pixel", fmt.Sprint(0.75 / v.Zoom), "--size", fmt.Sprintf("%d,%d", h, w),
			"--level", fmt.Sprint(f.Info.Level), "--level-range", fmt.Sprintf("%v,%v", v.Lo, v.Hi)}
		if v.Colormap != "" {
			args = append(args, "--colormap", v.Colormap)
		}
		raw, png := filepath.Join(dir, "p.raw"), filepath.Join(dir, "p.png")
		mustRun(t, append(args, "--out", raw)...)
		mustRun(t, append(args, "--out", png)...)
		samples := readFile(t, raw)
		dt := loader.Uint16
		if c.interp == "linear" {
			dt = loader.Float32
		}
		want := testtool.ReadPNG(t, png)
		inside := 0
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				got := f.Img.RGBAAt(x, y)
				r, g, b, _ := want.At(x, y).RGBA()
				exp := [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8)}
				if dt.At(samples, y*w+x) == 0 { // outside the data (whose samples are ≥ 1000)
					exp = [3]uint8{32, 32, 32}
				} else {
					inside++
				}
				if [3]uint8{got.R, got.G, got.B} != exp {
					t.Fatalf("keys %q: pixel (%d, %d) is %v, plane %v draws %v", c.keys, x, y, got, args, exp)
				}
			}
		}
		if inside < w*h/2 {
			t.Fatalf("keys %q: only %d pixels on the data", c.keys, inside)
		}
	}
}
