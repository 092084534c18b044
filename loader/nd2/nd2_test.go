package nd2

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
	"vastview/loader/internal/loadertest"
)

// cluster reads the one real ND2 file, skipping the test (failing it
// under CI) without it.
func cluster(t testing.TB) (string, []byte) {
	t.Helper()
	path := testtool.SharedData(t, "nd2/cluster.nd2")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, b
}

// scanFrames finds every ImageDataSeq|N! chunk by scanning the whole file
// for the chunk magic, without the chunk map: N → the chunk's data.
func scanFrames(b []byte) map[int][]byte {
	out := map[int][]byte{}
	magic := binary.LittleEndian.AppendUint32(nil, chunkMagic)
	for i := 0; ; i++ {
		j := bytes.Index(b[i:], magic)
		if j < 0 {
			return out
		}
		i += j
		if len(b)-i < 16 {
			return out
		}
		nameLen := int(binary.LittleEndian.Uint32(b[i+4:]))
		dataLen := int(binary.LittleEndian.Uint64(b[i+8:]))
		if nameLen > len(b)-i-16 || dataLen > len(b)-i-16-nameLen {
			continue
		}
		name := string(bytes.TrimRight(b[i+16:i+16+nameLen], "\x00"))
		if s, ok := strings.CutPrefix(name, "ImageDataSeq|"); ok && strings.HasSuffix(s, "!") {
			if n, err := strconv.Atoi(strings.TrimSuffix(s, "!")); err == nil {
				out[n] = b[i+16+nameLen : i+16+nameLen+dataLen]
			}
		}
	}
}

func readPlane(t *testing.T, src loader.Source, at map[byte]int) []byte {
	t.Helper()
	buf, _, _, err := loader.ReadPlane(context.Background(), src, 0, loader.Plane{Orientation: loader.XY, At: at})
	if err != nil {
		t.Fatal(err)
	}
	return buf
}

// TestCluster opens the real file through loader.Open: 3 time points of
// 10 planes of 2 channels, 38×31 uint16 pixels, with the calibration, Z
// step, times and channels PIMS/Bio-Formats report; planes equal the
// frames found by scanning the file, de-interleaved.
func TestCluster(t *testing.T) {
	path, b := cluster(t)
	if !Match(path, b[:4096]) {
		t.Fatal("not matched")
	}
	src, err := loader.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	m := src.Meta()
	if m.Format != "nd2" || m.Axes != "TZCYX" || fmt.Sprint(m.Shape) != "[3 10 2 31 38]" || m.DType != loader.Uint16 {
		t.Fatalf("meta %s %s %v %s", m.Format, m.Axes, m.Shape, m.DType)
	}
	if math.Abs(m.Spacing[4]-0.167808983) > 1e-8 || m.Spacing[3] != m.Spacing[4] || m.Units[4] != "micrometer" || m.Units[3] != "micrometer" {
		t.Errorf("XY spacing %v %v", m.Spacing, m.Units)
	}
	if m.Spacing[1] != 0.5 || m.Units[1] != "micrometer" {
		t.Errorf("Z spacing %v %v", m.Spacing[1], m.Units[1])
	}
	if m.Units[0] != "second" || !(m.Spacing[0] > 0) || math.Abs(m.Levels[0].Translation[0]-0.445083498) > 1e-6 {
		t.Errorf("T spacing %v %v, starting at %v", m.Spacing[0], m.Units[0], m.Levels[0].Translation[0])
	}
	if len(m.Channels) != 2 || m.Channels[0].Label != "5-FAM/pH 9.0" || m.Channels[1].Label != "FM 4-64/2% CHAPS" || m.RGB {
		t.Fatalf("channels %+v", m.Channels)
	}
	c := m.Channels[0].Color
	if !m.Channels[0].HasColor || math.Abs(float64(c[0])/255-0.47) > 0.01 || math.Abs(float64(c[1])/255-0.91) > 0.01 || math.Abs(float64(c[2])/255-0.06) > 0.01 {
		t.Errorf("channel 0 colour %v", c)
	}
	if len(m.Series) != 0 {
		t.Errorf("series %v", m.Series)
	}
	frames := scanFrames(b)
	if len(frames) != 30 {
		t.Fatalf("scan found %d frames", len(frames))
	}
	if ms := math.Float64frombits(binary.LittleEndian.Uint64(frames[0])); math.Abs(ms-445.083498) > 1e-3 {
		t.Errorf("frame 0 time stamp %v ms", ms)
	}
	nonzero := 0
	for _, tc := range [][3]int{{0, 0, 0}, {0, 0, 1}, {1, 4, 0}, {2, 9, 1}, {2, 3, 0}, {1, 7, 1}, {0, 1, 0}} {
		got := readPlane(t, src, map[byte]int{'T': tc[0], 'Z': tc[1], 'C': tc[2]})
		data := frames[tc[0]*10+tc[1]]
		want := make([]byte, 0, 38*31*2)
		for px := 0; px < 38*31; px++ {
			at := 8 + (px*2+tc[2])*2
			want = append(want, data[at], data[at+1])
		}
		if !bytes.Equal(got, want) {
			t.Errorf("plane t=%d z=%d c=%d differs from the scanned frame", tc[0], tc[1], tc[2])
		}
		if !bytes.Equal(want, make([]byte, len(want))) {
			nonzero++
		}
	}
	// Channel 1 and the upper planes of this file are black.
	if nonzero < 2 {
		t.Errorf("only %d of the planes compared hold light", nonzero)
	}
}

