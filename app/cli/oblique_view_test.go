package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vastview/base/testtool"
	"vastview/loader"
	"vastview/prefs"
	"vastview/render"
	"vastview/render/oblique"
	"vastview/session"
)

// turnedFrame opens path in a session with a w×h view, types keys (or,
// for "drag", Ctrl+drags 40 pixels to the right and Shift+Ctrl+drags 50
// down, and lets go) and waits for the complete frame of the turned view they make.
func turnedFrame(t *testing.T, path string, w, h int, keys string) (*session.Session, *session.Frame) {
	t.Helper()
	s := openView(t, path, w, h)
	s.Zoom(1.6)
	if keys == "drag" {
		s.KeyDown(session.KeyControlLeft)
		for i := 0; i < 4; i++ {
			s.Drag(80, 60, 10, 0)
		}
		s.KeyDown(session.KeyShiftLeft)
		s.Drag(80, 60, 0, 30)
		s.Drag(80, 60, 0, 20)
		s.KeyUp(session.KeyShiftLeft)
		s.KeyUp(session.KeyControlLeft)
		// The button released: a drag whose frames took long is drawn
		// coarser, and the levels wait, until it ends.
		s.DragEnd()
	} else {
		for _, r := range keys {
			switch r {
			case '.':
				s.Press(session.KeyPeriod)
			case ',':
				s.Press(session.KeyComma)
			default:
				s.Rune(r)
			}
		}
	}
	want := len(keys) > 0
	f := s.frame("the turned view", func(f *session.Frame) bool {
		// A frame of the view as it is now: one asked for before the
		// last key or drag may still come.
		now := s.View()
		return session.Oblique(f.View) == want && f.View.Turn == now.Turn && f.View.Linear == now.Linear &&
			f.View.Depth == now.Depth && f.View.Z == now.Z && f.View.Center == now.Center && f.View.Zoom == now.Zoom && f.View.Lo == now.Lo && f.View.Hi == now.Hi
	})
	return s.Session, f
}

// viewSession is a session on a file in a view of a given size, without
// the scale bar, told of each frame.
type viewSession struct {
	*session.Session
	t     *testing.T
	ready chan struct{}
}

// openView opens path in a session with a w×h view (closed when the test
// ends).
func openView(t *testing.T, path string, w, h int) *viewSession {
	t.Helper()
	vs := &viewSession{t: t, ready: make(chan struct{}, 1)}
	vs.Session = session.New(session.Options{DiskRoot: t.TempDir(), OnFrame: func() {
		select {
		case vs.ready <- struct{}{}:
		default:
		}
	}})
	t.Cleanup(vs.Close)
	vs.SetScaleBar(false)
	vs.Resize(w, h)
	src, err := openSource(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := vs.OpenSource(src, path); err != nil {
		t.Fatal(err)
	}
	return vs
}

// frame waits, a minute at most, for a complete frame with a window
// that ok accepts, and fails the test naming what it waited for.
func (vs *viewSession) frame(what string, ok func(f *session.Frame) bool) *session.Frame {
	vs.t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case <-vs.ready:
			if f := vs.TakeFrame(); f != nil && f.Info.Complete && f.View.Lo != f.View.Hi && ok(f) {
				return f
			}
		case <-deadline:
			vs.t.Fatalf("no complete frame of %s", what)
		}
	}
}

// TestTurnedViewIsThePlaneRotateDraws: the plane the turn keys show (W
// turns 5° about the screen's horizontal axis, D 5° about its vertical
// axis, Shift 1°; I samples trilinearly; '.' steps along its normal) is,
// pixel for pixel, the picture
// `plane --rotate` draws of the same plane (the turns in reverse order,
// about the physical axes), with the background where the plane leaves
// the data, in the window and in the PNG alike.
func TestTurnedViewIsThePlaneRotateDraws(t *testing.T) {
	testtool.RequirePython(t, "numpy", "tifffile", "zarr")
	dir := t.TempDir()
	testtool.RunPython(t, obliqueVolumes, dir)
	path := filepath.Join(dir, "vol.tif")
	const w, h = 160, 120
	for _, c := range []struct{ keys, rotate, interp string }{
		{"wd", "y:5,x:5", "nearest"},
		{"wwdqi", "z:-5,y:5,x:10", "linear"},
		{"drag", "x:2.5,y:-10", "nearest"}, // 0.25° a pixel, Shift 0.05°
		{"wddi..", "y:10,x:5", "linear"},   // two steps along the turned normal: between samples
	} {
		s, f := turnedFrame(t, path, w, h, c.keys)
		v := f.View
		if strings.Contains(c.keys, ".") && v.Depth == 0 {
			t.Fatalf("keys %q: the plane's centre is on a sample of Z: %+v", c.keys, v)
		}
		pl, sp := session.ObliquePlane(s.Meta(), v), oblique.Spacing(s.Meta())
		args := []string{"plane", path, "--rotate", c.rotate, "--interp", c.interp,
			"--center", fmt.Sprintf("%.17g,%.17g,%.17g", pl.Center[0]/sp[0], pl.Center[1]/sp[1], pl.Center[2]/sp[2]),
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
				if dt.At(samples, y*w+x) == 0 { // outside the data (whose samples are ≥ 1000): the background
					if exp != [3]uint8{32, 32, 32} {
						t.Fatalf("keys %q: pixel (%d, %d) outside the data is %v in plane %v's PNG, not the background", c.keys, x, y, exp, args)
					}
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
		// Hovering reads the level-0 sample nearest the point the pixel
		// samples: plane --rotate's nearest sample at level 0 there.
		for i := 0; i+1 < len(args); i++ {
			switch args[i] {
			case "--level":
				args[i+1] = "0"
			case "--interp":
				args[i+1] = "nearest"
			}
		}
		mustRun(t, append(args, "--out", raw)...)
		samples = readFile(t, raw)
		for _, p := range [][2]int{{w / 2, h / 2}, {w / 3, h / 4}, {3 * w / 4, 2 * h / 3}} {
			s.Hover(float64(p[0])+0.5, float64(p[1])+0.5, true)
			text := s.HoverText()
			want := fmt.Sprintf("value %d", int(loader.Uint16.At(samples, p[1]*w+p[0])))
			if !strings.HasSuffix(text, want) || !strings.HasPrefix(text, "Z ") {
				t.Fatalf("keys %q: hovering over (%d, %d) reads %q, want … %s", c.keys, p[0], p[1], text, want)
			}
		}
	}
}

// TestTurnIsRememberedWithTheView: a file opened again shows the plane
// turned as it was left, sampled as it was.
func TestTurnIsRememberedWithTheView(t *testing.T) {
	testtool.RequirePython(t, "numpy", "tifffile", "zarr")
	dir := t.TempDir()
	testtool.RunPython(t, obliqueVolumes, dir)
	path := filepath.Join(dir, "vol.tif")
	pr := prefs.New(&prefs.MapStore{})
	open := func() *session.Session {
		s := session.New(session.Options{DiskRoot: t.TempDir(), Prefs: pr})
		s.Resize(160, 120)
		src, err := openSource(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.OpenSource(src, path); err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open()
	for _, r := range "wadi" {
		s.Rune(r)
	}
	want := s.View()
	s.Close()
	s = open()
	defer s.Close()
	got := s.View()
	if got.Turn != want.Turn || !got.Linear || want.Turn == (render.Turn{}) {
		t.Fatalf("opened again: turn %v linear %v, left %v linear %v", got.Turn, got.Linear, want.Turn, want.Linear)
	}
}
