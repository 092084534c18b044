package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"vastview/base/testtool"
	"vastview/loader"
	"vastview/render"
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

// waitFor polls ok, a look at another process (its trace file, its
// window), until it holds, failing after timeout.
func waitFor(t *testing.T, what string, timeout time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// windowTest checks that the test can drive a real window (under CI it
// must), and builds the program into a new folder, which it returns.
func windowTest(t *testing.T) (dir, bin string) {
	t.Helper()
	testtool.Long(t, "a real window driven through X (under -short, TestStderrUnderCLocale opens one)")
	if os.Getenv("DISPLAY") == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no DISPLAY under CI (.ci/test starts Xvfb)")
		}
		t.Skip("no DISPLAY")
	}
	testtool.Require(t, "xdotool")
	testtool.Require(t, "import")
	testtool.RequirePython(t, "tifffile", "numpy")
	dir = t.TempDir()
	bin = filepath.Join(dir, "vastview")
	testtool.Run(t, "go", "build", "-o", bin, ".")
	return dir, bin
}

// viewer is the built program running in a real window, with its trace.
type viewer struct {
	t      *testing.T
	cmd    *exec.Cmd
	trace  string
	win    string
	stderr *syncBuffer
}

// syncBuffer is what a child process wrote, safe to read while it writes.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

// Write implements io.Writer.
func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written so far.
func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// startViewer runs bin on the files with the trace at trace and the
// user's folders under home, and waits for its first image and its window.
func startViewer(t *testing.T, bin, home, trace string, files ...string) *viewer {
	t.Helper()
	return launchViewer(t, bin, home, trace, true, files...)
}

// launchViewer runs bin on the files as startViewer does, waiting for its
// first image only when first is true, and then for its window (whose
// title names the first file).
func launchViewer(t *testing.T, bin, home, trace string, first bool, files ...string) *viewer {
	t.Helper()
	file := files[0]
	v := &viewer{t: t, trace: trace, stderr: &syncBuffer{}}
	v.cmd = exec.Command(bin, append([]string{"--trace", trace}, files...)...)
	v.cmd.Env = append(os.Environ(), "LANG=en_US.UTF-8", "GOTRACEBACK=all", "XDG_CACHE_HOME="+filepath.Join(home, "cache"),
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"))
	v.cmd.Stderr = v.stderr
	if err := v.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			// Every goroutine's stack, to tell a stuck UI from a slow one.
			v.cmd.Process.Signal(syscall.SIGQUIT)
			done := make(chan struct{})
			go func() { v.cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				v.cmd.Process.Kill()
				<-done
			}
			t.Logf("viewer stderr:\n%s", v.stderr.String())
			return
		}
		v.cmd.Process.Kill()
		v.cmd.Wait()
	})
	if first {
		waitFor(t, "first_image", 60*time.Second, func() bool { return v.count("first_image") == 1 })
	}
	name := strings.ReplaceAll(filepath.Base(file), ".", "\\.")
	waitFor(t, "the window", 20*time.Second, func() bool {
		out, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", name).Output()
		if ids := strings.Fields(string(out)); len(ids) > 0 {
			v.win = ids[len(ids)-1]
		}
		return v.win != ""
	})
	testtool.Run(t, "xdotool", "windowfocus", v.win)
	return v
}

// events returns the trace's events called name.
func (v *viewer) events(name string) []map[string]any {
	var out []map[string]any
	for _, e := range traceEvents(v.t, v.trace) {
		if e["event"] == name {
			out = append(out, e)
		}
	}
	return out
}

func (v *viewer) count(name string) int { return len(v.events(name)) }

// key presses keys in the window.
func (v *viewer) key(keys ...string) {
	v.t.Helper()
	testtool.Run(v.t, "xdotool", append([]string{"key", "--window", v.win}, keys...)...)
}

// click clicks the middle of the control the layout event names.
func (v *viewer) click(control string) {
	v.t.Helper()
	waitFor(v.t, "the layout event", 10*time.Second, func() bool { return v.count("layout") > 0 })
	r := v.events("layout")[0][control].([]any)
	x, y := r[0].(float64)+r[2].(float64)/2, r[1].(float64)+r[3].(float64)/2
	testtool.Run(v.t, "xdotool", "mousemove", "--window", v.win, fmt.Sprint(int(x)), fmt.Sprint(int(y)), "click", "1")
}