// TestBadFilesGiveOneClearError: a file whose chunk map is cut off, whose
// map offset or entries are corrupt, whose frames the map misplaces, and a
// legacy JPEG 2000 ND2 are refused in one line, never with a panic.
func TestBadFilesGiveOneClearError(t *testing.T) {
	_, b := cluster(t)
	le := binary.LittleEndian
	mapAt := int(le.Uint64(b[len(b)-8:]))
	edit := func(f func(c []byte)) []byte {
		c := bytes.Clone(b)
		f(c)
		return c
	}
	jp2 := append([]byte{0, 0, 0, 0x0C, 'j', 'P', ' ', ' ', 0x0D, 0x0A, 0x87, 0x0A}, make([]byte, 500)...)
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"cut.nd2", b[:len(b)-1000], "chunk map signature is missing"},
		{"cutmap.nd2", b[:mapAt+200], "chunk map signature is missing"},
		{"offset.nd2", edit(func(c []byte) { le.PutUint64(c[len(c)-8:], uint64(len(c)+4096)) }), "chunk map at byte"},
		{"offset2.nd2", edit(func(c []byte) { le.PutUint64(c[len(c)-8:], 4096*3) }), "chunk map at byte"},
		{"entries.nd2", edit(func(c []byte) {
			for i := mapAt + 16 + 32; i < len(c)-40; i++ {
				c[i] = 'x'
			}
		}), "chunk map ends"},
		{"frames.nd2", edit(func(c []byte) {
			for i := mapAt; i < len(c)-40; i++ {
				if bytes.HasPrefix(c[i:], []byte("ImageDataSeq|0!")) {
					le.PutUint64(c[i+15:], 4096) // at another chunk
				}
			}
		}), "ImageDataSeq|0!"},
		{"attrs.nd2", edit(func(c []byte) {
			i := bytes.Index(c, []byte("uiWidth\x00"))
			_ = i
			a := bytes.Index(c, utf16le("uiComp"))
			c[a-2] = 99 // an unknown item type
		}), "unknown type 99"},
		{"legacy.nd2", jp2, "legacy JPEG 2000 ND2"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		if c.name == "legacy.nd2" && !Match(path, c.data) {
			t.Errorf("legacy file not matched")
		}
		src, err := Open(context.Background(), path)
		if err == nil {
			// A misplaced frame is found when it is read.
			_, err = loader.ReadAll(context.Background(), src, 0, 1<<24)
			src.Close()
		}
		if loadertest.ClearError(t, c.name, err, c.want) && strings.Contains(err.Error(), dir) {
			t.Errorf("%s: %v names the folder", c.name, err)
		}
	}
}

func utf16le(s string) []byte {
	var b []byte
	for _, r := range s {
		b = append(b, byte(r), 0)
	}
	return b
}

