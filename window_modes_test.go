package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"vastview/base/testtool"
)

// menuItem chooses the File menu's entry label with the keyboard: a click
// on File (the menu bar's first entry, where the layout event puts the
// bar), Down to the entry, Return.
func (v *viewer) menuItem(label string) {
	v.t.Helper()
	waitFor(v.t, "the layout event", 10*time.Second, func() bool { return v.count("layout") > 0 })
	l := v.events("layout")[0]
	bar, ok := l["menu"].([]any)
	if !ok {
		v.t.Fatalf("the layout event has no menu bar: %v", l)
	}
	n := 0
	found := false
	for _, e := range l["file_menu"].([]any) {
		if e == "" {
			continue // a separator
		}
		n++
		if e == label {
			found = true
			break
		}
	}
	if !found {
		v.t.Fatalf("no %q in the File menu %v", label, l["file_menu"])
	}
	testtool.Run(v.t, "xdotool", "mousemove", "--window", v.win, "15", fmt.Sprint(int(bar[3].(float64))/2), "click", "1")
	for range n {
		v.key("Down")
	}
	v.key("Return")
}

// typeText types s into the focused text field, replacing what it holds.
func (v *viewer) typeText(s string) {
	v.t.Helper()
	v.key("ctrl+a")
	testtool.Run(v.t, "xdotool", "type", "--window", v.win, s)
}

// exportEvent waits for an export event of path in state and returns it.
func (v *viewer) exportEvent(path, state string, timeout time.Duration) map[string]any {
	v.t.Helper()
	var ev map[string]any
	waitFor(v.t, "export "+state+" of "+filepath.Base(path), timeout, func() bool {
		for _, e := range v.events("export") {
			if e["path"] == path && e["state"] == state {
				ev = e
				return true
			}
		}
		return false
	})
	return ev
}

// ffprobe returns a video stream's field (r_frame_rate, nb_frames, ...).
func ffprobe(t *testing.T, path, field string) string {
	t.Helper()
	out := testtool.Run(t, "ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames",
		"-show_entries", "stream="+field, "-of", "default=nokey=1:noprint_wrappers=1", path)
	return strings.TrimSpace(string(out))
}