// frameAt waits for a frame (shown or refined) of plane z, complete if
// asked, after the n-th frame event, and returns it.
func (v *viewer) frameAt(after int, z float64, complete bool) map[string]any {
	v.t.Helper()
	var f map[string]any
	waitFor(v.t, fmt.Sprintf("a frame of z %g", z), 20*time.Second, func() bool {
		evs := traceEvents(v.t, v.trace)
		n := 0
		for _, e := range evs {
			if e["event"] != "frame_shown" && e["event"] != "refined" {
				continue
			}
			n++
			if n > after && e["z"] == z && (!complete || e["complete"] == true) {
				f = e
				return true
			}
		}
		return false
	})
	return f
}

func (v *viewer) frames() int { return v.count("frame_shown") + v.count("refined") }

// TestWindowEndToEnd runs the built viewer in a real window on a TIFF
// stack written by tifffile and drives it with xdotool: keys step planes
// (also after choosing from the colormap menu and after cancelling the
// save dialog held with Ctrl), the picture on screen equals `vastview
// plane --out .png`, and quitting then opening the file again restores the
// view.
func TestWindowEndToEnd(t *testing.T) {
	dir, bin := windowTest(t)
	stack := filepath.Join(dir, "stack.tif")
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
z, y, x = np.mgrid[0:30, 0:200, 0:300]
a = (x * 40 + y * 20 + z * 500 + (x // 10 % 2) * 3000).astype(np.uint16)
tifffile.imwrite(sys.argv[1], a)
`, stack)

	v := startViewer(t, bin, dir, filepath.Join(dir, "trace.jsonl"), stack)
	// Five steps forward, one at a time.
	const keys = 5
	for i := 0; i < keys; i++ {
		n := v.frames()
		v.key("period")
		v.frameAt(n, float64(15+i+1), false)
	}
	if n := v.count("key"); n != keys {
		t.Errorf("%d key events, want %d", n, keys)
	}
	// The last frame shown is plane 15 + 5, complete once refined; the
	// screenshot shows it once it has reached the screen.
	last := v.frameAt(0, 20, true)
	ref := filepath.Join(dir, "ref.png")
	lo, hi := last["lo"].(float64), last["hi"].(float64)
	testtool.Run(t, bin, "plane", stack, "--z", "20", "--out", ref, "--level-range", fmt.Sprintf("%g,%g", lo, hi))
	want := testtool.ReadPNG(t, ref)
	shot := filepath.Join(dir, "shot.png")
	waitFor(t, "the screen to show plane 20", 10*time.Second, func() bool {
		testtool.Run(t, "import", "-window", v.win, shot)
		return matchView(testtool.ReadPNG(t, shot), want, last) == nil
	})
	if err := matchView(testtool.ReadPNG(t, shot), want, last); err != nil {
		t.Error(err)
	}

	// The colormap menu, then keys: they step planes, and Space plays.
	v.click("colormap")
	v.key("Down", "Down", "Down", "Down", "Return") // fire, glasbey, gray, gray-inverted
	n := v.frames()
	v.key("period")
	if f := v.frameAt(n, 21, false); f["colormap"] != "gray-inverted" {
		t.Errorf("after the colormap menu the colormap is %v", f["colormap"])
	}
	v.key("space")
	waitFor(t, "playback past plane 23", 20*time.Second, func() bool {
		for _, e := range v.events("frame_shown") {
			if e["z"].(float64) >= 23 {
				return true
			}
		}
		return false
	})
	v.key("space")
	waitFor(t, "playback to stop", 10*time.Second, func() bool { return v.count("key") >= keys+3 })

	// Ctrl+S, then Escape: Ctrl is not held any more.
	v.key("Home")
	v.frameAt(v.frames()-1, 0, false)
	v.key("ctrl+s")
	v.key("Escape")
	n = v.frames()
	v.key("period")
	f := v.frameAt(n, 1, false)
	if f == nil {
		t.Fatal("no frame after the save dialog")
	}
	n = v.frames()
	v.key("2") // the XZ plane
	f = v.frameAt(n, 1, true)
	if f["plane"] != "xz" {
		t.Fatalf("after 2 the plane is %v", f["plane"])
	}

	// Quit (a signal, as closing the window does), open again: the view is back.
	v.cmd.Process.Signal(syscall.SIGTERM)
	if err := v.cmd.Wait(); err != nil {
		t.Fatalf("the viewer ended with %v on SIGTERM", err)
	}
	v2 := startViewer(t, bin, dir, filepath.Join(dir, "trace2.jsonl"), stack)
	first := v2.events("frame_shown")[0]
	if first["plane"] != "xz" || first["z"] != 1.0 {
		t.Errorf("reopened at plane %v z %v, want xz 1", first["plane"], first["z"])
	}
}

// matchView finds the view area in the window's screenshot and checks
// that every pixel of it is the reference plane sampled as the viewer
// samples it at the frame's zoom and centre (pixels within 1% of a sample
// boundary are skipped: the two sides may round differently), and that it
// is not blank.
func matchView(screen, ref image.Image, f map[string]any) error {
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
		return fmt.Errorf("screenshot %v smaller than the view %dx%d", sb, w, h)
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
		return fmt.Errorf("view at %v: %d of %d pixels differ from vastview plane --out .png", bestOff, bad, w*h)
	}
	seen := map[uint32]bool{}
	for y := 0; y < h; y += 3 {
		for x := 0; x < w; x += 3 {
			r, _, _, _ := screen.At(bestOff.X+x, bestOff.Y+y).RGBA()
			seen[r>>8] = true
		}
	}
	if len(seen) < 50 {
		return fmt.Errorf("the view shows only %d grey levels", len(seen))
	}
	return nil
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

// TestWindowBrowsesFiles starts the viewer on three files given on the
// command line and presses Alt+→ twice: the third file's open and
// first_image follow the key (the time between them is logged: the figure
// is in docs/PERFORMANCE.md), and the screen shows it as `vastview plane
// --out .png` draws it.
func TestWindowBrowsesFiles(t *testing.T) {
	dir, bin := windowTest(t)
	var files []string
	for i := range 3 {
		files = append(files, filepath.Join(dir, fmt.Sprintf("well%d.tif", i+1)))
	}
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
z, y, x = np.mgrid[0:12, 0:180, 0:240]
for i, path in enumerate(sys.argv[1:]):
    a = (x * 50 + y * 30 + z * 700 + i * 4000 + (x // 8 % 2) * 2000).astype(np.uint16)
    tifffile.imwrite(path, a)
`, files...)
	v := startViewer(t, bin, dir, filepath.Join(dir, "trace.jsonl"), files...)
	for want := 2; want <= 3; want++ {
		v.key("alt+Right")
		waitFor(t, fmt.Sprintf("file %d's first image", want), 20*time.Second, func() bool { return v.count("first_image") == want })
	}
	opens, firsts := v.events("open"), v.events("first_image")
	if len(opens) != 3 || opens[2]["path"] != files[2] {
		t.Fatalf("open events %v", opens)
	}
	keys := v.events("key")
	if len(keys) != 2 || keys[1]["key"] != "Alt+Right" {
		t.Fatalf("key events %v", keys)
	}
	t.Logf("Alt+→ to the third file's first image: %.1f ms (open → first_image %.1f ms)",
		firsts[2]["ms"].(float64)-keys[1]["ms"].(float64), firsts[2]["ms"].(float64)-opens[2]["ms"].(float64))
	if !(keys[1]["ms"].(float64) <= opens[2]["ms"].(float64) && opens[2]["ms"].(float64) <= firsts[2]["ms"].(float64)) {
		t.Errorf("key, open and first_image out of order: %v %v %v", keys[1], opens[2], firsts[2])
	}
	last := v.frameAt(0, 6, true)
	for _, e := range append(v.events("frame_shown"), v.events("refined")...) {
		if e["ms"].(float64) > opens[2]["ms"].(float64) && e["complete"] == true {
			last = e
		}
	}
	ref := filepath.Join(dir, "ref.png")
	testtool.Run(t, bin, "plane", files[2], "--z", fmt.Sprint(last["z"]), "--out", ref,
		"--level-range", fmt.Sprintf("%g,%g", last["lo"].(float64), last["hi"].(float64)))
	want := testtool.ReadPNG(t, ref)
	shot := filepath.Join(dir, "shot.png")
	waitFor(t, "the screen to show the third file", 10*time.Second, func() bool {
		testtool.Run(t, "import", "-window", v.win, shot)
		return matchView(testtool.ReadPNG(t, shot), want, last) == nil
	})
}

// TestWindowShowsComposite opens a two-channel ImageJ hyperstack saved by
// tifffile in composite mode, with display ranges and LUTs: the picture on
// screen is the composite `vastview plane --out .png` draws (each channel
// through its range and LUT, added), and Ctrl+1 leaves the first channel
// out of it, as `plane --channels 1` draws.
func TestWindowShowsComposite(t *testing.T) {
	dir, bin := windowTest(t)
	hyper := filepath.Join(dir, "hyper.tif")
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
z, y, x = np.mgrid[0:3, 0:180, 0:260]
a = np.zeros((3, 2, 180, 260), np.uint16)
a[:, 0] = 300 + x * 13 + z * 200
a[:, 1] = 200 + y * 17 + (x // 20 % 2) * 600
green = np.zeros((3, 256), np.uint8); green[1] = np.arange(256)
fire = np.zeros((3, 256), np.uint8)
fire[0] = np.clip(np.arange(256) * 3, 0, 255); fire[1] = np.clip(np.arange(256) * 3 - 255, 0, 255); fire[2] = 255 - np.arange(256)
tifffile.imwrite(sys.argv[1], a, imagej=True, metadata={'axes': 'ZCYX', 'mode': 'composite',
    'Ranges': (500.0, 3500.0, 200.0, 3500.0), 'LUTs': [green, fire], 'Labels': ['GFP', 'Fire']})
`, hyper)
	v := startViewer(t, bin, dir, filepath.Join(dir, "trace.jsonl"), hyper)
	// The window lays out its panels after the first frames, which are
	// drawn again at the new size: the latest complete frame is compared.
	channels := func(n int) func(e map[string]any) bool {
		return func(e map[string]any) bool {
			cs, ok := e["channels"].([]any)
			return ok && len(cs) == n && e["z"] == 1.0
		}
	}
	check := func(n int, args ...string) {
		t.Helper()
		v.showsPlane(bin, dir, fmt.Sprintf("the composite of %d channels", n), channels(n),
			append([]string{"plane", hyper, "--z", "1"}, args...)...)
	}
	check(2)
	v.key("ctrl+1")
	check(1, "--channels", "1")
}

// showsPlane waits until the screen shows the latest complete frame for
// which frame holds, and compares it with the PNG that the command line
// planeArgs (plane SRC ..., without --out) draws.
func (v *viewer) showsPlane(bin, dir, what string, frame func(e map[string]any) bool, planeArgs ...string) {
	t := v.t
	t.Helper()
	latest := func() map[string]any {
		var f map[string]any
		for _, e := range traceEvents(t, v.trace) {
			if e["event"] != "frame_shown" && e["event"] != "refined" {
				continue
			}
			if e["complete"] == true && frame(e) {
				f = e
			} else {
				f = nil
			}
		}
		return f
	}
	ref := filepath.Join(dir, "ref.png")
	testtool.Run(t, bin, append(planeArgs, "--out", ref)...)
	want := testtool.ReadPNG(t, ref)
	shot := filepath.Join(dir, "shot.png")
	err := errors.New("not looked at")
	for deadline := time.Now().Add(20 * time.Second); err != nil && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		f := latest()
		if f == nil {
			err = fmt.Errorf("the last frame is not a complete one of %s", what)
			continue
		}
		testtool.Run(t, "import", "-window", v.win, shot)
		err = matchView(testtool.ReadPNG(t, shot), want, f)
	}
	if err != nil {
		keep := filepath.Join(os.TempDir(), "vastview-"+t.Name()+".png")
		if b, rerr := os.ReadFile(shot); rerr == nil {
			os.WriteFile(keep, b, 0o644)
		}
		t.Errorf("the screen does not show %s: %v (screenshot kept at %s; last frame %v)", what, err, keep, latest())
	}
}

// TestWindowShowsLabels opens an OME-Zarr written by zarr-python with
// omero channels and a labels group (scikit-image labels of one channel
// at half the resolution, placed by a scale and a translation as
// ome-zarr-py writes them): the window shows the composite with the labels
// laid over it, equal to plane --overlay of the same plane.
func TestWindowShowsLabels(t *testing.T) {
	dir, bin := windowTest(t)
	testtool.RequirePython(t, "zarr", "skimage")
	img := filepath.Join(dir, "cells.ome.zarr")
	testtool.RunPython(t, `
import sys, numpy as np, zarr
from skimage import measure, filters
z, y, x = np.mgrid[0:4, 0:160, 0:240]
a = np.zeros((2, 4, 160, 240), np.uint16)
a[0] = 300 + x * 11 + z * 100
blobs = np.zeros((4, 160, 240))
for cy, cx, r in [(40, 60, 22), (110, 170, 30), (120, 50, 15)]:
    blobs += np.exp(-((y - cy) ** 2 + (x - cx) ** 2) / (2 * r * r))
a[1] = (200 + 3000 * blobs).astype(np.uint16)
g = zarr.open_group(sys.argv[1], mode='w')
g.create_dataset('0', data=a, chunks=(1, 1, 80, 80))
axes = [{'name': 'c', 'type': 'channel'}] + [{'name': n, 'type': 'space', 'unit': 'micrometer'} for n in 'zyx']
g.attrs['multiscales'] = [{'version': '0.4', 'axes': axes,
    'datasets': [{'path': '0', 'coordinateTransformations': [{'type': 'scale', 'scale': [1, 1.0, 0.4, 0.4]}]}]}]
g.attrs['omero'] = {'channels': [
    {'label': 'DAPI', 'color': 'FF0000', 'active': True, 'window': {'start': 200, 'end': 3200, 'min': 0, 'max': 65535}},
    {'label': 'GFP', 'color': '00FF00', 'active': True, 'window': {'start': 200, 'end': 3200, 'min': 0, 'max': 65535}}]}
lab = measure.label(filters.gaussian(a[1, :, ::2, ::2].astype(float), 1, preserve_range=True) > 1200).astype(np.uint32)
lg = g.require_group('labels')
lg.attrs['labels'] = ['cells']
cg = lg.require_group('cells')
cg.create_dataset('0', data=lab, chunks=(1, 40, 40))
cg.attrs['multiscales'] = [{'version': '0.4', 'axes': axes[1:],
    'datasets': [{'path': '0', 'coordinateTransformations': [{'type': 'scale', 'scale': [1.0, 0.8, 0.8]},
                                                            {'type': 'translation', 'translation': [0, 0.2, 0.2]}]}]}]
cg.attrs['image-label'] = {'version': '0.4'}
assert lab.max() >= 3
`, img)
	v := startViewer(t, bin, dir, filepath.Join(dir, "trace.jsonl"), img)
	v.key("b") // no scale bar: the picture is compared with the data's samples
	labelled := func(e map[string]any) bool { return e["layers"] == 1.0 && e["z"] == 2.0 }
	v.showsPlane(bin, dir, "the labels over the composite", labelled,
		"plane", img, "--z", "2", "--overlay", filepath.Join(img, "labels", "cells"), "--opacity", "0.7")
}

// TestWindowShowsProjection opens a tifffile stack and presses P: the
// window shows the maximum projection along Z, equal to `plane --project
// max --out .png`.
func TestWindowShowsProjection(t *testing.T) {
	dir, bin := windowTest(t)
	stack := filepath.Join(dir, "stack.tif")
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
z, y, x = np.mgrid[0:15, 0:150, 0:210]
# The maximum is a ramp with plateaus at both ends, reached on a few planes
# only (the others lower), so that auto-contrast over the picture and over
# the projection's samples agree: 800 and 3000.
p = np.clip(200 + 12 * x + 8 * y, 800, 3000)
a = (p - 400 * ((x + y + z) % 5 != 0)).astype(np.uint16)
tifffile.imwrite(sys.argv[1], a)
`, stack)
	v := startViewer(t, bin, dir, filepath.Join(dir, "trace.jsonl"), stack)
	v.key("b", "p") // no scale bar: the picture is compared with the data's samples
	v.showsPlane(bin, dir, "the maximum projection", func(e map[string]any) bool { return e["projection"] == "max" },
		"plane", stack, "--project", "max")
}

// TestWindowFourPanels opens a tifffile stack, lays out the four panels
// (key 4) and clicks a sample in the XY panel: the XY, XZ and YZ panels
// of the screenshot have their crosshairs on that sample's column and row
// (on the plane each shows), and the trace's position is the sample's.
func TestWindowFourPanels(t *testing.T) {
	dir, bin := windowTest(t)
	stack := filepath.Join(dir, "stack.tif")
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
z, y, x = np.mgrid[0:24, 0:96, 0:128]
tifffile.imwrite(sys.argv[1], (100 + 20 * x + 11 * y + 60 * z).astype(np.uint16))
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
	m := loader.NewMeta("t", "ZYX", []int{24, 96, 128}, loader.Uint16, []int{1, 96, 128}, nil, nil)
	screen := func(o render.Orientation, col, row float64) (int, int) {
		pv := render.View{Orientation: o, Width: pw, Height: ph}
		pv.Zoom, pv.Center = render.Fit(m, pv)
		x, y := pv.ToScreen(m, render.Point{Col: col + 0.5, Row: row + 0.5})
		return int(x), int(y)
	}
	cx, cy := screen(render.XY, 40, 30)
	testtool.Run(t, "xdotool", "mousemove", "--window", v.win, fmt.Sprint(x0+cx), fmt.Sprint(y0+cy), "click", "1")
	waitFor(t, "the position clicked", 20*time.Second, func() bool {
		for _, e := range traceEvents(t, v.trace) {
			if (e["event"] == "frame_shown" || e["event"] == "refined") && e["x"] == 40.0 && e["y"] == 30.0 && e["z"] == 12.0 &&
				e["panel"] == "xy" && e["complete"] == true {
				return true
			}
		}
		return false
	})
	shot := filepath.Join(dir, "shot.png")
	crossAt := func(img image.Image, x, y int) bool {
		r, g, b, _ := img.At(x, y).RGBA()
		return r>>8 == 255 && g>>8 == 210 && b>>8 == 0
	}
	var bad []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		testtool.Run(t, "import", "-window", v.win, shot)
		img := testtool.ReadPNG(t, shot)
		bad = bad[:0]
		for i, p := range []struct {
			o        render.Orientation
			col, row float64
		}{{render.XY, 40, 30}, {render.XZ, 40, 12}, {render.YZ, 30, 12}} {
			ox, oy := x0+(i%2)*(pw+2), y0+(i/2)*(ph+2)
			lx, ly := screen(p.o, p.col, p.row)
			for _, q := range []int{3, ph / 2, ph - 3} {
				if q != ly && !crossAt(img, ox+lx, oy+q) {
					bad = append(bad, fmt.Sprintf("%s: no vertical line at %d (row %d)", p.o, lx, q))
				}
			}
			for _, q := range []int{3, pw / 2, pw - 3} {
				if q != lx && !crossAt(img, ox+q, oy+ly) {
					bad = append(bad, fmt.Sprintf("%s: no horizontal line at %d (column %d)", p.o, ly, q))
				}
			}
			if crossAt(img, ox+lx+2, oy+ly+2) {
				bad = append(bad, fmt.Sprintf("%s: the crosshair is wider than a line", p.o))
			}
		}
		if len(bad) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(bad) > 0 {
		t.Errorf("crosshairs: %s (screenshot %s)", strings.Join(bad, "; "), shot)
	}
}
