package ui

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"vastview/loader"
	"vastview/loader/demo"
)

// liveSource is a demo volume whose plane z=4 is not stored until
// written is set (a store a cluster job is still filling) and whose plane
// z=5 cannot be read (a failing server).
type liveSource struct {
	*demo.Source
	written atomic.Bool
}

var errServer = errors.New("GET http://store/0/0/5/0/0: 503 Service Unavailable (5 attempts)")

func (s *liveSource) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	switch {
	case idx[1] == 4 && !s.written.Load():
		clear(dst)
		return loader.ErrNotStored
	case idx[1] == 5:
		return errServer
	}
	return s.Source.ReadChunk(ctx, level, idx, dst)
}

func TestMissingChunksReloadOnRAndFailuresShowInTheStatusBar(t *testing.T) {
	a := test.NewTempApp(t)
	src := &liveSource{Source: demo.NewSized(2, 9, 64, 96)}
	var v *Viewer
	uiDoAndWait(func() {
		v = newViewer(a, Options{})
		v.openSource(src, "http://store/volume.zarr")
		v.win.Show()
	})
	t.Cleanup(func() {
		uiDoAndWait(func() { v.win.Close() })
		v.d.stop()
		v.s.close()
	})
	// A plane of fill values shows at most two colours: the fill value's
	// and the background around the image.
	uniform := func(f *frame) bool {
		colours := map[[3]byte]bool{}
		p := f.img.Pix
		for i := 0; i < len(p); i += 4 {
			colours[[3]byte{p[i], p[i+1], p[i+2]}] = true
		}
		return len(colours) <= 2
	}
	// A plane that is not stored yet is drawn as its fill value.
	waitShown(t, v, func(f *frame) bool { return f.info.Complete && f.view.Z == 4 && uniform(f) })
	status := func() (s string) {
		uiDoAndWait(func() { v.updateStatus(); s = v.status.Text })
		return s
	}
	if s := status(); !strings.Contains(s, "chunks not stored yet") {
		t.Errorf("status %q does not say chunks are missing", s)
	}

	// The job writes the plane; R shows it.
	src.written.Store(true)
	uiDoAndWait(func() { v.typedRune('r') })
	waitShown(t, v, func(f *frame) bool { return f.info.Complete && f.view.Z == 4 && !uniform(f) })
	if s := status(); strings.Contains(s, "chunks not stored yet") {
		t.Errorf("status %q still reports missing chunks", s)
	}

	// A plane the server cannot deliver: the error shows, the viewer goes on.
	uiDoAndWait(func() { v.typedKey(&fyne.KeyEvent{Name: fyne.KeyPeriod}) })
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(status(), errServer.Error()) {
		if time.Now().After(deadline) {
			t.Fatalf("status %q does not show the server error", status())
		}
		time.Sleep(10 * time.Millisecond)
	}
	uiDoAndWait(func() { v.typedKey(&fyne.KeyEvent{Name: fyne.KeyComma}) })
	waitShown(t, v, func(f *frame) bool { return f.info.Complete && f.view.Z == 4 && !uniform(f) })
}
