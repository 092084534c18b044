package norpix

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
	"vastview/loader/internal/loadertest"
)

// TestStreamPixSequence opens the StreamPix 6 sequence PIMS tests with:
// six 36×32 uint8 frames, every one different, each the bytes stored at
// its place (8192 + i × 8192), 33.8 ms apart by their time stamps.
func TestStreamPixSequence(t *testing.T) {
	path := testtool.SharedData(t, "seq/sample_norpix6.seq")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	src := loadertest.OpenMatched(t, path, Match, Open)
	m := src.Meta()
	if m.Axes != "TYX" || fmt.Sprint(m.Shape) != "[6 32 36]" || m.DType != loader.Uint8 || m.Units[0] != "second" {
		t.Fatalf("meta %s %v %s %v", m.Axes, m.Shape, m.DType, m.Units)
	}
	// The stamps: 1435776075 s + 775.430 ms first, 944.373 ms last.
	if want := (0.944373 - 0.775430) / 5; math.Abs(m.Spacing[0]-want) > 1e-9 {
		t.Errorf("T spacing %v, want %v", m.Spacing[0], want)
	}
	seen := map[string]bool{}
	for i := 0; i < 6; i++ {
		got := loadertest.Frame(t, src, i)
		if want := raw[8192+i*8192:][:36*32]; !bytes.Equal(got, want) {
			t.Errorf("frame %d is not the bytes at %d", i, 8192+i*8192)
		}
		seen[string(got)] = true
	}
	if len(seen) != 6 {
		t.Errorf("%d different frames of 6", len(seen))
	}
}

// seq makes a sequence of the given version: w×h frames of 16-bit
// samples, each followed by a time stamp dt apart, frames of them written
// though the header allocates alloc.
func seq(version, w, h, frames, alloc int, dt float64) []byte {
	start := 1024
	if version >= 5 {
		start = 8192
	}
	imageBytes := 2 * w * h
	stride := imageBytes + 8 + 6 // room the writer pads with
	b := make([]byte, start+frames*stride)
	le := binary.LittleEndian
	le.PutUint32(b, magic)
	le.PutUint32(b[offVersion:], uint32(version))
	le.PutUint32(b[offHeaderSize:], 1024)
	for off, v := range map[int]int{offWidth: w, offHeight: h, offBitDepth: 16, offImageBytes: imageBytes,
		offFormat: formatMono, offFrames: alloc, offTrueSize: stride} {
		le.PutUint32(b[off:], uint32(v))
	}
	le.PutUint64(b[offFrameRate:], math.Float64bits(1/dt))
	for i := 0; i < frames; i++ {
		o := start + i*stride
		for k := 0; k < w*h; k++ {
			le.PutUint16(b[o+2*k:], uint16(k*3+i*500))
		}
		us := int64(float64(i)*dt*1e6) + 1_000_250
		le.PutUint32(b[o+imageBytes:], uint32(us/1e6))
		le.PutUint16(b[o+imageBytes+4:], uint16(us/1000%1000))
		le.PutUint16(b[o+imageBytes+6:], uint16(us%1000))
	}
	return b
}

// TestOlderAndCutShortSequences: a version 4 sequence of 16-bit frames
// starts after its stated header, and one that stopped before the frames
// its header allocates keeps those it has.
func TestOlderAndCutShortSequences(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "v4.seq")
	if err := os.WriteFile(path, seq(4, 10, 6, 5, 9, 0.002), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	m := src.Meta()
	if fmt.Sprint(m.Shape) != "[5 6 10]" || m.DType != loader.Uint16 || math.Abs(m.Spacing[0]-0.002) > 1e-6 {
		t.Fatalf("meta %v %s %v", m.Shape, m.DType, m.Spacing)
	}
	if want := "[the header promises 9 frames; the file holds 5]"; fmt.Sprint(m.Notes) != want {
		t.Errorf("notes %v, want %s", m.Notes, want)
	}
	got := loadertest.Frame(t, src, 3)
	for k := 0; k < 60; k++ {
		if v := binary.LittleEndian.Uint16(got[2*k:]); v != uint16(k*3+3*500) {
			t.Fatalf("frame 3 sample %d: %d", k, v)
		}
	}
}

// TestBadSequenceGivesOneClearError: no frame in the file, a compressed
// sequence and a colour one are refused in one line saying why.
func TestBadSequenceGivesOneClearError(t *testing.T) {
	dir := t.TempDir()
	good := seq(5, 8, 4, 3, 3, 0.01)
	for _, c := range []struct {
		name string
		edit func(b []byte) []byte
		want string
	}{
		{"short.seq", func(b []byte) []byte { return b[:8192+10] }, "truncated"},
		{"jpeg.seq", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[offCompress:], 1); return b }, "compressed"},
		{"bgr.seq", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[offFormat:], 200); return b }, "image format 200"},
		{"head.seq", func(b []byte) []byte { return b[:300] }, "header"},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.edit(bytes.Clone(good)), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(context.Background(), path)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line saying %q", c.name, err, c.want)
		}
	}
}

// TestBayerSequenceSaysSo: the frames of a Bayer sequence are read as
// stored, and the notes say they are a colour filter mosaic.
func TestBayerSequenceSaysSo(t *testing.T) {
	raw, err := os.ReadFile(testtool.SharedData(t, "seq/sample_norpix6.seq"))
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint32(raw[offFormat:], formatMonoBayer)
	path := filepath.Join(t.TempDir(), "bayer.seq")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if want := "[Bayer colour filter mosaic, shown as stored (gray)]"; fmt.Sprint(src.Meta().Notes) != want {
		t.Errorf("notes %v, want %s", src.Meta().Notes, want)
	}
	if !bytes.Equal(loadertest.Frame(t, src, 2), raw[8192+2*8192:][:36*32]) {
		t.Error("frame 2 is not the bytes stored")
	}
}
