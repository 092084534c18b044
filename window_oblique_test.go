package main

import (
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"vastview/base/testtool"
	"vastview/loader"
)

// TestWindowTurnsThePlane runs the viewer in a real window on a tifffile
// stack with anisotropic spacing, turns the plane with the keys (W: 5°
// about the screen's horizontal axis, D: 5° about its vertical axis) and
// then with a Ctrl+drag: each time the screen shows what `vastview plane
// --rotate` draws of the same plane (the keys' turns in reverse order about
// the physical axes; the drag's as the trace reports it), the background
// where the plane leaves the data.
func TestWindowTurnsThePlane(t *testing.T) {
	dir, bin := windowTest(t)
	stack := filepath.Join(dir, "stack.tif")
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
z, y, x = np.mgrid[0:24, 0:160, 0:200]
a = (1000 + 30 * z + 9 * x + 5 * y + 400 * ((x // 16 + y // 16 + z // 4) % 2)).astype(np.uint16)
tifffile.imwrite(sys.argv[1], a, imagej=True, resolution=(1 / 0.5, 1 / 0.5),
                 metadata={'spacing': 1.5, 'unit': 'um', 'axes': 'ZYX'})
`, stack)
	v := startViewer(t, bin, dir, filepath.Join(dir, "trace.jsonl"), stack)
	v.key("b", "plus", "plus") // no scale bar; zoomed in, most of the view on the data
	n := v.frames()
	v.key("w", "d")
	v.showsTurn(bin, dir, stack, n, func(map[string]any) string { return "y:5,x:5" })
	f := v.turnedFrame(n, func(e map[string]any) bool { return true })

	// Ctrl+drag to the right turns about the screen's vertical axis.
	n = v.frames()
	w, h := f["width"].(float64), f["height"].(float64)
	testtool.Run(t, "xdotool", "mousemove", "--window", v.win, fmt.Sprint(int(w/2)), fmt.Sprint(int(h/2)))
	testtool.Run(t, "xdotool", "keydown", "ctrl", "mousedown", "1")
	for i := 0; i < 8; i++ {
		testtool.Run(t, "xdotool", "mousemove_relative", "--", "5", "0")
	}
	testtool.Run(t, "xdotool", "mouseup", "1", "keyup", "ctrl")
	first := fmt.Sprint(f["turn"])
	f = v.turnedFrame(n, func(e map[string]any) bool { return fmt.Sprint(e["turn"]) != first })
	v.showsTurn(bin, dir, stack, n, func(f map[string]any) string { return rotateOf(f["turn"].([]any)) })

	// The plane turned, a plain drag downwards turns it about the screen's
	// horizontal axis, about the view's centre (no pan).
	n = v.frames()
	second, cx, cy := fmt.Sprint(f["turn"]), f["cx"], f["cy"]
	testtool.Run(t, "xdotool", "mousemove", "--window", v.win, fmt.Sprint(int(w/2)), fmt.Sprint(int(h/2)))
	testtool.Run(t, "xdotool", "mousedown", "1")
	for i := 0; i < 8; i++ {
		testtool.Run(t, "xdotool", "mousemove_relative", "--", "0", "5")
	}
	testtool.Run(t, "xdotool", "mouseup", "1")
	f = v.turnedFrame(n, func(e map[string]any) bool { return fmt.Sprint(e["turn"]) != second })
	if f["cx"] != cx || f["cy"] != cy {
		t.Errorf("a plain drag of a turned plane panned it: centre %v,%v -> %v,%v", cx, cy, f["cx"], f["cy"])
	}
	v.showsTurn(bin, dir, stack, n, func(f map[string]any) string { return rotateOf(f["turn"].([]any)) })

	// A right-drag pans it, the turn kept.
	f = v.turnedFrame(n, func(map[string]any) bool { return true })
	n = v.frames()
	third := fmt.Sprint(f["turn"])
	testtool.Run(t, "xdotool", "mousemove", "--window", v.win, fmt.Sprint(int(w/2)), fmt.Sprint(int(h/2)))
	testtool.Run(t, "xdotool", "mousedown", "3")
	for i := 0; i < 8; i++ {
		testtool.Run(t, "xdotool", "mousemove_relative", "--", "5", "0")
	}
	testtool.Run(t, "xdotool", "mouseup", "3")
	cx = f["cx"]
	f = v.turnedFrame(n, func(e map[string]any) bool { return e["cx"] != cx })
	if fmt.Sprint(f["turn"]) != third {
		t.Errorf("a right-drag turned the plane: %v -> %v", third, f["turn"])
	}
}

// turnedFrame waits for the last frame to be a complete one of a turned
// plane, after the n-th frame, for which ok holds, and returns it.
func (v *viewer) turnedFrame(after int, ok func(e map[string]any) bool) map[string]any {
	v.t.Helper()
	var f map[string]any
	waitFor(v.t, "a complete frame of a turned plane", 30*time.Second, func() bool {
		f = nil
		n := 0
		for _, e := range traceEvents(v.t, v.trace) {
			if e["event"] != "frame_shown" && e["event"] != "refined" {
				continue
			}
			n++
			if n > after && e["complete"] == true && e["turn"] != nil && ok(e) {
				f = e
			} else {
				f = nil
			}
		}
		return f != nil
	})
	return f
}

// rotateOf writes a turn from the trace (the rotation matrix minus the
// identity, rows and columns Z, Y, X) as --rotate x:C,y:B,z:A, its Euler
// angles: R = Rz(A)·Ry(B)·Rx(C).
func rotateOf(turn []any) string {
	var m [3][3]float64 // x, y, z order
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			r := turn[3*i+j].(float64)
			if i == j {
				r++
			}
			m[2-i][2-j] = r
		}
	}
	deg := func(r float64) float64 { return r * 180 / math.Pi }
	b := -math.Asin(max(-1, min(1, m[2][0])))
	a := math.Atan2(m[1][0], m[0][0])
	c := math.Atan2(m[2][1], m[2][2])
	return fmt.Sprintf("x:%.15g,y:%.15g,z:%.15g", deg(c), deg(b), deg(a))
}

// showsTurn checks that the screen shows the last frame, a complete one of
// a turned plane after the n-th frame, as plane --rotate rot(frame) of the
// stack draws it: every pixel but a few (at most 1 in 1000, where the last
// bit of the arithmetic decides a tie between two samples). The frame and
// the screen are looked at again until they agree or 30 s have passed:
// drag events may still arrive after xdotool returns.
func (v *viewer) showsTurn(bin, dir, stack string, after int, rot func(f map[string]any) string) {
	t := v.t
	t.Helper()
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		f := v.turnedFrame(after, func(map[string]any) bool { return true })
		n := v.frames()
		if err = v.screenIs(bin, dir, stack, f, rot(f), false); err == nil && v.frames() == n {
			return
		}
	}
	t.Fatal(err)
}

// screenIs compares the screen with plane --rotate r of frame f (with
// panel, the active panel of the four, but its crosshair and name).
func (v *viewer) screenIs(bin, dir, stack string, f map[string]any, r string, panel bool) error {
	t := v.t
	w, h := int(f["width"].(float64)), int(f["height"].(float64))
	c := f["center"].([]any)
	args := []string{"plane", stack, "--rotate", r, "--interp", f["interp"].(string),
		"--center", fmt.Sprintf("%v,%v,%v", c[0], c[1], c[2]),
		"--pixel", fmt.Sprint(f["pixel"]), "--size", fmt.Sprintf("%d,%d", h, w),
		"--level", fmt.Sprint(f["level"]), "--level-range", fmt.Sprintf("%v,%v", f["lo"], f["hi"])}
	if cm, _ := f["colormap"].(string); cm != "" {
		args = append(args, "--colormap", cm)
	}
	raw, png := filepath.Join(dir, "turn.raw"), filepath.Join(dir, "turn.png")
	testtool.Run(t, bin, append(args, "--out", raw)...)
	testtool.Run(t, bin, append(args, "--out", png)...)
	samples, ref := readBytes(t, raw), testtool.ReadPNG(t, png)
	expect := func(x, y int) (r, g, b uint32, ok bool) {
		if panel && x < 40 && y >= h-30 {
			return 0, 0, 0, false // the panel's name
		}
		if loader.Uint16.At(samples, y*w+x) == 0 { // off the data (whose samples are ≥ 1000)
			return 32 << 8, 32 << 8, 32 << 8, true
		}
		r, g, b, _ = ref.At(x, y).RGBA()
		return r, g, b, true
	}
	shot := filepath.Join(dir, "turn-shot.png")
	testtool.Run(t, "import", "-window", v.win, shot)
	screen := testtool.ReadPNG(t, shot)
	sb := screen.Bounds()
	best, bestBad := image.Point{}, -1
	for oy := 0; oy+h <= sb.Dy(); oy++ {
		for ox := 0; ox+w <= sb.Dx() && ox < 40; ox++ {
			if bad := mismatches(screen, image.Pt(ox, oy), w, h, 7, expect); bestBad < 0 || bad < bestBad {
				best, bestBad = image.Pt(ox, oy), bad
			}
		}
	}
	allowed := w * h / 1000
	if panel {
		allowed += w + h // the crosshair
	}
	if bad := mismatches(screen, best, w, h, 1, expect); bad > allowed {
		keep := filepath.Join(os.TempDir(), "vastview-"+t.Name()+".png")
		if b, err := os.ReadFile(shot); err == nil {
			os.WriteFile(keep, b, 0o644)
		}
		return fmt.Errorf("turned %s: %d of %d pixels of the view at %v differ from plane %v (screenshot kept at %s)",
			r, bad, w*h, best, args, keep)
	}
	return nil
}

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWindowTurnsFourPanels runs the viewer in a real window, lays out the
// four panels (key 4), turns the frame with the keys in the XY panel (W,
// D) and with a Ctrl+drag in the XZ panel: the XY panel on screen is what
// `vastview plane --rotate` draws of its plane each time, and the trace
// names the panel of each frame.
func TestWindowTurnsFourPanels(t *testing.T) {
	dir, bin := windowTest(t)
	stack := filepath.Join(dir, "stack.tif")
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
z, y, x = np.mgrid[0:40, 0:160, 0:200]
a = (1000 + 30 * z + 9 * x + 5 * y + 400 * ((x // 16 + y // 16 + z // 4) % 2)).astype(np.uint16)
tifffile.imwrite(sys.argv[1], a, imagej=True, resolution=(1 / 0.5, 1 / 0.5),
                 metadata={'spacing': 1.5, 'unit': 'um', 'axes': 'ZYX'})
`, stack)
	v := startViewer(t, bin, dir, filepath.Join(dir, "trace.jsonl"), stack)
	v.key("b", "4")
	var f map[string]any
	waitFor(t, "four panels", 20*time.Second, func() bool {
		f = nil
		for _, e := range traceEvents(t, v.trace) {
			if (e["event"] == "frame_shown" || e["event"] == "refined") && e["panel"] == "xy" && e["complete"] == true {
				f = e
			}
		}
		return f != nil
	})
	pw, ph := int(f["width"].(float64)), int(f["height"].(float64))
	pic := v.events("layout")[0]["picture"].([]any)
	x0, y0 := int(pic[0].(float64)), int(pic[1].(float64))
	inXY := func(e map[string]any) bool { return e["panel"] == "xy" }
	testtool.Run(t, "xdotool", "mousemove", "--window", v.win, fmt.Sprint(x0+pw/2), fmt.Sprint(y0+ph/2))
	n := v.frames()
	v.key("w", "d")
	v.showsTurnIn(bin, dir, stack, n, inXY, func(map[string]any) string { return "y:5,x:5" })
	before := fmt.Sprint(v.turnedFrame(n, inXY)["turn"])

	// Ctrl+drag in the XZ panel turns the frame about its vertical axis
	// (the frame's w): the XY panel turns with it.
	n = v.frames()
	testtool.Run(t, "xdotool", "mousemove", "--window", v.win, fmt.Sprint(x0+pw+2+pw/2), fmt.Sprint(y0+ph/2))
	testtool.Run(t, "xdotool", "keydown", "ctrl", "mousedown", "1")
	for i := 0; i < 8; i++ {
		testtool.Run(t, "xdotool", "mousemove_relative", "--", "5", "0")
	}
	testtool.Run(t, "xdotool", "mouseup", "1", "keyup", "ctrl")
	v.turnedFrame(n, func(e map[string]any) bool { return e["panel"] == "xz" && fmt.Sprint(e["turn"]) != before })
	n = v.frames()
	testtool.Run(t, "xdotool", "mousemove", "--window", v.win, fmt.Sprint(x0+pw/2), fmt.Sprint(y0+ph/2))
	v.showsTurnIn(bin, dir, stack, n, func(e map[string]any) bool { return inXY(e) && fmt.Sprint(e["turn"]) != before },
		func(f map[string]any) string { return rotateOf(f["turn"].([]any)) })
}

// showsTurnIn is showsTurn for the active panel of the four, the last
// frame being one for which ok holds.
func (v *viewer) showsTurnIn(bin, dir, stack string, after int, ok func(map[string]any) bool, rot func(f map[string]any) string) {
	t := v.t
	t.Helper()
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		f := v.turnedFrame(after, ok)
		n := v.frames()
		if err = v.screenIs(bin, dir, stack, f, rot(f), true); err == nil && v.frames() == n {
			return
		}
	}
	t.Fatal(err)
}
