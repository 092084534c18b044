package main

import (
	"fmt"
	"image"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"vastview/internal/testtool"
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
		for _, e := range v.events("frame_shown") {
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
	// The titles' places in the bar (Fyne's default theme): File, View, Go, Help.
	for _, m := range []struct {
		name string
		x    int
	}{{"File", 27}, {"View", 73}, {"Go", 118}, {"Help", 163}} {
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
		bg := img.At(m.x, 32)
		bottom, gap := 32, 0
		for y := 33; y < img.Bounds().Dy() && gap < 6; y++ {
			if img.At(m.x, y) == bg {
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
			return testtool.ReadPNG(t, shot).At(m.x, 100) == closed.At(m.x, 100)
		})
	}
}
