package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"

	"vastview/loader"
	"vastview/loader/demo"
	"vastview/render"
)

// TestMain serialises the functions meant for the UI goroutine: the test
// driver runs them on whichever goroutine asks.
func TestMain(m *testing.M) {
	var mu sync.Mutex
	serial := func(f func()) {
		mu.Lock()
		defer mu.Unlock()
		f()
	}
	uiDo, uiDoAndWait = serial, serial
	os.Exit(m.Run())
}

// newTestViewer opens a small procedural volume (2×9×64×96) in a headless
// window of 400×300.
func newTestViewer(t *testing.T, open func(context.Context, string) (loader.Source, error)) *Viewer {
	t.Helper()
	a := test.NewTempApp(t)
	var v *Viewer
	uiDoAndWait(func() {
		v = newViewer(a, Options{Open: open})
		v.win.Resize(fyne.NewSize(400, 300))
		v.openSource(demo.NewSized(2, 9, 64, 96), "/data/volume.tif")
		v.win.Show()
	})
	t.Cleanup(func() {
		uiDoAndWait(func() { v.win.Close() })
		v.d.stop()
		v.s.close()
	})
	waitShown(t, v, func(f *frame) bool { return f.info.Complete })
	return v
}

// waitShown waits until the frame on screen satisfies ok, which runs on
// the UI goroutine.
func waitShown(t *testing.T, v *Viewer, ok func(*frame) bool) *frame {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		// On the UI goroutine: the frame on screen is not drawn over
		// while ok looks at it.
		var f *frame
		good := false
		uiDoAndWait(func() { f = v.shown; good = f != nil && ok(f) })
		if good {
			return f
		}
		if time.Now().After(deadline) {
			t.Fatalf("no such frame; last shown %+v", f)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (v *Viewer) viewNow() (w render.View) {
	uiDoAndWait(func() { w = v.view })
	return w
}

func TestKeysStepThroughPlanesAndTime(t *testing.T) {
	v := newTestViewer(t, nil)
	start := v.viewNow().Z
	if start != 4 {
		t.Fatalf("opened at z %d, want the middle plane 4", start)
	}
	uiDoAndWait(func() {
		for range 3 {
			v.typedKey(&fyne.KeyEvent{Name: fyne.KeyPeriod})
		}
		v.typedKey(&fyne.KeyEvent{Name: fyne.KeyRightBracket})
	})
	f := waitShown(t, v, func(f *frame) bool { return f.view.Z == 7 && f.view.T == 1 && f.info.Complete })
	if f.img.Bounds().Dx() != f.view.Width || f.view.Width == 0 {
		t.Errorf("frame %v for a viewport of %d×%d", f.img.Bounds(), f.view.Width, f.view.Height)
	}
	uiDoAndWait(func() {
		v.setModifier("LeftShift", true)
		v.typedKey(&fyne.KeyEvent{Name: fyne.KeyLeft}) // 10 back: clamped to 0
		v.setModifier("LeftShift", false)
	})
	waitShown(t, v, func(f *frame) bool { return f.view.Z == 0 })
	uiDoAndWait(func() { v.typedKey(&fyne.KeyEvent{Name: fyne.KeyEnd}) })
	waitShown(t, v, func(f *frame) bool { return f.view.Z == 8 })
	// The slider follows.
	uiDoAndWait(func() {
		if s := v.sliders['Z']; s == nil || s.slider.Value != 8 {
			t.Errorf("z slider at %v", s.slider.Value)
		}
	})
}

func TestWheelZoomAndDrag(t *testing.T) {
	v := newTestViewer(t, nil)
	before := v.viewNow()
	uiDoAndWait(func() { v.scrolled(10, 10, -10) }) // wheel down: next plane
	waitShown(t, v, func(f *frame) bool { return f.view.Z == before.Z+1 })
	m := v.s.pyr.Meta()
	var under render.Point
	uiDoAndWait(func() {
		under = v.view.ToPlane(m, 50, 40)
		v.setModifier("LeftControl", true)
		v.scrolled(50, 40, 10) // Ctrl+wheel up: zoom in about (50, 40)
		v.setModifier("LeftControl", false)
	})
	after := v.viewNow()
	if !(after.Zoom > before.Zoom) {
		t.Errorf("zoom %g after zooming in from %g", after.Zoom, before.Zoom)
	}
	if p := after.ToPlane(m, 50, 40); abs(p.Col-under.Col) > 1e-9 || abs(p.Row-under.Row) > 1e-9 {
		t.Errorf("the point under the pointer moved from %v to %v", under, p)
	}
	uiDoAndWait(func() { v.dragged(20, -10) })
	dragged := v.viewNow()
	if dx := (after.Center.Col - dragged.Center.Col) * after.Zoom; abs(dx-20) > 1e-9 {
		t.Errorf("a drag of 20 pixels moved the centre by %g pixels", dx)
	}
	waitShown(t, v, func(f *frame) bool { return f.view.Center == dragged.Center })
}

func TestUnsupportedDropShowsErrorAndKeepsData(t *testing.T) {
	junk := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(junk, []byte("not an image"), 0o644)
	v := newTestViewer(t, loader.Open)
	var before *session
	uiDoAndWait(func() {
		before = v.s
		v.dropped([]fyne.URI{storage.NewFileURI(junk)})
	})
	deadline := time.Now().Add(5 * time.Second)
	for {
		var top fyne.CanvasObject
		uiDoAndWait(func() { top = v.win.Canvas().Overlays().Top() })
		if top != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no error dialog after dropping an unsupported file")
		}
		time.Sleep(10 * time.Millisecond)
	}
	uiDoAndWait(func() {
		if v.s != before {
			t.Error("the dropped file replaced the data")
		}
	})
}

func TestViewRestoredWhenReopened(t *testing.T) {
	v := newTestViewer(t, nil)
	uiDoAndWait(func() {
		v.typedKey(&fyne.KeyEvent{Name: fyne.KeyHome})
		v.typedKey(&fyne.KeyEvent{Name: fyne.KeyPeriod})
		v.typedRune('2') // XZ
		v.view.Colormap = "magma"
		v.view.Lo, v.view.Hi = 100, 20000
	})
	saved := v.viewNow()
	uiDoAndWait(func() {
		v.openSource(demo.NewSized(2, 9, 64, 96), "/data/other.tif")
		v.openSource(demo.NewSized(2, 9, 64, 96), "/data/volume.tif")
	})
	got := v.viewNow()
	if got.Orientation != render.XZ || got.Z != saved.Z || got.Colormap != "magma" || got.Lo != 100 || got.Hi != 20000 {
		t.Errorf("reopened with %+v, saved %+v", got, saved)
	}
	if r := v.prefs.Recent(); len(r) < 2 || r[0] != "/data/volume.tif" || r[1] != "/data/other.tif" {
		t.Errorf("recent files %v", r)
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

func TestExportWritesEveryLevel(t *testing.T) {
	v := newTestViewer(t, nil)
	out := filepath.Join(t.TempDir(), "volume.ome.zarr")
	var levels int
	uiDoAndWait(func() {
		levels = len(v.s.pyr.Levels())
		v.export(v.s, out)
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(out, ".zattrs")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no OME-Zarr written")
		}
		time.Sleep(20 * time.Millisecond)
	}
	for k := 0; k < levels; k++ {
		if _, err := os.Stat(filepath.Join(out, fmt.Sprint(k), ".zarray")); err != nil {
			t.Errorf("level %d: %v", k, err)
		}
	}
	if levels < 2 {
		t.Errorf("only %d levels", levels)
	}
}

func TestSpacePlaysAndPauses(t *testing.T) {
	v := newTestViewer(t, nil)
	uiDoAndWait(func() {
		v.typedKey(&fyne.KeyEvent{Name: fyne.KeyHome})
		v.typedKey(&fyne.KeyEvent{Name: fyne.KeySpace})
	})
	waitShown(t, v, func(f *frame) bool { return f.view.Z >= 3 })
	uiDoAndWait(func() { v.typedKey(&fyne.KeyEvent{Name: fyne.KeySpace}) })
	time.Sleep(100 * time.Millisecond)
	z := v.viewNow().Z
	time.Sleep(300 * time.Millisecond)
	if z2 := v.viewNow().Z; z2 != z {
		t.Errorf("still playing after pause: z %d then %d", z, z2)
	}
}

func TestContrastPanelFollowsAndSetsTheWindow(t *testing.T) {
	v := newTestViewer(t, nil)
	deadline := time.Now().Add(10 * time.Second)
	for {
		var ok bool
		uiDoAndWait(func() { ok = v.contrast.valid() && v.contrast.lo == v.view.Lo && v.contrast.hi == v.view.Hi })
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the contrast panel never got the histogram and the window")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Dragging the window (simulated at its callback) redraws with it.
	uiDoAndWait(func() { v.contrast.onChange(5000, 9000) })
	waitShown(t, v, func(f *frame) bool { return f.view.Lo == 5000 && f.view.Hi == 9000 })
	// A double tap goes back to auto-contrast.
	uiDoAndWait(func() { v.contrast.DoubleTapped(nil) })
	waitShown(t, v, func(f *frame) bool { return f.view.Lo != 5000 && f.view.Lo < f.view.Hi })
}

func TestDroppedAddressesOpenAsURLsAndFilesAsPaths(t *testing.T) {
	opened := make(chan string, 2)
	v := newTestViewer(t, func(ctx context.Context, p string) (loader.Source, error) {
		opened <- p
		return nil, loader.ErrFormat
	})
	web, err := storage.ParseURI("https://example.org/data/cells.ome.zarr")
	if err != nil {
		t.Fatal(err)
	}
	uiDoAndWait(func() { v.dropped([]fyne.URI{web}) })
	if got := <-opened; got != "https://example.org/data/cells.ome.zarr" {
		t.Errorf("a dropped URL opened as %q", got)
	}
	uiDoAndWait(func() { v.dropped([]fyne.URI{storage.NewFileURI("/data/a b.tif")}) })
	if got := <-opened; got != "/data/a b.tif" {
		t.Errorf("a dropped file opened as %q", got)
	}
}