// TestWindowExportsMovieInBackground opens an ImageJ time-lapse of
// volumes (3 time points 1.5 s apart, 20 planes) and exports a movie with
// File → Export Movie… as the dialog offers it (along the planes): the MP4
// runs at 25 frames per second (ffprobe), not at the time interval's 2/3,
// with a frame per plane; the window is free while and after it is
// written: a key steps a plane at once.
func TestWindowExportsMovieInBackground(t *testing.T) {
	dir, bin := windowTest(t)
	testtool.Require(t, "ffprobe")
	hyper := filepath.Join(dir, "lapse.tif")
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
t, z, y, x = np.mgrid[0:3, 0:20, 0:64, 0:96]
a = (x * 30 + y * 20 + z * 100 + t * 700).astype(np.uint16)
tifffile.imwrite(sys.argv[1], a, imagej=True, metadata={'axes': 'TZYX', 'finterval': 1.5})
`, hyper)
	v := startViewer(t, bin, dir, filepath.Join(dir, "trace.jsonl"), hyper)
	out := filepath.Join(dir, "planes.mp4")
	v.menuItem("Export Movie…")
	v.typeText(out)
	v.key("Return")
	// The movie appears at its path when complete (it is renamed there).
	waitFor(t, "the movie", 60*time.Second, func() bool { _, err := os.Stat(out); return err == nil })
	if got := ffprobe(t, out, "r_frame_rate"); got != "25/1" {
		t.Errorf("the movie along the planes runs at %s frames per second, want 25/1", got)
	}
	if got := ffprobe(t, out, "nb_read_frames"); got != "20" {
		t.Errorf("the movie has %s frames, want one per plane (20)", got)
	}
	// Nothing covers the window: the keys step planes.
	z := v.frameAt(0, 10, false)["z"].(float64)
	n := v.frames()
	v.key("period")
	v.frameAt(n, z+1, false)
	v.exportEvent(out, "written", 10*time.Second)
	shot := filepath.Join(os.TempDir(), "vastview-export-movie.png")
	testtool.Run(t, "import", "-window", "root", shot)
	t.Logf("screenshot after the export: %s", shot)
}

// stalledZarr serves a Zarr v2 array of 20 planes of 64×96 uint16 over
// HTTP at /s.zarr whose chunks of plane 10 (the one shown first) are
// served and all others held until the request is dropped: a viewer
// reading them waits as on a slow server. It returns the address.
func stalledZarr(t *testing.T) string {
	meta := `{"zarr_format":2,"shape":[20,64,96],"chunks":[1,64,96],"dtype":"<u2","compressor":null,` +
		`"fill_value":0,"order":"C","filters":null}`
	plane := make([]byte, 64*96*2)
	for i := range plane {
		plane[i] = byte(i * 7)
	}
	var held sync.WaitGroup
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p := strings.TrimPrefix(r.URL.Path, "/s.zarr/"); {
		case p == ".zarray":
			w.Write([]byte(meta))
		case p == "10.0.0":
			w.Write(plane)
		case strings.HasSuffix(p, ".0.0"):
			held.Add(1)
			defer held.Done()
			<-r.Context().Done() // until the reader gives up
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv.URL + "/s.zarr"
}

// TestWindowQuitsPromptly presses Ctrl+Q in each mode, after a held-key
// scrub: a projection being computed, the four panels, playback, and a
// movie export held up by a server that does not answer (after the
// status bar's Cancel stopped another one). Each time the process ends
// (well within the generous bound here) after the trace's quit and
// closed events; the time from Ctrl+Q to closed is logged (the figures
// are in docs/PERFORMANCE.md).
func TestWindowQuitsPromptly(t *testing.T) {
	dir, bin := windowTest(t)
	stack := filepath.Join(dir, "stack.tif")
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
z, y, x = np.mgrid[0:60, 0:256, 0:384]
tifffile.imwrite(sys.argv[1], (x * 40 + y * 20 + z * 300 + (x // 10 % 2) * 3000).astype(np.uint16))
`, stack)
	quit := func(v *viewer, mode string) {
		t.Helper()
		sent := time.Now()
		// The window may be gone before xdotool sends the key's release:
		// its error says nothing; the process's end does.
		exec.Command("xdotool", "key", "--window", v.win, "ctrl+q").Run()
		done := make(chan error, 1)
		go func() { done <- v.cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s: the viewer ended with %v on Ctrl+Q", mode, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: the viewer still runs 20 s after Ctrl+Q", mode)
		}
		waited := time.Since(sent)
		q, c := v.events("quit"), v.events("closed")
		if len(q) != 1 || len(c) != 1 || q[0]["by"] != "Ctrl+Q" {
			t.Fatalf("%s: quit events %v, closed events %v", mode, q, c)
		}
		t.Logf("%s: Ctrl+Q → closed %.0f ms (process gone %.0f ms after the key was sent)",
			mode, c[0]["ms"].(float64)-q[0]["ms"].(float64), waited.Seconds()*1000)
	}
	scrub := func(v *viewer) {
		t.Helper()
		n := v.frames()
		testtool.Run(t, "xdotool", "keydown", "--window", v.win, "period")
		waitFor(t, "a scrub", 20*time.Second, func() bool { return v.frames() > n+5 })
		testtool.Run(t, "xdotool", "keyup", "--window", v.win, "period")
	}
	framesWith := func(v *viewer, what string, ok func(e map[string]any) bool) {
		t.Helper()
		waitFor(t, what, 20*time.Second, func() bool {
			for _, e := range v.events("frame_shown") {
				if ok(e) {
					return true
				}
			}
			return false
		})
	}

	for _, mode := range []string{"projection", "four panels", "playback"} {
		home := filepath.Join(dir, strings.ReplaceAll(mode, " ", "-"))
		v := startViewer(t, bin, home, filepath.Join(home+".jsonl"), stack)
		scrub(v)
		switch mode {
		case "projection":
			v.key("p")
			framesWith(v, "a projection", func(e map[string]any) bool { return e["projection"] == "max" })
		case "four panels":
			v.key("4")
			framesWith(v, "four panels", func(e map[string]any) bool { return e["panel"] != nil })
		case "playback":
			v.key("space")
			waitFor(t, "playback", 20*time.Second, func() bool { return v.count("play") == 1 })
			n := v.count("frame_shown")
			waitFor(t, "frames played", 20*time.Second, func() bool { return v.count("frame_shown") > n+3 })
		}
		quit(v, mode)
	}

	// Exports that wait for a server: Cancel stops one, Ctrl+Q the other.
	url := stalledZarr(t)
	home := filepath.Join(dir, "export")
	v := startViewer(t, bin, home, filepath.Join(dir, "export.jsonl"), url)
	for i, stop := range []string{"Cancel", "Ctrl+Q"} {
		out := filepath.Join(dir, "stalled"+strconv.Itoa(i)+".mp4")
		v.menuItem("Export Movie…")
		v.typeText(out)
		v.key("Return")
		running := v.exportEvent(out, "running", 20*time.Second)
		if stop == "Ctrl+Q" {
			quit(v, "export running")
			break
		}
		r := running["cancel"].([]any)
		x, y := r[0].(float64)+r[2].(float64)/2, r[1].(float64)+r[3].(float64)/2
		testtool.Run(t, "xdotool", "mousemove", "--window", v.win, fmt.Sprint(int(x)), fmt.Sprint(int(y)), "click", "1")
		v.exportEvent(out, "cancelled", 20*time.Second)
		if _, err := os.Stat(out); err == nil {
			t.Errorf("a cancelled export left %s", out)
		}
	}
	if ev := v.events("export"); len(ev) == 0 || ev[len(ev)-1]["state"] != "cancelled" {
		t.Errorf("the export running at Ctrl+Q did not end cancelled: %v", ev)
	}
}

