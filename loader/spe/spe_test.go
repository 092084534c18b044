package spe

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
	"vastview/loader/internal/loadertest"
)

// TestWinSpecStack opens the SPE 2.x stack written by WinSpec that PIMS
// tests with: five 128×128 uint16 frames, the first two equal to the
// frames PIMS saved beside it.
func TestWinSpecStack(t *testing.T) {
	path := testtool.SharedData(t, "spe/spestack_test.spe")
	src := loadertest.OpenMatched(t, path, Match, Open)
	m := src.Meta()
	if m.Format != "spe" || m.Axes != "TYX" || fmt.Sprint(m.Shape) != "[5 128 128]" || m.DType != loader.Uint16 {
		t.Fatalf("meta %s %s %v %s", m.Format, m.Axes, m.Shape, m.DType)
	}
	for i, ref := range []string{"spestack_test_frame0.npy", "spestack_test_frame1.npy"} {
		descr, shape, want := testtool.ReadNPY(t, testtool.SharedData(t, "spe/"+ref))
		if descr != "<u2" || fmt.Sprint(shape) != "[128 128]" {
			t.Fatalf("%s: %s %v", ref, descr, shape)
		}
		if got := loadertest.Frame(t, src, i); !bytes.Equal(got, want) {
			t.Errorf("frame %d differs from PIMS's %s", i, ref)
		}
	}
}

// spe3 makes an SPE 3.0 file as LightField lays one out: the 4100-byte
// header (version 3, the footer's offset), frames of one w×h region of
// uint16 samples each followed by an exposure time stamp (ticks of
// 1/resolution s, dt apart), and the XML footer describing them.
func spe3(frames, w, h int, dt float64) (file []byte, frameSamples [][]uint16) {
	const resolution = 1000000
	hdr := make([]byte, headerSize)
	le := binary.LittleEndian
	le.PutUint16(hdr[offWidth:], uint16(w))
	le.PutUint16(hdr[offHeight:], uint16(h))
	le.PutUint16(hdr[offType:], 3)
	le.PutUint32(hdr[offFrames:], uint32(frames))
	le.PutUint32(hdr[offVersion:], math.Float32bits(3.0))
	size := 2 * w * h
	stride := size + 8
	var body bytes.Buffer
	var want [][]uint16
	for f := 0; f < frames; f++ {
		px := make([]uint16, w*h)
		for i := range px {
			px[i] = uint16((i*7 + f*1000) % 65536)
		}
		want = append(want, px)
		binary.Write(&body, le, px)
		binary.Write(&body, le, int64(float64(f)*dt*resolution+12345))
	}
	le.PutUint64(hdr[offXML:], uint64(headerSize+body.Len()))
	footer := fmt.Sprintf(`<?xml version="1.0" encoding="utf-8"?>
<SpeFormat version="3.0" xmlns="http://www.princetoninstruments.com/spe/2009">
  <DataFormat>
    <DataBlock type="Frame" version="3.0" count="%d" pixelFormat="MonochromeUnsigned16" size="%d" stride="%d">
      <DataBlock type="Region" version="3.0" count="1" width="%d" height="%d" size="%d" stride="%d" />
    </DataBlock>
  </DataFormat>
  <MetaFormat>
    <MetaBlock type="TimeStamp" event="ExposureStarted" version="1.0" resolution="%d" bitDepth="64" />
  </MetaFormat>
</SpeFormat>`, frames, size, stride, w, h, size, size, resolution)
	return append(append(hdr, body.Bytes()...), footer...), want
}

// TestLightFieldFrames reads an SPE 3.0 file whose frames carry time
// stamps: each frame as written, the T spacing from the time stamps.
func TestLightFieldFrames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lf.spe")
	b, want := spe3(4, 30, 20, 0.025)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	m := src.Meta()
	if m.Axes != "TYX" || fmt.Sprint(m.Shape) != "[4 20 30]" || m.Units[0] != "second" || math.Abs(m.Spacing[0]-0.025) > 1e-9 {
		t.Fatalf("meta %s %v spacing %v %v", m.Axes, m.Shape, m.Spacing, m.Units)
	}
	for f, px := range want {
		got := loadertest.Frame(t, src, f)
		for i, v := range px {
			if le := binary.LittleEndian.Uint16(got[2*i:]); le != v {
				t.Fatalf("frame %d sample %d: %d, want %d", f, i, le, v)
			}
		}
	}
}

// TestBadSPEGivesOneClearError: a file cut short and an unknown sample
// type are refused, in one line saying why.
func TestBadSPEGivesOneClearError(t *testing.T) {
	b, err := os.ReadFile(testtool.SharedData(t, "spe/spestack_test.spe"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"cut.spe", b[:len(b)-100], "truncated"},
		{"head.spe", b[:3000], "header"},
		{"type.spe", func() []byte {
			c := bytes.Clone(b)
			binary.LittleEndian.PutUint16(c[offType:], 77)
			return c
		}(), "sample type"},
	}
	for _, c := range cases {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(context.Background(), path)
		loadertest.ClearError(t, c.name, err, c.want)
	}
}

// TestImpossibleHeaderNamesTheField: a WinSpec file with one header field
// that no SPE file can have is recognised as SPE all the same (by its
// name: SPE has no magic number) and refused in one line naming the field
// and its value, not as a file of no known format; an unknown sample type
// names its code.
func TestImpossibleHeaderNamesTheField(t *testing.T) {
	b, err := os.ReadFile(testtool.SharedData(t, "spe/spestack_test.spe"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		off  int
		v    uint32
		size int
		want string
	}{
		{"frames.spe", offFrames, 0xffffffff, 4, "the frame count (NumFrames, byte 1446) is -1"},
		{"width.spe", offWidth, 0, 2, "the frame width (xdim, byte 42) is 0"},
		{"height.spe", offHeight, 0, 2, "the frame height (ydim, byte 656) is 0"},
		{"type.spe", offType, 77, 2, "spe: unsupported sample type code 77 (datatype, byte 108)"},
	} {
		d := bytes.Clone(b)
		if c.size == 4 {
			binary.LittleEndian.PutUint32(d[c.off:], c.v)
		} else {
			binary.LittleEndian.PutUint16(d[c.off:], uint16(c.v))
		}
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, d, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := loader.Open(context.Background(), path)
		loadertest.ClearError(t, c.name, err, c.want)
	}
}
