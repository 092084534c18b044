package cine

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"vastview/internal/testtool"
	"vastview/loader"
	"vastview/loader/internal/loadertest"
)

const shared = "../../../shared/testdata/cine"

// TestPhantomLegacyCine opens the 2008 Phantom cine PIMS tests with: 97
// frames of 128×128 16-bit samples at 35087 frames/s, rows top-down;
// frames 0, 1 and 96 equal ffmpeg's decode of them (its cine demuxer, a
// reader we did not write), which widens the camera's 14-bit samples to
// 16 bits by repeating their top bits: v<<2 | v>>12 of ours.
func TestPhantomLegacyCine(t *testing.T) {
	ffmpeg := testtool.Require(t, "ffmpeg")
	path := filepath.Join(shared, "cine_legacy.cine")
	head, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !Match(path, head[:4096]) {
		t.Fatal("not matched")
	}
	src, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	m := src.Meta()
	if m.Axes != "TYX" || fmt.Sprint(m.Shape) != "[97 128 128]" || m.DType != loader.Uint16 ||
		m.Units[0] != "second" || math.Abs(1/m.Spacing[0]-35087) > 1e-6 {
		t.Fatalf("meta %s %v %s spacing %v %v", m.Axes, m.Shape, m.DType, m.Spacing, m.Units)
	}
	raw := filepath.Join(t.TempDir(), "frames.raw")
	out, err := exec.Command(ffmpeg, "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "gray16le", raw).CombinedOutput()
	if err != nil {
		t.Fatalf("ffmpeg: %v %s", err, out)
	}
	all, err := os.ReadFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	const fb = 128 * 128 * 2
	if len(all) != 97*fb {
		t.Fatalf("ffmpeg decoded %d bytes, want 97 frames", len(all))
	}
	// PCC's setup: a 14-bit sensor; its tagged time block: frame 0's time.
	if want := []string{"sensor samples of 14 bits, stored in 16", "frame 0 time stamp 2008-05-08 19:46:39.192574 (camera clock)"}; fmt.Sprint(m.Notes) != fmt.Sprint(want) {
		t.Errorf("notes %q, want %q", m.Notes, want)
	}
	for _, i := range []int{0, 1, 96} {
		got, want := loadertest.Frame(t, src, i), all[i*fb:][:fb]
		for k := 0; k < 128*128; k++ {
			if g, w := binary.LittleEndian.Uint16(got[2*k:]), binary.LittleEndian.Uint16(want[2*k:]); g<<2|g>>12 != w {
				t.Fatalf("frame %d sample %d (row %d): %d, ffmpeg %d", i, k, k/128, g, w)
			}
		}
	}
}

// TestBadCineGivesOneClearError: a cine cut short, compressed frames and
// a colour one are refused in one line saying why.
func TestBadCineGivesOneClearError(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(shared, "cine_legacy.cine"))
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	bmi := int(le.Uint32(b[offImageHeader:]))
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		edit func(b []byte) []byte
		want string
	}{
		{"table.cine", func(b []byte) []byte { return b[:int(le.Uint32(b[offOffsets:]))+100] }, "truncated"},
		{"frames.cine", func(b []byte) []byte { return b[:len(b)-5000] }, "truncated"},
		{"jpeg.cine", func(b []byte) []byte { le.PutUint16(b[offCompression:], 1); return b }, "compressed"},
		{"rgb.cine", func(b []byte) []byte { le.PutUint16(b[bmi+14:], 24); return b }, "24 bits"},
		{"packed.cine", func(b []byte) []byte { le.PutUint32(b[bmi+16:], 1024); return b }, "packed 12-bit"},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.edit(bytes.Clone(b)), 0o644); err != nil {
			t.Fatal(err)
		}
		src, err := Open(context.Background(), path)
		if err == nil { // cut inside the frames: the last frame's read fails
			m := src.Meta()
			dst := make([]byte, m.Levels[0].ChunkBytes(m.DType))
			err = src.ReadChunk(context.Background(), 0, []int{m.Shape[0] - 1, 0, 0}, dst)
			src.Close()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line saying %q", c.name, err, c.want)
		}
	}
}

// TestRawMosaicCine: the raw frames of a colour camera (file compression
// 2) are read as stored, as gray, and the setup's colour filter array is
// named in the notes.
func TestRawMosaicCine(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(shared, "cine_legacy.cine"))
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	setup := int(le.Uint32(b[offSetup:]))
	raw := bytes.Clone(b)
	le.PutUint16(raw[offCompression:], 2)
	le.PutUint32(raw[setup+setupCFA:], 3)
	path := filepath.Join(t.TempDir(), "mosaic.cine")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	gray, err := Open(context.Background(), filepath.Join(shared, "cine_legacy.cine"))
	if err != nil {
		t.Fatal(err)
	}
	defer gray.Close()
	if m := src.Meta(); m.DType != loader.Uint16 || !strings.Contains(strings.Join(m.Notes, ";"), "colour filter mosaic GB/RG, shown as stored") {
		t.Errorf("%s, notes %q", m.DType, m.Notes)
	}
	if !bytes.Equal(loadertest.Frame(t, src, 5), loadertest.Frame(t, gray, 5)) {
		t.Error("the mosaic's frame is not the one stored")
	}
}