// TestWindowPlaysVideoAtItsRate plays videos made by ffmpeg: one of 20
// frames per second starts at the rate ffprobe reads (not 30); one of
// 1000 frames per second, more than a window draws, reports the frames
// due and drawn (as the status bar shows them): drawn is the count of
// positions the trace shows since Space, due the frames whose time has
// passed.
func TestWindowPlaysVideoAtItsRate(t *testing.T) {
	dir, bin := windowTest(t)
	testtool.Require(t, "ffmpeg")
	testtool.Require(t, "ffprobe")
	for _, c := range []struct {
		name         string
		size         string
		rate, frames int
	}{{"rate20.mp4", "160x120", 20, 60}, {"rate1000.mp4", "320x240", 1000, 1500}} {
		path := filepath.Join(dir, c.name)
		testtool.Run(t, "ffmpeg", "-v", "error", "-f", "lavfi", "-i", fmt.Sprintf("testsrc=size=%s:rate=%d", c.size, c.rate),
			"-frames:v", fmt.Sprint(c.frames), "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", path)
		num, den, _ := strings.Cut(ffprobe(t, path, "r_frame_rate"), "/")
		n, _ := strconv.ParseFloat(num, 64)
		d, _ := strconv.ParseFloat(den, 64)
		want := n / d
		home := filepath.Join(dir, strings.TrimSuffix(c.name, ".mp4"))
		v := startViewer(t, bin, home, home+".jsonl", path)
		v.key("space")
		waitFor(t, "playback", 20*time.Second, func() bool { return v.count("play") == 1 })
		play := v.events("play")[0]
		if r := play["rate"].(float64); r < want*(1-1e-9) || r > want*(1+1e-9) {
			t.Errorf("%s plays at %g fps, want its own %g", c.name, r, want)
		}
		// A report of the frames due and drawn, a second into playback.
		var rep map[string]any
		waitFor(t, "a playback report", 20*time.Second, func() bool {
			for _, e := range v.events("playback") {
				if e["ms"].(float64) > play["ms"].(float64)+1000 {
					rep = e
					return true
				}
			}
			return false
		})
		drawn, lastT := 0, -1.0
		for _, e := range traceEvents(t, v.trace) {
			ms, _ := e["ms"].(float64)
			if e["event"] != "frame_shown" || ms > rep["ms"].(float64) {
				continue
			}
			if ms > play["ms"].(float64) && e["t"].(float64) != lastT {
				drawn++
			}
			lastT = e["t"].(float64)
		}
		if int(rep["drawn"].(float64)) != drawn {
			t.Errorf("%s: %v frames reported drawn, the trace shows %d", c.name, rep["drawn"], drawn)
		}
		elapsed := (rep["ms"].(float64) - play["ms"].(float64)) / 1000
		due := rep["due"].(float64)
		if d := due - elapsed*want; d < -want*0.05-2 || d > want*0.05+2 {
			t.Errorf("%s: %v frames reported due after %.2f s at %g fps", c.name, due, elapsed, want)
		}
		t.Logf("%s at %g fps: %v of %v frames due drawn after %.2f s", c.name, want, rep["drawn"], due, elapsed)
		if c.rate == 1000 {
			shot := filepath.Join(os.TempDir(), "vastview-play-1000.png")
			testtool.Run(t, "import", "-window", "root", shot)
			t.Logf("screenshot: %s", shot)
		}
	}
}
