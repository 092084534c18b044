package main

import (
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"vastview/base/testtool"
)

// windowHeight is the height of the viewer's window in pixels, as the X
// server has it.
func (v *viewer) windowHeight() int {
	v.t.Helper()
	out, err := exec.Command("xdotool", "getwindowgeometry", "--shell", v.win).Output()
	if err != nil {
		v.t.Fatal(err)
	}
	for _, l := range strings.Fields(string(out)) {
		if h, ok := strings.CutPrefix(l, "HEIGHT="); ok {
			n, _ := strconv.Atoi(h)
			return n
		}
	}
	v.t.Fatalf("no height in %q", out)
	return 0
}

// pictureSizes are the sizes of the frames shown so far (single view).
func (v *viewer) pictureSizes() map[[2]int]int {
	sizes := map[[2]int]int{}
	for _, e := range v.events("frame_shown") {
		sizes[[2]int{int(e["width"].(float64)), int(e["height"].(float64))}]++
	}
	return sizes
}

// TestWindowLayout opens a three-channel stack among two files at the
// default window size: every frame, the first included, is drawn at one
// size that takes most of the window's height; a projection (P) keeps
// it; hiding the histogram (G) gives the picture more room, and the
// choice is remembered when the viewer is opened again.
func TestWindowLayout(t *testing.T) {
	dir, bin := windowTest(t)
	a, b := filepath.Join(dir, "cells.tif"), filepath.Join(dir, "other.tif")
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
z, y, x = np.mgrid[0:10, 0:300, 0:400]
c = np.stack([x * 10, y * 10, (x + y) * 5 + z * 100], axis=1).astype(np.uint16)
tifffile.imwrite(sys.argv[1], c, imagej=True, metadata={'axes': 'ZCYX'})
tifffile.imwrite(sys.argv[2], (x * 30 + y * 20).astype(np.uint16))
`, a, b)
	v := startViewer(t, bin, dir, filepath.Join(dir, "trace.jsonl"), a, b)
	v.frameAt(0, 5, true)
	h := v.windowHeight()
	sizes := v.pictureSizes()
	if len(sizes) != 1 {
		t.Fatalf("the picture was drawn at %d sizes, %v, before any key", len(sizes), sizes)
	}
	var size [2]int
	for s := range sizes {
		size = s
	}
	t.Logf("window height %d, picture %dx%d (%.0f%%)", h, size[0], size[1], 100*float64(size[1])/float64(h))
	if float64(size[1]) < 0.6*float64(h) {
		t.Errorf("the picture is %d of the window's %d pixels high, less than 60%%", size[1], h)
	}

	v.key("p")
	waitFor(t, "a projection", 20*time.Second, func() bool {
		for _, e := range append(v.events("frame_shown"), v.events("refined")...) {
			if e["projection"] == "max" && e["complete"] == true {
				return true
			}
		}
		return false
	})
	if sizes := v.pictureSizes(); len(sizes) != 1 {
		t.Errorf("the projection changed the picture's size: %v", sizes)
	}

	v.key("p", "p", "p", "g") // back to the plane; the histogram hidden
	var taller [2]int
	waitFor(t, "a taller picture", 20*time.Second, func() bool {
		for s := range v.pictureSizes() {
			if s[1] > size[1] {
				taller = s
				return true
			}
		}
		return false
	})
	v.cmd.Process.Signal(syscall.SIGTERM)
	if err := v.cmd.Wait(); err != nil {
		t.Fatalf("the viewer ended with %v on SIGTERM", err)
	}
	v2 := startViewer(t, bin, dir, filepath.Join(dir, "trace2.jsonl"), a, b)
	v2.frameAt(0, 5, true)
	if sizes := v2.pictureSizes(); len(sizes) != 1 || sizes[taller] == 0 {
		t.Errorf("opened again, the picture is drawn at %v, want %v (the histogram stays hidden)", sizes, taller)
	}
}

// TestWindowMenusFit opens each menu of the menu bar at the default
// window size: each fits the window without scrolling (a scrolled menu's
// bar covers the keys written at its right edge), and the menu items of
// View that have a key show it (checked without a window in ui).
func TestWindowMenusFit(t *testing.T) {
	dir, bin := windowTest(t)
	stack := filepath.Join(dir, "cells.tif")
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
z, y, x = np.mgrid[0:4, 0:120, 0:160]
tifffile.imwrite(sys.argv[1], np.stack([x, y, x + y], axis=1).astype(np.uint16), imagej=True, metadata={'axes': 'ZCYX'})
`, stack)
	v := startViewer(t, bin, dir, filepath.Join(dir, "trace.jsonl"), stack)
	v.frameAt(0, 2, true)
	h := v.windowHeight()
	shot := filepath.Join(dir, "shot.png")
	// The titles' places in the bar (Fyne's default theme): File, View, Go,
	// Measure, Help.
	for _, m := range []struct {
		name string
		x    int
	}{{"File", 27}, {"View", 73}, {"Go", 118}, {"Measure", 175}, {"Help", 239}} {
		testtool.Run(t, "import", "-window", v.win, shot)
		closed := testtool.ReadPNG(t, shot)
		testtool.Run(t, "xdotool", "mousemove", "--window", v.win, fmt.Sprint(m.x), "14", "click", "1")
		// The menu has opened when the column under the title changed.
		var img image.Image
		waitFor(t, "the "+m.name+" menu", 10*time.Second, func() bool {
			testtool.Run(t, "import", "-window", v.win, shot)
			img = testtool.ReadPNG(t, shot)
			return img.At(m.x, 100) != closed.At(m.x, 100)
		})
		// The menu's background runs down the column from its top; a
		// separator or a check mark breaks it for a few rows only.
		// It is followed just inside the menu's left edge, left of every
		// item's text.
		bg := img.At(m.x, 32)
		col := m.x
		for col > 0 && img.At(col-1, 32) == bg {
			col--
		}
		col += 3
		bottom, gap := 32, 0
		for y := 33; y < img.Bounds().Dy() && gap < 6; y++ {
			if img.At(col, y) == bg {
				bottom, gap = y, 0
			} else {
				gap++
			}
		}
		t.Logf("%s menu: rows 27 to %d of a window %d high", m.name, bottom, h)
		if bottom >= h-12 { // a menu that scrolls is cut 9 rows above the bottom
			t.Errorf("the %s menu reaches the window's bottom (row %d of %d): it scrolls, its keys under the scroll bar (screenshot %s)",
				m.name, bottom, h, shot)
		}
		v.key("Escape")
		waitFor(t, "the "+m.name+" menu to close", 10*time.Second, func() bool {
			testtool.Run(t, "import", "-window", v.win, shot)
			return testtool.ReadPNG(t, shot).At(m.x, 100) != bg
		})
	}
}

