package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"image"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vastview/internal/testtool"
)

// traceEvents reads a --trace file.
func traceEvents(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var evs []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			continue // a line being written
		}
		evs = append(evs, e)
	}
	return evs
}

func waitFor(t *testing.T, what string, timeout time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestWindowEndToEnd runs the built viewer in a real window on a TIFF
// stack written by tifffile, presses keys with xdotool, and checks the
// trace and a screenshot against `vastview plane --out .png`.
func TestWindowEndToEnd(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no DISPLAY under CI (.ci/test starts Xvfb)")
		}
		t.Skip("no DISPLAY")
	}
	testtool.Require(t, "xdotool")
	testtool.Require(t, "import")
	testtool.RequirePython(t, "tifffile", "numpy")
	dir := t.TempDir()
	bin := filepath.Join(dir, "vastview")
	testtool.Run(t, "go", "build", "-o", bin, ".")
	stack := filepath.Join(dir, "stack.tif")
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
z, y, x = np.mgrid[0:30, 0:200, 0:300]
a = (x * 40 + y * 20 + z * 500 + (x // 10 % 2) * 3000).astype(np.uint16)
tifffile.imwrite(sys.argv[1], a)
`, stack)

	trace := filepath.Join(dir, "trace.jsonl")
	cmd := exec.Command(bin, "--trace", trace, stack)
	cmd.Env = append(os.Environ(), "LANG=en_US.UTF-8", "XDG_CACHE_HOME="+filepath.Join(dir, "cache"),
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("viewer stderr:\n%s", stderr.String())
		}
	}()
	count := func(name string) int {
		n := 0
		for _, e := range traceEvents(t, trace) {
			if e["event"] == name {
				n++
			}
		}
		return n
	}
	waitFor(t, "first_image", 60*time.Second, func() bool { return count("first_image") == 1 })
	var win string
	waitFor(t, "the window", 20*time.Second, func() bool {
		out, _ := exec.Command("xdotool", "search", "--name", "stack\\.tif").Output()
		ids := strings.Fields(string(out))
		if len(ids) > 0 {
			win = ids[len(ids)-1]
		}
		return win != ""
	})
	testtool.Run(t, "xdotool", "windowfocus", win)

	// Five steps forward, one at a time.
	const keys = 5
	before := count("frame_shown")
	for i := 0; i < keys; i++ {
		testtool.Run(t, "xdotool", "key", "period")
		want := before + i + 1
		waitFor(t, fmt.Sprintf("frame %d", i+1), 10*time.Second, func() bool { return count("frame_shown") >= want })
	}
	if n := count("key"); n != keys {
		t.Errorf("%d key events, want %d", n, keys)
	}
	// The last frame shown is plane 15 + 5, complete once refined.
	var last map[string]any
	waitFor(t, "a complete frame of z 20", 20*time.Second, func() bool {
		for _, e := range traceEvents(t, trace) {
			if (e["event"] == "frame_shown" || e["event"] == "refined") && e["z"] == 20.0 && e["complete"] == true {
				last = e
				return true
			}
		}
		return false
	})
	time.Sleep(300 * time.Millisecond) // the frame reaches the screen

	shot := filepath.Join(dir, "shot.png")
	testtool.Run(t, "import", "-window", win, shot)
	screen := testtool.ReadPNG(t, shot)
	ref := filepath.Join(dir, "ref.png")
	lo, hi := last["lo"].(float64), last["hi"].(float64)
	testtool.Run(t, bin, "plane", stack, "--z", "20", "--out", ref, "--level-range", fmt.Sprintf("%g,%g", lo, hi))
	compareView(t, screen, testtool.ReadPNG(t, ref), last)
}

// compareView finds the view area in the window's screenshot and checks
// that every pixel of it is the reference plane sampled as the viewer
// samples it at the frame's zoom and centre (pixels within 1% of a sample
// boundary are skipped: the two sides may round differently).
func compareView(t *testing.T, screen, ref image.Image, f map[string]any) {
	t.Helper()
	w, h := int(f["width"].(float64)), int(f["height"].(float64))
	zoom, cx, cy := f["zoom"].(float64), f["cx"].(float64), f["cy"].(float64)
	rb := ref.Bounds()
	expect := func(x, y int) (r, g, b uint32, ok bool) {
		u := cx + (float64(x)+0.5-float64(w)/2)/zoom
		v := cy + (float64(y)+0.5-float64(h)/2)/zoom
		if fu, fv := u-math.Floor(u), v-math.Floor(v); fu < 0.01 || fu > 0.99 || fv < 0.01 || fv > 0.99 {
			return 0, 0, 0, false
		}
		col, row := int(math.Floor(u)), int(math.Floor(v))
		if col < 0 || row < 0 || col >= rb.Dx() || row >= rb.Dy() {
			return 32 << 8, 32 << 8, 32 << 8, true
		}
		r, g, b, _ = ref.At(col, row).RGBA()
		return r, g, b, true
	}
	sb := screen.Bounds()
	if sb.Dx() < w || sb.Dy() < h {
		t.Fatalf("screenshot %v smaller than the view %dx%d", sb, w, h)
	}
	// The view's offset in the window: the one where the pixels match.
	bestOff, bestBad := image.Point{}, -1
	for oy := 0; oy+h <= sb.Dy(); oy++ {
		for ox := 0; ox+w <= sb.Dx() && ox < 40; ox++ {
			bad := mismatches(screen, image.Pt(ox, oy), w, h, 7, expect)
			if bestBad < 0 || bad < bestBad {
				bestOff, bestBad = image.Pt(ox, oy), bad
			}
		}
	}
	if bad := mismatches(screen, bestOff, w, h, 1, expect); bad != 0 {
		t.Errorf("view at %v: %d of %d pixels differ from vastview plane --out .png", bestOff, bad, w*h)
	}
	// Not blank: the view shows many grey levels.
	seen := map[uint32]bool{}
	for y := 0; y < h; y += 3 {
		for x := 0; x < w; x += 3 {
			r, _, _, _ := screen.At(bestOff.X+x, bestOff.Y+y).RGBA()
			seen[r>>8] = true
		}
	}
	if len(seen) < 50 {
		t.Errorf("the view shows only %d grey levels", len(seen))
	}
}

func mismatches(screen image.Image, off image.Point, w, h, step int, expect func(x, y int) (r, g, b uint32, ok bool)) int {
	bad := 0
	for y := 0; y < h; y += step {
		for x := 0; x < w; x += step {
			er, eg, eb, ok := expect(x, y)
			if !ok {
				continue
			}
			r, g, b, _ := screen.At(off.X+x, off.Y+y).RGBA()
			if r>>8 != er>>8 || g>>8 != eg>>8 || b>>8 != eb>>8 {
				bad++
			}
		}
	}
	return bad
}
