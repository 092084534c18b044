package main

import (
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vastview/base/testtool"
)

// writeWells writes TIFF stacks at paths, each of its own brightness.
func writeWells(t *testing.T, paths ...string) {
	t.Helper()
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
z, y, x = np.mgrid[0:4, 0:120, 0:160]
for i, path in enumerate(sys.argv[1:]):
    tifffile.imwrite(path, (x * 50 + y * 30 + z * 700 + i * 4000).astype(np.uint16))
`, paths...)
}

// shot takes a screenshot of the viewer's window, keeps it as name in
// dir (and in $VASTVIEW_SHOTS, to look at), and returns it.
func (v *viewer) shot(dir, name string) image.Image {
	v.t.Helper()
	p := filepath.Join(dir, name)
	testtool.Run(v.t, "import", "-window", v.win, p)
	if keep := os.Getenv("VASTVIEW_SHOTS"); keep != "" { // a folder to look at them in
		testtool.Run(v.t, "cp", p, filepath.Join(keep, v.t.Name()+"-"+name))
	}
	return testtool.ReadPNG(v.t, p)
}

// title is the window's title now.
func (v *viewer) title() string {
	out, _ := exec.Command("xdotool", "getwindowname", v.win).Output()
	return strings.TrimSpace(string(out))
}

// errorWith waits for an error event whose message holds text.
func (v *viewer) errorWith(text string) map[string]any {
	v.t.Helper()
	var got map[string]any
	waitFor(v.t, "an error event with "+text, 20*time.Second, func() bool {
		for _, e := range v.events("error") {
			if strings.Contains(e["message"].(string), text) {
				got = e
				return true
			}
		}
		return false
	})
	return got
}

// TestWindowBrowsesAFolderAmongFiles gives a DICOM series (a folder of
// files without an extension) between two TIFF files: Alt+→ goes from the
// first file to the series, then to the last file.
func TestWindowBrowsesAFolderAmongFiles(t *testing.T) {
	dir, bin := windowTest(t)
	series := testtool.SharedData(t, "dicom/CT5N_series")
	a, b := filepath.Join(dir, "a.tif"), filepath.Join(dir, "b.tif")
	writeWells(t, a, b)
	v := startViewer(t, bin, dir, filepath.Join(dir, "trace.jsonl"), a, series, b)
	for i, want := range []string{series, b} {
		v.key("alt+Right")
		waitFor(t, "the first image of "+want, 20*time.Second, func() bool { return v.count("first_image") == i+2 })
		if opens := v.events("open"); opens[len(opens)-1]["path"] != want {
			t.Fatalf("Alt+→ opened %v, want %s", opens[len(opens)-1]["path"], want)
		}
		if i == 0 {
			open := v.events("open")[i+1]["ms"].(float64)
			waitFor(t, "a complete frame of the series", 20*time.Second, func() bool {
				for _, e := range append(v.events("frame_shown"), v.events("refined")...) {
					if e["ms"].(float64) > open && e["complete"] == true {
						return true
					}
				}
				return false
			})
			waitFor(t, "the title to name the series", 10*time.Second, func() bool {
				return strings.Contains(v.title(), "CT5N_series — 2/3")
			})
			v.shot(dir, "series.png")
		}
	}
}

// TestWindowSaysWhyAFileDoesNotOpen browses three files of which the
// second is not an image: its card says why in red where its thumbnail
// would be, Alt+→ past it says in the status bar (and trace) that it was
// skipped and why, and a click on its card selects it and says why it
// cannot be shown, the file shown staying.
func TestWindowSaysWhyAFileDoesNotOpen(t *testing.T) {
	dir, bin := windowTest(t)
	one, bad, three := filepath.Join(dir, "one.tif"), filepath.Join(dir, "bad.tif"), filepath.Join(dir, "three.tif")
	writeWells(t, one, three)
	os.WriteFile(bad, []byte("II*\x00 this is not an image"), 0o644)
	v := startViewer(t, bin, dir, filepath.Join(dir, "trace.jsonl"), one, bad, three)
	v.key("alt+Right")
	skipped := v.errorWith("skipped bad.tif (")
	waitFor(t, "three.tif's first image", 20*time.Second, func() bool { return v.count("first_image") == 2 })
	why := strings.TrimSuffix(strings.TrimPrefix(skipped["message"].(string), "skipped bad.tif ("), ")")
	// The card of bad.tif: the red of its reason.
	var red image.Rectangle
	waitFor(t, "the card of bad.tif to say why", 10*time.Second, func() bool {
		red = redText(v.shot(dir, "strip.png"))
		return !red.Empty()
	})
	opens := v.count("open")
	mid := red.Min.Add(red.Max).Div(2)
	testtool.Run(t, "xdotool", "mousemove", "--window", v.win, fmt.Sprint(mid.X), fmt.Sprint(mid.Y), "click", "1")
	v.errorWith("bad.tif cannot be shown: " + why)
	waitFor(t, "the title to name bad.tif", 10*time.Second, func() bool {
		return strings.Contains(v.title(), "bad.tif (cannot be shown) — 2/3")
	})
	v.shot(dir, "picked.png")
	if n := v.count("open"); n != opens {
		t.Errorf("a click on bad.tif opened %v", v.events("open")[opens:])
	}
}

// redText is the box around the strongly red pixels of img (the error
// colour of the theme), empty when there are none.
func redText(img image.Image) image.Rectangle {
	var box image.Rectangle
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 > 180 && g>>8 < 110 && bl>>8 < 110 {
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return box
}

// TestWindowOpensOnAFileThatDoesNotOpen runs the viewer on a file that is
// not an image, as from a desktop: stderr has the one line, the window
// opens saying why (the error event, its title), and File → Open is ready:
// Escape closes the error, Ctrl+O opens the dialog, a path typed there and
// Enter open that file.
func TestWindowOpensOnAFileThatDoesNotOpen(t *testing.T) {
	dir, bin := windowTest(t)
	bad, good := filepath.Join(dir, "bad.tif"), filepath.Join(dir, "good.tif")
	os.WriteFile(bad, []byte("II*\x00 this is not an image"), 0o644)
	writeWells(t, good)
	v := launchViewer(t, bin, dir, filepath.Join(dir, "trace.jsonl"), false, bad)
	e := v.errorWith("bad.tif: ")
	waitFor(t, "the title to name bad.tif", 10*time.Second, func() bool {
		return strings.Contains(v.title(), "bad.tif (cannot be shown)")
	})
	waitFor(t, "the window to be drawn", 10*time.Second, func() bool { return !blank(v.shot(dir, "error.png")) })
	if line := strings.TrimSpace(v.stderr.String()); !strings.HasPrefix(line, "vastview: "+bad+": ") || strings.Contains(line, "\n") {
		t.Errorf("stderr %q (error event %v)", line, e)
	}
	v.key("Escape")
	v.key("ctrl+o")
	v.key("ctrl+a")
	testtool.Run(t, "xdotool", "type", "--window", v.win, good)
	v.shot(dir, "open.png")
	v.key("Return")
	waitFor(t, "good.tif's first image", 20*time.Second, func() bool { return v.count("first_image") == 1 })
	if opens := v.events("open"); opens[0]["path"] != good {
		t.Errorf("opened %v", opens)
	}
}

// blank reports whether every pixel of img is the same (a window not drawn
// yet).
func blank(img image.Image) bool {
	b := img.Bounds()
	first := img.At(b.Min.X, b.Min.Y)
	for y := b.Min.Y; y < b.Max.Y; y += 4 {
		for x := b.Min.X; x < b.Max.X; x += 4 {
			if img.At(x, y) != first {
				return false
			}
		}
	}
	return true
}