// TestWindowOverlaysOnTheImage opens a plane with a physical pixel size
// that the default window shows with margins beside it: the scale bar
// and the time stamp (what B and T take away) lie on the image, written
// anti-aliased (an outline font, not a bitmap one), and Save View as PNG
// (Ctrl+S, Enter) writes the image's part of the view, not the margins.
func TestWindowOverlaysOnTheImage(t *testing.T) {
	dir, bin := windowTest(t)
	stack := filepath.Join(dir, "plane.tif")
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
z, y, x = np.mgrid[0:3, 0:300, 0:400]
tifffile.imwrite(sys.argv[1], (1000 + x * 3 + y * 2 + z).astype(np.uint16), imagej=True,
    resolution=(2, 2), metadata={'axes': 'ZYX', 'unit': 'um'})
`, stack)
	v := startViewer(t, bin, dir, filepath.Join(dir, "trace.jsonl"), stack)
	v.frameAt(0, 1, true)
	shot := func(name string) image.Image {
		p := filepath.Join(dir, name)
		testtool.Run(t, "import", "-window", v.win, p)
		return testtool.ReadPNG(t, p)
	}
	// The screen after keys: once it changed, and the trace's last
	// frame is complete.
	waitFor(t, "the layout event", 10*time.Second, func() bool { return v.count("layout") > 0 })
	pic := v.events("layout")[0]["picture"].([]any)
	px, py := int(pic[0].(float64)), int(pic[1].(float64))
	picture := image.Rect(px, py, px+int(pic[2].(float64)), py+int(pic[3].(float64)))
	// The screen after keys: the trace's last frame is a complete one
	// drawn after the last key, and two screenshots in a row agree.
	afterKeys := func(name string, keys ...string) (map[string]any, image.Image) {
		nkeys := v.count("key")
		v.key(keys...)
		waitFor(t, "the keys "+strings.Join(keys, " "), 10*time.Second, func() bool { return v.count("key") == nkeys+len(keys) })
		keyed := v.events("key")[nkeys+len(keys)-1]["ms"].(float64)
		var f map[string]any
		waitFor(t, "a frame after "+strings.Join(keys, " "), 20*time.Second, func() bool {
			f = nil
			for _, e := range traceEvents(t, v.trace) {
				if e["event"] == "frame_shown" || e["event"] == "refined" {
					f = e
				}
			}
			return f != nil && f["complete"] == true && f["ms"].(float64) > keyed
		})
		img := shot(name)
		waitFor(t, "the screen to settle", 10*time.Second, func() bool {
			prev := img
			img = shot(name)
			return sameImage(img, prev, picture)
		})
		return f, img
	}
	f, with := afterKeys("with.png", "t") // the time stamp on (the scale bar is on by default)
	_, without := afterKeys("without.png", "b", "t")
	w, h := int(f["width"].(float64)), int(f["height"].(float64))
	zoom, cx, cy := f["zoom"].(float64), f["cx"].(float64), f["cy"].(float64)
	img := image.Rect(int(math.Round(float64(w)/2-cx*zoom)), int(math.Round(float64(h)/2-cy*zoom)),
		int(math.Round(float64(w)/2+(400-cx)*zoom)), int(math.Round(float64(h)/2+(300-cy)*zoom)))
	if img.Min.X < 20 {
		t.Fatalf("the image %v fills the view's width %d: no margin to test", img, w)
	}
	var drawn image.Rectangle
	outside, grey := 0, 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			a, b := with.At(px+x, py+y), without.At(px+x, py+y)
			if a == b {
				continue
			}
			drawn = drawn.Union(image.Rect(x, y, x+1, y+1))
			if !image.Pt(x, y).In(img) {
				outside++
			}
			if r, g, bl, _ := a.RGBA(); !(r == g && g == bl && (r>>8 == 0 || r>>8 == 255)) {
				grey++ // neither black nor white: anti-aliased ink
			}
		}
	}
	t.Logf("overlays drawn over %v of the view, the image at %v; %d pixels of anti-aliased ink", drawn, img, grey)
	if drawn.Empty() {
		t.Fatal("no scale bar or time stamp drawn")
	}
	if outside > 0 {
		t.Errorf("%d pixels of the scale bar and time stamp lie beside the image %v (drawn over %v)", outside, img, drawn)
	}
	if grey < 20 {
		t.Errorf("the overlays' text has %d anti-aliased pixels: a bitmap font", grey)
	}

	// Ctrl+S, Enter: the PNG offered (named after the plane) is the image.
	v.key("ctrl+s")
	waitFor(t, "the save dialog", 10*time.Second, func() bool {
		return shot("dialog.png").At(px+w/2, py+h/2) != without.At(px+w/2, py+h/2)
	})
	v.key("Return")
	saved := filepath.Join(dir, "plane_z001_t000.png")
	waitFor(t, "the saved view", 20*time.Second, func() bool {
		_, err := os.Stat(saved)
		return err == nil
	})
	var b image.Rectangle
	waitFor(t, "the PNG written whole", 10*time.Second, func() bool {
		f, err := os.Open(saved)
		if err != nil {
			return false
		}
		defer f.Close()
		c, err := png.DecodeConfig(f)
		b = image.Rect(0, 0, c.Width, c.Height)
		return err == nil
	})
	if b.Dx() != img.Dx() || b.Dy() != img.Intersect(image.Rect(0, 0, w, h)).Dy() {
		t.Errorf("saved a PNG of %dx%d, want the image's %dx%d (the view is %dx%d)", b.Dx(), b.Dy(), img.Dx(), min(img.Dy(), h), w, h)
	}
}

// sameImage reports whether a and b have the same pixels in r.
func sameImage(a, b image.Image, r image.Rectangle) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if a.At(x, y) != b.At(x, y) {
				return false
			}
		}
	}
	return true
}

// TestWindowHoverShowsEveryValue hovers over a three-channel stack with
// long channel names and a label image laid over it, at the default
// window size: the read-out shows the three channels' values and the
// label id under the pointer (as the files hold them at the position it
// names), and its text fits the room it has.
func TestWindowHoverShowsEveryValue(t *testing.T) {
	dir, bin := windowTest(t)
	img, labels := filepath.Join(dir, "cells.tif"), filepath.Join(dir, "labels.tif")
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
z, y, x = np.mgrid[0:4, 0:300, 0:400]
c = np.stack([10000 + x * 50, 20000 + y * 40, 30000 + x + y], axis=1).astype(np.uint16)
tifffile.imwrite(sys.argv[1], c, imagej=True, resolution=(2, 2),
    metadata={'axes': 'ZCYX', 'unit': 'um', 'mode': 'composite', 'Labels': ['Hoechst-33342', 'AlexaFluor-488', 'AlexaFluor-647']})
tifffile.imwrite(sys.argv[2], (x // 40 + 1 + (y // 40) * 10).astype(np.uint16), imagej=True,
    resolution=(2, 2), metadata={'axes': 'ZYX', 'unit': 'um'})
`, img, labels)
	v := startViewer(t, bin, dir, filepath.Join(dir, "trace.jsonl"), img, "--overlay", labels)
	v.frameAt(0, 2, true)
	waitFor(t, "the layout event", 10*time.Second, func() bool { return v.count("layout") > 0 })
	pic := v.events("layout")[0]["picture"].([]any)
	mx, my := int(pic[0].(float64)+pic[2].(float64)/2), int(pic[1].(float64)+pic[3].(float64)/2)
	var e map[string]any
	waitFor(t, "a read-out with the label", 20*time.Second, func() bool {
		testtool.Run(t, "xdotool", "mousemove", "--window", v.win, fmt.Sprint(mx), fmt.Sprint(my))
		mx++ // a move each time: the read-out follows the pointer
		for _, h := range v.events("hover") {
			if strings.Contains(h["text"].(string), "label") {
				e = h
			}
		}
		return e != nil
	})
	text := e["text"].(string)
	t.Logf("read-out %q: %v of %v pixels", text, e["width"], e["room"])
	var x, y int
	if _, err := fmt.Sscanf(text, "X %d Y %d", &x, &y); err != nil {
		t.Fatalf("no position in %q", text)
	}
	for _, want := range []string{
		fmt.Sprintf("Hoechst-33342 %d", 10000+x*50), fmt.Sprintf("AlexaFluor-488 %d", 20000+y*40),
		fmt.Sprintf("AlexaFluor-647 %d", 30000+x+y), fmt.Sprintf("label %d", x/40+1+(y/40)*10),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the read-out %q lacks %q", text, want)
		}
	}
	if e["width"].(float64) > e["room"].(float64) {
		t.Errorf("the read-out is %v pixels wide in %v: cut", e["width"], e["room"])
	}
}
