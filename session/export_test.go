package session

import (
	"context"
	"errors"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"vastview/loader"
	"vastview/loader/demo"
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
	e, err := h.s.Export(out, ExportOptions{}, func(e *Export) { ended <- e })
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
	e, err := h.s.Export(filepath.Join(t.TempDir(), "volume.ome.zarr"), ExportOptions{}, func(e *Export) { ended <- e })
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
	e, err := h.s.Export(filepath.Join(t.TempDir(), "volume.ome.zarr"), ExportOptions{}, nil)
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
	h.open(small(), "/data/volume.tif")
	h.s.Press(KeyRight)
	f := h.waitFrame(func(f *Frame) bool { return f.View.Z == 5 && f.Info.Complete })
	if got := h.s.SnapshotName(); got != "volume_z005_t000.png" {
		t.Errorf("snapshot offered as %q", got)
	}
	dir := t.TempDir()
	part, whole := filepath.Join(dir, "view.png"), filepath.Join(dir, "whole.png")
	want := append([]byte(nil), f.Img.Pix...)
	if err := h.s.SaveSnapshot(part, false); err != nil {
		t.Fatal(err)
	}
	if err := h.s.SaveSnapshot(whole, true); err != nil {
		t.Fatal(err)
	}
	h.s.Close() // waits for the writes
	// 96×64 samples fitted to 400×300: 400 wide, 64×400/96 ≈ 267 high, in
	// the middle; the rows above and below are margin.
	zoom := 400.0 / 96
	top := int(math.Round(150 - 32*zoom))
	for _, c := range []struct {
		path string
		r    image.Rectangle
	}{{part, image.Rect(0, top, 400, 300-top)}, {whole, image.Rect(0, 0, 400, 300)}} {
		img := readPNG(t, c.path)
		b := img.Bounds()
		if b.Dx() != c.r.Dx() || b.Dy() != c.r.Dy() {
			t.Fatalf("%s: saved %v, want %v of the 400×300 picture", filepath.Base(c.path), b, c.r)
		}
		for y := 0; y < b.Dy(); y++ {
			for x := 0; x < b.Dx(); x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				i := 4 * ((y+c.r.Min.Y)*400 + x + c.r.Min.X)
				if uint8(r>>8) != want[i] || uint8(g>>8) != want[i+1] || uint8(bl>>8) != want[i+2] {
					t.Fatalf("%s: pixel (%d, %d) differs from the frame on screen", filepath.Base(c.path), x, y)
				}
			}
		}
	}
}

func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	img, err := png.Decode(r)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestExportChoices exports as Zarr 3 with gzip and mode levels: the
// store's metadata says so. The planes are wider than a computed chunk, so
// that the volume has a level 1.
func TestExportChoices(t *testing.T) {
	h := newHarness(t, Options{})
	h.open(stored{demo.NewSized(1, 9, 300, 520)}, "/data/volume.tif")
	out := filepath.Join(t.TempDir(), "volume.ome.zarr")
	ended := make(chan *Export, 1)
	e, err := h.s.Export(out, ExportOptions{Version: 3, Codec: "gzip", Method: "mode"}, func(e *Export) { ended <- e })
	if err != nil {
		t.Fatal(err)
	}
	<-ended
	if err := e.Err(); err != nil {
		t.Fatal(err)
	}
	root, err := os.ReadFile(filepath.Join(out, "zarr.json"))
	if err != nil {
		t.Fatalf("no Zarr 3 metadata: %v", err)
	}
	if !strings.Contains(string(root), `"mode"`) {
		t.Errorf("the multiscales do not say mode: %s", root)
	}
	arr, err := os.ReadFile(filepath.Join(out, "1", "zarr.json"))
	if err != nil || !strings.Contains(string(arr), "gzip") {
		t.Errorf("level 1 is not gzip-compressed: %s %v", arr, err)
	}
}
