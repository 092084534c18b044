package ui

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"vastview/loader/demo"
)

func TestHeldKeyScrubsAtTheDisplayRate(t *testing.T) {
	a := test.NewTempApp(t)
	var v *Viewer
	uiDoAndWait(func() {
		v = newViewer(a, Options{})
		v.openSource(demo.NewSized(1, 2000, 32, 48), "/data/long.tif")
		v.win.Show()
	})
	t.Cleanup(func() {
		uiDoAndWait(func() { v.win.Close() })
		v.d.stop()
		v.s.close()
	})
	waitShown(t, v, func(f *frame) bool { return f.info.Complete })
	z0 := v.viewNow().Z
	press := time.Now()
	uiDoAndWait(func() {
		v.keyDown(&fyne.KeyEvent{Name: fyne.KeyPeriod})
		v.typedKey(&fyne.KeyEvent{Name: fyne.KeyPeriod}) // the press itself
	})
	time.Sleep(scrubDelay + 400*time.Millisecond)
	// The keyboard's own repeats are ignored while vastview repeats.
	var zr int
	uiDoAndWait(func() {
		zr = v.view.Z
		for range 40 {
			v.typedKey(&fyne.KeyEvent{Name: fyne.KeyPeriod})
		}
		if v.view.Z != zr {
			t.Errorf("keyboard repeats stepped from %d to %d during a scrub", zr, v.view.Z)
		}
	})
	time.Sleep(200 * time.Millisecond)
	var z1 int
	uiDoAndWait(func() {
		z1 = v.view.Z
		v.keyUp(&fyne.KeyEvent{Name: fyne.KeyPeriod})
	})
	held := time.Since(press)
	steps := z1 - z0
	t.Logf("held %v: %d steps", held.Round(time.Millisecond), steps)
	if maxSteps := 2 + int((held-scrubDelay)/scrubEvery); steps < 10 || steps > maxSteps {
		t.Errorf("held %v: %d steps, want 10 to %d (one per frame, at most one per display refresh)", held.Round(time.Millisecond), steps, maxSteps)
	}
	time.Sleep(150 * time.Millisecond)
	if z := v.viewNow().Z; z != z1 {
		t.Errorf("still stepping after the key was released: %d -> %d", z1, z)
	}
}
