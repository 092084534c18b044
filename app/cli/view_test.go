package cli

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/session"
)

// TestNothingBelowTheWindowNeedsTheGUI lists every package of the module
// and its tests with what they import, directly or not: only the program
// (the root package) and the window (ui) may need Fyne or OpenGL, so that
// the command line, the readers and everything under the window build and
// test without cgo and without a display.
func TestNothingBelowTheWindowNeedsTheGUI(t *testing.T) {
	goTool := testtool.Require(t, "go")
	cmd := exec.Command(goTool, "list", "-test", "-f", "{{.ImportPath}}|{{join .Deps \" \"}}", "vastview/...")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1") // the window's packages are listed as the program builds them
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	gui := func(pkg string) bool {
		return strings.HasPrefix(pkg, "fyne.io/") || strings.HasPrefix(pkg, "github.com/go-gl/") ||
			pkg == "vastview/ui" || strings.HasPrefix(pkg, "vastview/ui/")
	}
	listed := 0
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		pkg, deps, _ := strings.Cut(strings.TrimSpace(line), "|")
		base, _, _ := strings.Cut(pkg, " ") // "p [p.test]" is p compiled for its tests
		base = strings.TrimSuffix(strings.TrimSuffix(base, ".test"), "_test")
		listed++
		if base == "vastview" || base == "vastview/ui" || strings.HasPrefix(base, "vastview/ui/") {
			continue
		}
		for d := range strings.FieldsSeq(deps) {
			if gui(d) {
				t.Errorf("%s depends on %s: only the program and package ui may use the GUI", pkg, d)
				break
			}
		}
	}
	if listed < 50 {
		t.Fatalf("go list named %d packages: %s", listed, out)
	}
}

// TestViewerCommandLine runs the viewer's command lines in a window that
// records what it is asked to show: the file (or the demo), the browsing
// list, the layers, and why nothing opened; files that do not open are
// one line each on stderr, and the status is 1 when none opened. Without
// a display, or in a program without a window, nothing is shown and the
// status is 1 with one line.
func TestViewerCommandLine(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "small.png")
	f, err := os.Create(good)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, image.NewGray(image.Rect(0, 0, 8, 6))); err != nil {
		t.Fatal(err)
	}
	f.Close()
	missing := filepath.Join(dir, "missing.tif")
	labels := filepath.Join(dir, "labels.tif")

	type shown struct {
		view   View
		called bool
	}
	run := func(t *testing.T, display string, args ...string) (got shown, code int, stderr string) {
		t.Helper()
		t.Setenv("DISPLAY", display)
		t.Setenv("WAYLAND_DISPLAY", "")
		t.Setenv("VASTVIEW_TRACE", "")
		var o, e bytes.Buffer
		code = RunWithWindow(func(ctx context.Context, v View) {
			got = shown{v, true}
			if v.Src != nil {
				v.Src.Close()
			}
		}, args, &o, &e)
		return got, code, e.String()
	}

	t.Run("demo", func(t *testing.T) {
		got, code, errs := run(t, ":99")
		if code != 0 || errs != "" || !got.called || got.view.Src == nil || got.view.Name != "" || len(got.view.List) != 0 {
			t.Errorf("exit %d, stderr %q, window %+v; want the demo shown", code, errs, got)
		}
	})
	t.Run("file with layers", func(t *testing.T) {
		got, code, errs := run(t, ":99", "--overlay", labels, "--layer", good, good)
		want := []Layer{{labels, session.LayerLabels}, {good, session.LayerImage}}
		if code != 0 || errs != "" || !got.called || got.view.Src == nil || got.view.Name != good ||
			!slices.Equal(got.view.List, []string{good}) || !slices.Equal(got.view.Layers, want) || got.view.OpenErr != nil {
			t.Errorf("exit %d, stderr %q, window %+v; want %s with the layers %v", code, errs, got, good, want)
		}
	})
	t.Run("first of two missing", func(t *testing.T) {
		got, code, errs := run(t, ":99", missing, good)
		if code != 0 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, missing) || got.view.Name != good ||
			!slices.Equal(got.view.List, []string{missing, good}) {
			t.Errorf("exit %d, stderr %q, window %+v; want %s shown, the browsing list, one line for %s", code, errs, got, good, missing)
		}
	})
	t.Run("none opens", func(t *testing.T) {
		got, code, errs := run(t, ":99", missing)
		if code != 1 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, missing) || !got.called ||
			got.view.Src != nil || got.view.OpenErr == nil {
			t.Errorf("exit %d, stderr %q, window %+v; want the window saying why, one line, exit 1", code, errs, got)
		}
	})
	t.Run("none opens without a display", func(t *testing.T) {
		got, code, errs := run(t, "", missing)
		if code != 1 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, missing) || got.called {
			t.Errorf("exit %d, stderr %q, window shown %v; want one line, exit 1, no window", code, errs, got.called)
		}
	})
	t.Run("layers without a file", func(t *testing.T) {
		got, code, errs := run(t, ":99", "--overlay", labels)
		if code != 1 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "give SRC") || got.called {
			t.Errorf("exit %d, stderr %q, window shown %v; want a usage error", code, errs, got.called)
		}
	})
	t.Run("no window", func(t *testing.T) {
		t.Setenv("DISPLAY", ":99")
		var o, e bytes.Buffer
		code := Run([]string{good}, &o, &e)
		if errs := e.String(); code != 1 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "no window") {
			t.Errorf("exit %d, stderr %q; want one line saying there is no window", code, errs)
		}
	})
}
