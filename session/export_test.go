package session

import (
	"context"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"vastview/loader"
	"vastview/loader/zarr"
)

func TestExportKeepsEveryLevelAndTheChannels(t *testing.T) {
	h := newHarness(t, Options{})
	h.open(twoChannels(), "/data/cells.ome.tif")
	if got := h.s.ExportName(); got != "cells.ome.zarr" {
		t.Errorf("export offered as %q", got)
	}
	h.s.SetWindow(300, 4000)
	out := filepath.Join(t.TempDir(), "cells")
	ended := make(chan *Export, 1)
	e, err := h.s.Export(out, func(e *Export) { ended <- e })
	if err != nil {
		t.Fatal(err)
	}
	if e.Path != out+".ome.zarr" {
		t.Errorf("export path %q", e.Path)
	}
	<-ended
	if err := e.Err(); err != nil {
		t.Fatal(err)
	}
	src, err := zarr.Open(context.Background(), e.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	m := src.Meta()
	if len(m.Levels) != len(h.s.Meta().Levels) {
		t.Errorf("%d levels written, the data has %d", len(m.Levels), len(h.s.Meta().Levels))
	}
	want := []loader.Channel{
		{Label: "GFP", Color: [3]uint8{0, 255, 0}, HasColor: true, Lo: 300, Hi: 4000, HasWindow: true},
		{Label: "DAPI", Color: [3]uint8{0, 0, 255}, HasColor: true},
	}
	if len(m.Channels) != 2 || m.Channels[0] != want[0] || m.Channels[1].Label != "DAPI" || m.Channels[1].Color != want[1].Color {
		t.Errorf("channels read back %+v, want %+v", m.Channels, want)
	}
}

// slowSource holds reads back from hold() until release().
type slowSource struct {
	loader.Source
	mu   sync.Mutex
	gate chan struct{} // nil: reads go through
}

func (s *slowSource) hold() {
	s.mu.Lock()
	s.gate = make(chan struct{})
	s.mu.Unlock()
}

func (s *slowSource) release() {
	s.mu.Lock()
	close(s.gate)
	s.gate = nil
	s.mu.Unlock()
}

func (s *slowSource) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	s.mu.Lock()
	gate := s.gate
	s.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return s.Source.ReadChunk(ctx, level, idx, dst)
}

// TestOpeningAnotherFileFinishesTheExport starts an export, opens other
// data while it runs, and lets it finish: it is written, not failed.
func TestOpeningAnotherFileFinishesTheExport(t *testing.T) {
	h := newHarness(t, Options{})
	src := &slowSource{Source: small()}
	h.open(src, "/data/volume.tif")
	src.hold() // reads of the export wait
	ended := make(chan *Export, 1)
	e, err := h.s.Export(filepath.Join(t.TempDir(), "volume.ome.zarr"), func(e *Export) { ended <- e })
	if err != nil {
		t.Fatal(err)
	}
	h.open(small(), "/data/other.tif")
	src.release()
	<-ended
	if err := e.Err(); err != nil {
		t.Errorf("the export failed after another file was opened: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.Path, "0", ".zarray")); err != nil {
		t.Error(err)
	}
}

func TestCloseCancelsTheExportAndWaits(t *testing.T) {
	h := newHarness(t, Options{})
	src := &slowSource{Source: small()}
	h.open(src, "/data/volume.tif")
	src.hold()
	e, err := h.s.Export(filepath.Join(t.TempDir(), "volume.ome.zarr"), nil)
	if err != nil {
		t.Fatal(err)
	}
	h.s.Close()
	select {
	case <-e.Done():
	default:
		t.Fatal("Close returned before the export ended")
	}
	if !errors.Is(e.Err(), context.Canceled) {
		t.Errorf("export error %v, want cancelled", e.Err())
	}
	if _, err := os.Stat(e.Path); !os.IsNotExist(err) {
		t.Errorf("a cancelled export left %s (%v)", e.Path, err)
	}
}

func TestSnapshotIsTheImageAreaUnderAPositionalName(t *testing.T) {
	h := newHarness(t, Options{})
	f := h.open(small(), "/data/volume.tif")
	h.s.Press(KeyRight)
	f = h.waitFrame(func(f *Frame) bool { return f.View.Z == 5 && f.Info.Complete })
	if got := h.s.SnapshotName(); got != "volume_z005_t000.png" {
		t.Errorf("snapshot offered as %q", got)
	}
	path := filepath.Join(t.TempDir(), "view.png")
	want := append([]byte(nil), f.Img.Pix...)
	if err := h.s.SaveSnapshot(path); err != nil {
		t.Fatal(err)
	}
	h.s.Close() // waits for the write
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	img, err := png.Decode(r)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	if b.Dx() != 400 || b.Dy() != 300 {
		t.Fatalf("saved %v, want the 400×300 picture", b)
	}
	for y := 0; y < 300; y++ {
		for x := 0; x < 400; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			i := 4 * (y*400 + x)
			if uint8(r>>8) != want[i] || uint8(g>>8) != want[i+1] || uint8(bl>>8) != want[i+2] {
				t.Fatalf("pixel (%d, %d) differs from the frame on screen", x, y)
			}
		}
	}
}