// writeSynth writes s to a file in a temporary folder.
func writeSynth(t *testing.T, s synth, name string) string {
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, s.build(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkSynth checks that plane (n, c) of src holds what synth wrote.
func checkSynth(t *testing.T, src loader.Source, s synth, at map[byte]int, n, c int) {
	t.Helper()
	got := readPlane(t, src, at)
	es := src.Meta().DType.Size()
	for y := range s.h {
		for x := range s.w {
			i := (y*s.w + x) * es
			v := uint32(got[i])
			want := sample(n, x, y, c) & 0xff
			if es == 2 {
				v = uint32(binary.LittleEndian.Uint16(got[i:]))
				want = sample(n, x, y, c) & (1<<s.bits - 1)
			}
			if v != want {
				t.Fatalf("%v: pixel (%d, %d) is %d, want %d", at, x, y, v, want)
			}
		}
	}
}

// TestMultipointSeries: a multipoint loop outside a Z stack inside a time
// loop becomes series named after the points, each "TZYX" of 8-bit
// pixels; loader.Open selects them by index and by name.
func TestMultipointSeries(t *testing.T) {
	s := synth{w: 9, h: 5, comps: 1, bits: 8, loops: []loop{{'T', 2}, {'P', 3}, {'Z', 4}},
		points: []string{"well A1", "well A2", "well B1"}, channels: []string{"DAPI"}, colors: []uint32{0xff0000}}
	path := writeSynth(t, s, "multi.nd2")
	for sel, p := range map[string]int{"": 0, "#1": 1, "#well B1": 2} {
		src, err := loader.Open(context.Background(), path+sel)
		if err != nil {
			t.Fatal(sel, err)
		}
		m := src.Meta()
		if m.Axes != "TZYX" || fmt.Sprint(m.Shape) != "[2 4 5 9]" || m.DType != loader.Uint8 || len(m.Series) != 3 ||
			m.SeriesIndex != p || m.Series[2].Name != "well B1" {
			t.Fatalf("%q: %s %v %s series %v #%d", sel, m.Axes, m.Shape, m.DType, m.Series, m.SeriesIndex)
		}
		if m.Spacing[1] != 1.5 || m.Spacing[3] != 0.25 || m.Units[0] != "second" || math.Abs(m.Spacing[0]-3) > 1e-9 {
			// time stamps 100+250n ms: between t=0 and t=1 are 3 positions × 4 planes.
			t.Errorf("%q: spacing %v %v", sel, m.Spacing, m.Units)
		}
		if len(m.Channels) != 1 || m.Channels[0].Label != "DAPI" || m.Channels[0].Color != [3]uint8{0, 0, 255} {
			t.Errorf("channels %+v", m.Channels)
		}
		for _, tz := range [][2]int{{0, 0}, {1, 3}, {0, 2}} {
			n := tz[0]*12 + p*4 + tz[1]
			checkSynth(t, src, s, map[byte]int{'T': tz[0], 'Z': tz[1]}, n, 0)
		}
		src.Close()
	}
	if _, err := loader.Open(context.Background(), path+"#7"); err == nil || !strings.Contains(err.Error(), "well A2") {
		t.Errorf("series 7: %v", err)
	}
}

// TestDepthsAndLayouts: 12-bit samples in 16, three interleaved
// channels, rows padded, frames compressed; a colour camera's RGB.
func TestDepthsAndLayouts(t *testing.T) {
	cases := []struct {
		name string
		s    synth
		axes string
		rgb  bool
	}{
		{"plain16", synth{w: 7, h: 6, comps: 3, bits: 12, loops: []loop{{'Z', 2}, {'T', 3}},
			channels: []string{"a", "b", "c"}, colors: []uint32{1, 2, 3}}, "ZTCYX", false},
		{"padded", synth{w: 7, h: 6, comps: 3, bits: 16, loops: []loop{{'T', 2}}, padRow: 6,
			channels: []string{"a", "b", "c"}, colors: []uint32{1, 2, 3}}, "TCYX", false},
		{"zlib", synth{w: 10, h: 4, comps: 2, bits: 14, loops: []loop{{'Z', 3}}, compress: true, padRow: 4,
			channels: []string{"a", "b"}, colors: []uint32{1, 2}}, "ZCYX", false},
		{"rgb", synth{w: 5, h: 3, comps: 3, bits: 8, channels: []string{"Brightfield"}, colors: []uint32{0xffffff}}, "CYX", true},
	}
	for _, c := range cases {
		path := writeSynth(t, c.s, c.name+".nd2")
		src, err := Open(context.Background(), path)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		m := src.Meta()
		if m.Axes != c.axes || m.RGB != c.rgb || (m.DType == loader.Uint8) != (c.s.bits == 8) {
			t.Fatalf("%s: %s %v %s rgb %v", c.name, m.Axes, m.Shape, m.DType, m.RGB)
		}
		nf := c.s.frames()
		for n := range nf {
			for ch := range c.s.comps {
				at := map[byte]int{'C': ch}
				rest := n
				for i := len(c.s.loops) - 1; i >= 0; i-- {
					at[c.s.loops[i].axis] = rest % c.s.loops[i].count
					rest /= c.s.loops[i].count
				}
				checkSynth(t, src, c.s, at, n, ch)
			}
		}
		src.Close()
	}
}
