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
	"strconv"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
	"vastview/loader/internal/loadertest"
)

// TestPhantomLegacyCine opens the 2008 Phantom cine PIMS tests with: 97
// frames of 128×128 16-bit samples at 35087 frames/s, rows top-down;
// frames 0, 1 and 96 equal ffmpeg's decode of them (its cine demuxer, a
// reader we did not write), which widens the camera's 14-bit samples to
// 16 bits by repeating their top bits: v<<2 | v>>12 of ours.
func TestPhantomLegacyCine(t *testing.T) {
	ffmpeg := testtool.Require(t, "ffmpeg")
	path := testtool.SharedData(t, "cine/cine_legacy.cine")
	src := loadertest.OpenMatched(t, path, Match, Open)
	m := src.Meta()
	if m.Axes != "TYX" || fmt.Sprint(m.Shape) != "[97 128 128]" || m.DType != loader.Uint16 ||
		m.Units[0] != "second" || math.Round(1/m.Spacing[0]) != 35087 {
		t.Fatalf("meta %s %v %s spacing %v %v", m.Axes, m.Shape, m.DType, m.Spacing, m.Units)
	}
	// The period is the shortest decimal whose rate rounds to the file's
	// whole 35087 fps: one digit fewer gives another rate.
	mant, _, _ := strings.Cut(strconv.FormatFloat(m.Spacing[0], 'e', -1, 64), "e")
	digits := len(strings.ReplaceAll(mant, ".", ""))
	if shorter, _ := strconv.ParseFloat(strconv.FormatFloat(m.Spacing[0], 'e', digits-2, 64), 64); math.Round(1/shorter) == 35087 {
		t.Errorf("T spacing %v: %v is shorter and has the same rate", m.Spacing[0], shorter)
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
	b, err := os.ReadFile(testtool.SharedData(t, "cine/cine_legacy.cine"))
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
	b, err := os.ReadFile(testtool.SharedData(t, "cine/cine_legacy.cine"))
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
	gray, err := Open(context.Background(), testtool.SharedData(t, "cine/cine_legacy.cine"))
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

// TestPackedCine: frames of packed 10- and 12-bit samples (most significant
// bit first, rows top down) read as the 16-bit values they pack. The files
// are the legacy cine's frames, shifted to the packed width and packed by
// numpy's bit routines, a packer we did not write.
func TestPackedCine(t *testing.T) {
	b, err := os.ReadFile(testtool.SharedData(t, "cine/cine_legacy.cine"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := Open(context.Background(), testtool.SharedData(t, "cine/cine_legacy.cine"))
	if err != nil {
		t.Fatal(err)
	}
	m := src.Meta()
	frames, pixels := m.Shape[0], m.Shape[1]*m.Shape[2]
	var all []byte
	for i := range frames {
		all = append(all, loadertest.Frame(t, src, i)...)
	}
	src.Close()
	le := binary.LittleEndian
	dir := t.TempDir()
	for _, bits := range []int{10, 12} {
		t.Run(fmt.Sprint(bits), func(t *testing.T) {
			want := make([]byte, len(all))
			for k := 0; k < len(all); k += 2 {
				le.PutUint16(want[k:], le.Uint16(all[k:])>>(14-bits)) // 14-bit samples
			}
			raw, packed := filepath.Join(dir, "want.raw"), filepath.Join(dir, "packed.raw")
			if err := os.WriteFile(raw, want, 0o644); err != nil {
				t.Fatal(err)
			}
			testtool.RequirePython(t, "numpy")
			testtool.RunPython(t, `
import sys, numpy as np
a, n = np.fromfile(sys.argv[1], '<u2'), int(sys.argv[3])
bits = np.unpackbits(a.astype('>u2').view(np.uint8)).reshape(-1, 16)[:, 16 - n:]
np.packbits(bits.reshape(-1)).tofile(sys.argv[2])
`, raw, packed, fmt.Sprint(bits))
			pk, err := os.ReadFile(packed)
			if err != nil {
				t.Fatal(err)
			}
			fb := pixels * bits / 8
			if len(pk) != frames*fb {
				t.Fatalf("packed %d bytes, want %d frames of %d", len(pk), frames, fb)
			}
			// The file up to frame 0, then each frame's annotation and its
			// packed samples, the offsets table pointing at them.
			table := int(le.Uint32(b[offOffsets:]))
			first := int(le.Uint64(b[table:]))
			out := bytes.Clone(b[:first])
			for i := range frames {
				at := int(le.Uint64(b[table+8*i:]))
				ann := b[at:][:le.Uint32(b[at:])]
				le.PutUint64(out[table+8*i:], uint64(len(out)))
				out = append(out, ann...)
				out = append(out, pk[i*fb:][:fb]...)
			}
			bmi := int(le.Uint32(b[offImageHeader:]))
			le.PutUint32(out[bmi+16:], map[int]uint32{10: 256, 12: 1024}[bits])
			le.PutUint32(out[bmi+20:], uint32(fb))
			path := filepath.Join(dir, fmt.Sprintf("packed%d.cine", bits))
			if err := os.WriteFile(path, out, 0o644); err != nil {
				t.Fatal(err)
			}
			src, err := loader.Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			m := src.Meta()
			if fmt.Sprint(m.Shape) != fmt.Sprint([]int{frames, 128, 128}) || m.DType != loader.Uint16 ||
				len(m.Notes) == 0 || !strings.Contains(m.Notes[0], fmt.Sprintf("packed %d-bit", bits)) {
				t.Fatalf("meta %v %s notes %q", m.Shape, m.DType, m.Notes)
			}
			for i := range frames {
				if got := loadertest.Frame(t, src, i); !bytes.Equal(got, want[i*2*pixels:][:2*pixels]) {
					t.Fatalf("frame %d differs from the samples packed", i)
				}
			}
		})
	}
}
