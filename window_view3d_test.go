package main

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"testing"
	"time"

	"vastview/base/testtool"
)

// TestWindow3DViewIsTheRendering runs the viewer in a real window on a
// tifffile stack with anisotropic spacing (Z 3 µm, Y and X 1 µm), presses
// 5 for the 3-D view and turns the volume by dragging with the mouse: the
// screen shows, before and after the drag, what `vastview render` draws of
// the camera the trace reports (--rotate, --center, --pixel, --size,
// --level, --step, as the status's camera).
func TestWindow3DViewIsTheRendering(t *testing.T) {
	dir, bin := windowTest(t)
	stack := filepath.Join(dir, "stack.tif")
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
z, y, x = np.mgrid[0:24, 0:96, 0:128]
a = (200 + 8 * x + 5 * y + 20 * z).astype(np.uint16)
a[((z - 10) * 3) ** 2 + (y - 40) ** 2 + (x - 70) ** 2 < 400] = 3000
a[4:8, 60:80, 10:40] = 2200
tifffile.imwrite(sys.argv[1], a, imagej=True, resolution=(1, 1),
                 metadata={'spacing': 3, 'unit': 'um', 'axes': 'ZYX'})
`, stack)
	v := startViewer(t, bin, dir, filepath.Join(dir, "trace.jsonl"), stack)
	v.key("b") // no scale bar
	n := v.frames()
	v.key("5")
	f := v.frame3D(n, func(map[string]any) bool { return true })
	v.shows3D(bin, dir, stack, n, f)
	first := fmt.Sprint(f["render"])

	w, h := f["width"].(float64), f["height"].(float64)
	n = v.frames()
	testtool.Run(t, "xdotool", "mousemove", "--window", v.win, fmt.Sprint(int(w/2)), fmt.Sprint(int(h/2)))
	testtool.Run(t, "xdotool", "mousedown", "1")
	for i := 0; i < 10; i++ {
		testtool.Run(t, "xdotool", "mousemove_relative", "--", "6", "3")
	}
	testtool.Run(t, "xdotool", "mouseup", "1")
	f = v.frame3D(n, func(e map[string]any) bool { return fmt.Sprint(e["render"]) != first })
	moving := 0
	for _, e := range traceEvents(t, v.trace) {
		if e["panel"] == "3d" && e["scale"] != nil && e["scale"].(float64) < 1 {
			moving++
		}
	}
	if moving == 0 {
		t.Error("no frame at a reduced screen scale while the mouse turned the volume")
	}
	v.shows3D(bin, dir, stack, n, f)
}

// frame3D waits for the last frame to be a complete one of the 3-D view
// at full screen scale, after the n-th frame, for which ok holds.
func (v *viewer) frame3D(after int, ok func(e map[string]any) bool) map[string]any {
	v.t.Helper()
	var f map[string]any
	waitFor(v.t, "a complete frame of the 3-D view", 60*time.Second, func() bool {
		f = nil
		n := 0
		for _, e := range traceEvents(v.t, v.trace) {
			if e["event"] != "frame_shown" && e["event"] != "refined" {
				continue
			}
			n++
			if n > after && e["complete"] == true && e["panel"] == "3d" && e["render"] != nil && ok(e) {
				f = e
			} else {
				f = nil
			}
		}
		return f != nil
	})
	return f
}

// shows3D checks that the screen shows the 3-D frame f as `vastview
// render` of its camera draws it, every pixel but at most 1 in 1000
// (where the last bit of the arithmetic decides between two samples);
// frames still coming (drag events arriving late) are waited for; extra
// are more options of render (the labels laid over, say).
func (v *viewer) shows3D(bin, dir, stack string, after int, f map[string]any, extra ...string) {
	t := v.t
	t.Helper()
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		n := v.frames()
		if err = v.screenIs3D(bin, dir, stack, f, extra...); err == nil && v.frames() == n {
			return
		}
		f = v.frame3D(after, func(map[string]any) bool { return true })
	}
	t.Fatal(err)
}

// screenIs3D compares the screen with `vastview render` of frame f.
func (v *viewer) screenIs3D(bin, dir, stack string, f map[string]any, extra ...string) error {
	t := v.t
	w, h := int(f["width"].(float64)), int(f["height"].(float64))
	args := []string{"render", stack}
	for _, a := range f["render"].([]any) {
		args = append(args, a.(string))
	}
	args = append(append(args, extra...), "--level-range", fmt.Sprintf("%v,%v", f["lo"], f["hi"]))
	if cm, _ := f["colormap"].(string); cm != "" {
		args = append(args, "--colormap", cm)
	}
	png := filepath.Join(dir, "render.png")
	testtool.Run(t, bin, append(args, "--out", png)...)
	ref := testtool.ReadPNG(t, png)
	if b := ref.Bounds(); b.Dx() != w || b.Dy() != h {
		return fmt.Errorf("render drew %v, the view is %d×%d", b, w, h)
	}
	expect := func(x, y int) (r, g, b uint32, ok bool) {
		r, g, b, _ = ref.At(x, y).RGBA()
		return r, g, b, true
	}
	shot := filepath.Join(dir, "shot3d.png")
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
	if bad := mismatches(screen, best, w, h, 1, expect); bad > w*h/1000 {
		keep := filepath.Join(os.TempDir(), "vastview-"+t.Name()+".png")
		if b, err := os.ReadFile(shot); err == nil {
			os.WriteFile(keep, b, 0o644)
		}
		return fmt.Errorf("%d of %d pixels of the 3-D view at %v differ from %v (screenshot kept at %s)",
			bad, w*h, best, args, keep)
	}
	return nil
}
