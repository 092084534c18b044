package main

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"vastview/base/testtool"
)

// mouseDrag presses the left button at window pixel (x0, y0) of the
// picture, moves to (x1, y1) in steps and releases it.
func (v *viewer) mouseDrag(x0, y0, x1, y1 int, steps int) {
	v.t.Helper()
	pic := v.events("layout")[0]["picture"].([]any)
	px, py := int(pic[0].(float64)), int(pic[1].(float64))
	// The pointer is over the start first (the window has seen it there:
	// its read-out changed), then pressed.
	n := v.count("hover")
	testtool.Run(v.t, "xdotool", "mousemove", "--window", v.win, fmt.Sprint(px+x0), fmt.Sprint(py+y0))
	waitFor(v.t, "the pointer over the picture", 10*time.Second, func() bool { return v.count("hover") > n })
	args := []string{"mousedown", "1"}
	for k := 1; k <= steps; k++ {
		x, y := x0+(x1-x0)*k/steps, y0+(y1-y0)*k/steps
		args = append(args, "sleep", "0.03", "mousemove", "--window", v.win, fmt.Sprint(px+x), fmt.Sprint(py+y))
	}
	args = append(args, "sleep", "0.05", "mouseup", "1")
	testtool.Run(v.t, "xdotool", args...)
}

// lastEvent waits for an event called name for which ok holds, after the
// first n events of that name, and returns it.
func (v *viewer) lastEvent(name string, n int, ok func(map[string]any) bool) map[string]any {
	v.t.Helper()
	var found map[string]any
	waitFor(v.t, "a "+name+" event", 30*time.Second, func() bool {
		evs := v.events(name)
		for i := len(evs) - 1; i >= n; i-- {
			if ok(evs[i]) {
				found = evs[i]
				return true
			}
		}
		return false
	})
	return found
}

// num writes a float64 so that it reads back the same.
func num(f any) string { return strconv.FormatFloat(f.(float64), 'g', -1, 64) }

// TestWindowMeasures draws a rectangle and a line with the mouse in a
// real window, on a TIFF stack of anisotropic spacing written by
// tifffile: the rectangle's figures and the line's profile the viewer
// shows (its trace: "measured", "profile") equal `vastview measure` of
// the same geometry, and the profile followed the line while it was
// dragged.
func TestWindowMeasures(t *testing.T) {
	dir, bin := windowTest(t)
	stack := filepath.Join(dir, "cells.tif")
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
rng = np.random.default_rng(7)
z, y, x = np.mgrid[0:12, 0:240, 0:320]
a = (1000 + 800 * np.sin(x / 13.0) * np.cos(y / 17.0) + 30 * z + rng.integers(0, 200, z.shape)).astype(np.uint16)
tifffile.imwrite(sys.argv[1], a, imagej=True, resolution=(1 / 0.4, 1 / 0.4), metadata={"spacing": 2.0, "unit": "um", "axes": "ZYX"})
`, stack)
	v := startViewer(t, bin, dir, filepath.Join(dir, "trace.jsonl"), stack)
	t.Cleanup(func() {
		if t.Failed() { // what the tools did
			for _, e := range traceEvents(t, v.trace) {
				switch e["event"] {
				case "tool", "roi", "key", "measured", "roi_deleted":
					t.Logf("%v", e)
				}
			}
		}
	})
	f := v.frameAt(0, 6, true)
	if f == nil {
		t.Fatal("no complete frame")
	}

	// A rectangle: Alt+R, a drag.
	v.key("alt+r")
	waitFor(t, "the rectangle tool", 10*time.Second, func() bool { return v.count("tool") > 0 })
	v.mouseDrag(200, 150, 420, 330, 6)
	rect := v.lastEvent("measured", 0, func(e map[string]any) bool { return e["kind"] == "rectangle" && e["estimate"] == false })
	r := rect["rect"].([]any)
	out := testtool.Run(t, bin, "measure", stack, "--z", num(rect["at"]), "--rect",
		fmt.Sprintf("%s,%s,%s,%s", num(r[0]), num(r[1]), num(r[2]), num(r[3])), "--json")
	var want map[string]any
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("measure --json: %v: %s", err, out)
	}
	got := rect["channels"].([]any)[0].(map[string]any)
	for _, k := range []string{"count", "sum", "mean", "std", "min", "max", "area", "unit"} {
		// The deviation is summed over chunks in the order they come: it
		// may differ in its last bits between two runs.
		if g, ok := got[k].(float64); ok && k == "std" && math.Abs(g-want[k].(float64)) <= 1e-12*g {
			continue
		}
		if got[k] != want[k] {
			t.Errorf("the rectangle %v: %s %v in the viewer, %v by vastview measure", r, k, got[k], want[k])
		}
	}
	if got["count"].(float64) < 1000 {
		t.Errorf("the drag drew a rectangle of %v samples", got["count"])
	}

	// A line: Alt+L, a drag; its profile follows the drag.
	v.key("alt+l")
	waitFor(t, "the line tool", 10*time.Second, func() bool { return v.count("tool") > 1 })
	before := v.count("profile")
	v.mouseDrag(150, 300, 500, 120, 20)
	line := v.lastEvent("roi", 0, func(e map[string]any) bool { return e["kind"] == "line" })
	pts := line["points"].([]any)
	a, b := pts[0].([]any), pts[1].([]any)
	want2 := map[string]any{}
	out = testtool.Run(t, bin, "measure", stack, "--z", num(line["at"]), "--line",
		fmt.Sprintf("%s,%s,%s,%s", num(a[0]), num(a[1]), num(b[0]), num(b[1])), "--json")
	if err := json.Unmarshal(out, &want2); err != nil {
		t.Fatalf("measure --json: %v: %s", err, out)
	}
	wantProfile := want2["profile"].([]any)
	prof := v.lastEvent("profile", before, func(e map[string]any) bool {
		p := e["profiles"].([]any)[0].([]any)
		return len(p) == len(wantProfile) && p[len(p)-1] == wantProfile[len(wantProfile)-1] && p[0] == wantProfile[0]
	})
	gotProfile := prof["profiles"].([]any)[0].([]any)
	for i := range wantProfile {
		if gotProfile[i] != wantProfile[i] {
			t.Fatalf("profile point %d: %v in the viewer, %v by vastview measure", i, gotProfile[i], wantProfile[i])
		}
	}
	dist := want2["distance"].([]any)
	if l := prof["length"].(float64); l != dist[len(dist)-1].(float64) {
		t.Errorf("the line's length %g in the viewer, its last distance %v by vastview measure", l, dist[len(dist)-1])
	}
	// While dragged: profiles of the line as it was, one per motion or so.
	var lat []float64
	for _, e := range v.events("profile")[before:] {
		lat = append(lat, e["latency_ms"].(float64))
	}
	if len(lat) < 5 {
		t.Errorf("%d profiles while the line was dragged over 20 steps", len(lat))
	}
	slices.Sort(lat)
	var plot []float64
	for _, e := range v.events("plot") {
		plot = append(plot, e["latency_ms"].(float64))
	}
	slices.Sort(plot)
	t.Logf("profile updates while dragging: %d, median %.2f ms from the input, max %.2f ms; with the plot drawn: %d, median %.2f ms",
		len(lat), lat[len(lat)/2], lat[len(lat)-1], len(plot), plot[len(plot)/2])
	testtool.Run(t, "import", "-window", "root", filepath.Join(dir, "measure.png"))
}
