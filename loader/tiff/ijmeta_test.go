package tiff

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unicode/utf16"

	"vastview/base/testtool"
	"vastview/loader"
)

// ijDisplayFixtures writes ImageJ hyperstacks with display metadata in
// both byte orders and prints, per file, the colour tables, ranges and
// labels it wrote (tables as [channel][entry][r, g, b]).
const ijDisplayFixtures = `
import sys, json, numpy as np, tifffile
d = sys.argv[1]
rng = np.random.default_rng(4)
i = np.arange(256)
def ramp(r, g, b, rnd=np.round):
    return np.stack([rnd(i * c / 255) for c in (r, g, b)]).astype(np.uint8)
green, magenta = ramp(0, 255, 0), ramp(255, 0, 255)
orange = ramp(255, 128, 0, np.floor)  # as ImageJ builds a table from a colour
gray = ramp(255, 255, 255)
fire = np.stack([np.clip(3 * i, 0, 255), np.clip(3 * i - 255, 0, 255), np.clip(3 * i - 510, 0, 255)]).astype(np.uint8)
peak = np.stack([255 - abs(2 * i - 255), (255 - abs(2 * i - 255)) // 2, i // 4]).astype(np.uint8)
out = {}
def w(name, data, luts, ranges, labels, **md):
    meta = dict(md)
    if luts is not None:
        meta['LUTs'] = luts
    if ranges is not None:
        meta['Ranges'] = ranges
    if labels is not None:
        meta['Labels'] = labels
    for bo, suffix in (('<', 'le'), ('>', 'be')):
        tifffile.imwrite(d + '/' + name + '_' + suffix + '.tif', data, imagej=True, byteorder=bo, metadata=meta)
    out[name] = {'luts': [l.T.tolist() for l in (luts or [])]}
zc = rng.integers(0, 4000, (3, 2, 12, 9), dtype=np.uint16)
w('composite', zc, [green, magenta], (1.5, 200.0, 3.0, 4000.0),
  ['GFP', 'mCherry', 'z1 c0', 'z1 c1', 'z2 c0', 'z2 c1'], axes='ZCYX', mode='composite')
tc = rng.normal(size=(2, 3, 12, 9)).astype(np.float32)
# Ranges as a list of pairs: tifffile writes one block per pair.
w('color', tc, [fire, orange, peak], [(-1.0, 1.0), (-2.5, 2.5), (0.0, 0.5)],
  ['fire\nnotes on the next line', '  orange  ', ''] + ['t1'] * 3, axes='TCYX', mode='color')
w('gray', zc, None, None, None, axes='ZCYX', mode='grayscale')
w('custom', zc, [gray, green], None, None, axes='ZCYX', mode='custom')
w('single', zc[:, 0], [fire], None, ['slice 1', 'slice 2', 'slice 3'], axes='ZYX', min=10, max=900.5)
# ImageJ keeps the table of a 16-bit image of one channel in a ColorMap of
# 8-bit values in high bytes, on a page that stays BlackIsZero.
cm = (peak.astype(np.uint16) << 8).ravel()
tifffile.imwrite(d + '/colormap.tif', zc[:, 0], imagej=True, metadata={'axes': 'ZYX'},
                 extratags=[(320, 3, 768, cm, True)])
out['colormap'] = {'luts': [peak.T.tolist()]}
json.dump(out, sys.stdout)
`

// TestImageJDisplay reads the channel mode, names, display ranges and
// colour tables of ImageJ hyperstacks written by tifffile.
func TestImageJDisplay(t *testing.T) {
	testtool.RequirePython(t, "tifffile", "numpy")
	dir := t.TempDir()
	js := testtool.RunPython(t, ijDisplayFixtures, dir)
	var written map[string]struct {
		LUTs [][256][3]uint8 `json:"luts"`
	}
	if err := json.Unmarshal(js, &written); err != nil {
		t.Fatalf("%v: %s", err, js)
	}
	lut := func(name string, c int) *[256][3]uint8 { return &written[name].LUTs[c] }
	rgb := func(r, g, b uint8) [3]uint8 { return [3]uint8{r, g, b} }
	cases := []struct {
		name  string
		mode  string
		chans []loader.Channel
	}{
		{"composite", loader.ChannelsComposite, []loader.Channel{
			{Label: "GFP", Color: rgb(0, 255, 0), HasColor: true, Lo: 1.5, Hi: 200, HasWindow: true},
			{Label: "mCherry", Color: rgb(255, 0, 255), HasColor: true, Lo: 3, Hi: 4000, HasWindow: true},
		}},
		{"color", loader.ChannelsColor, []loader.Channel{
			{Label: "fire", Color: rgb(255, 255, 255), HasColor: true, Lo: -1, Hi: 1, HasWindow: true, LUT: lut("color", 0)},
			{Label: "orange", Color: rgb(255, 128, 0), HasColor: true, Lo: -2.5, Hi: 2.5, HasWindow: true},
			// The brightest entry (128) of a table that rises and falls.
			{Color: rgb(254, 127, 32), HasColor: true, Lo: 0, Hi: 0.5, HasWindow: true, LUT: lut("color", 2)},
		}},
		{"gray", loader.ChannelsGray, nil},
		{"custom", loader.ChannelsComposite, []loader.Channel{
			{Color: rgb(255, 255, 255), HasColor: true},
			{Color: rgb(0, 255, 0), HasColor: true},
		}},
		// One channel: no mode; slice labels are not channel names.
		{"single", "", []loader.Channel{
			{Color: rgb(255, 255, 255), HasColor: true, Lo: 10, Hi: 900.5, HasWindow: true, LUT: lut("single", 0)},
		}},
	}
	for _, c := range cases {
		for _, bo := range []string{"le", "be"} {
			t.Run(c.name+"_"+bo, func(t *testing.T) {
				m := openTIFF(t, filepath.Join(dir, c.name+"_"+bo+".tif")).Meta()
				expectDisplay(t, m, c.mode, c.chans)
			})
		}
	}
	t.Run("colormap", func(t *testing.T) {
		m := openTIFF(t, filepath.Join(dir, "colormap.tif")).Meta()
		expectDisplay(t, m, "", []loader.Channel{{Color: rgb(254, 127, 32), HasColor: true, LUT: lut("colormap", 0)}})
		if m.Palette != nil {
			t.Errorf("a BlackIsZero page's ColorMap taken for a palette")
		}
	})
}

// expectDisplay compares m's channel mode and channels with the ones
// wanted, the colour tables by value.
func expectDisplay(t *testing.T, m *loader.Meta, mode string, chans []loader.Channel) {
	t.Helper()
	if m.Format != "imagej-tiff" {
		t.Errorf("format %q", m.Format)
	}
	if m.ChannelMode != mode {
		t.Errorf("channel mode %q, want %q", m.ChannelMode, mode)
	}
	if len(m.Channels) != len(chans) {
		t.Fatalf("%d channels %+v, want %d", len(m.Channels), m.Channels, len(chans))
	}
	for i, want := range chans {
		got := m.Channels[i]
		if (got.LUT == nil) != (want.LUT == nil) || (got.LUT != nil && *got.LUT != *want.LUT) {
			t.Errorf("channel %d: table %v, want %v", i, got.LUT, want.LUT)
		}
		got.LUT, want.LUT = nil, nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("channel %d: %+v, want %+v", i, got, want)
		}
	}
}

// order is a byte order that also appends.
type order interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// ijBlock is one kind of IJMetadata block: its 4-character type and the
// blocks of that type.
type ijBlock struct {
	typ    string
	blocks [][]byte
}

// ijTag lays out IJMetadata as ImageJ does, in byte order bo: the header
// (magic, then a type and count per kind), then the blocks; it returns the
// tag's bytes and its byte counts.
func ijTag(bo order, kinds ...ijBlock) ([]byte, []uint32) {
	hdr := bo.AppendUint32(nil, ijMagic)
	var body []byte
	counts := []uint32{0}
	for _, k := range kinds {
		hdr = bo.AppendUint32(hdr, binary.BigEndian.Uint32([]byte(k.typ)))
		hdr = bo.AppendUint32(hdr, uint32(len(k.blocks)))
		for _, b := range k.blocks {
			body = append(body, b...)
			counts = append(counts, uint32(len(b)))
		}
	}
	counts[0] = uint32(len(hdr))
	return append(hdr, body...), counts
}

// ijPage returns a file in byte order bo that holds data and counts, and a
// page whose IJMetadata tags point at them.
func ijPage(bo order, data []byte, counts []uint32) (*file, *page) {
	b := make([]byte, 8, 8+len(data)+4*len(counts))
	b = append(b, data...)
	cpos := len(b)
	for _, c := range counts {
		b = bo.AppendUint32(b, c)
	}
	p := &page{
		ijMeta:   entry{tag: tagIJMeta, typ: tByte, count: uint64(len(data)), pos: 8},
		ijCounts: entry{tag: tagIJMetaCounts, typ: tLong, count: uint64(len(counts)), pos: int64(cpos)},
	}
	return &file{b: b, bo: bo}, p
}

func utf16Bytes(bo order, s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = bo.AppendUint16(b, u)
	}
	return b
}

func doubles(bo order, v ...float64) []byte {
	var b []byte
	for _, x := range v {
		b = bo.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

// A table of 768 bytes: reds, greens, blues, each entry k*i/255.
func rampBytes(r, g, b int) []byte {
	out := make([]byte, 768)
	for i := range 256 {
		out[i], out[256+i], out[512+i] = byte(r*i/255), byte(g*i/255), byte(b*i/255)
	}
	return out
}

// TestIJMetadataParts reads hand-made IJMetadata: the blocks of the
// channels asked for, in both byte orders, skipping kinds it does not use.
func TestIJMetadataParts(t *testing.T) {
	for _, bo := range []order{binary.LittleEndian, binary.BigEndian} {
		data, counts := ijTag(bo,
			ijBlock{"info", [][]byte{utf16Bytes(bo, "notes")}},
			ijBlock{"labl", [][]byte{utf16Bytes(bo, "DAPI"), utf16Bytes(bo, "Ω-GFP\nmore"), utf16Bytes(bo, "z2")}},
			ijBlock{"rang", [][]byte{doubles(bo, 0, 100, 5, 6, 7, 8)}},
			ijBlock{"prop", [][]byte{utf16Bytes(bo, "k"), utf16Bytes(bo, "v")}},
			ijBlock{"luts", [][]byte{rampBytes(0, 0, 255), make([]byte, 700), rampBytes(255, 0, 0)}},
		)
		f, p := ijPage(bo, data, counts)
		md := f.ijMeta(p, 2)
		if !reflect.DeepEqual(md.labels, []string{"DAPI", "Ω-GFP"}) {
			t.Errorf("%v: labels %q", bo, md.labels)
		}
		if !reflect.DeepEqual(md.ranges, []float64{0, 100, 5, 6}) {
			t.Errorf("%v: ranges %v", bo, md.ranges)
		}
		// The table of the wrong size keeps its channel's place.
		if len(md.luts) != 2 || md.luts[0] == nil || md.luts[0][255] != [3]uint8{0, 0, 255} || md.luts[1] != nil {
			t.Errorf("%v: tables %v", bo, md.luts)
		}
	}
}

// TestIJMetadataMalformed never fails and keeps what precedes a bad part.
func TestIJMetadataMalformed(t *testing.T) {
	bo := binary.LittleEndian
	good := func() ([]byte, []uint32) {
		return ijTag(bo,
			ijBlock{"labl", [][]byte{utf16Bytes(bo, "a"), utf16Bytes(bo, "b")}},
			ijBlock{"rang", [][]byte{doubles(bo, 1, 2, 3, 4)}},
		)
	}
	cases := []struct {
		name   string
		edit   func(data []byte, counts []uint32) ([]byte, []uint32)
		labels int
		ranges int
	}{
		{"good", func(d []byte, c []uint32) ([]byte, []uint32) { return d, c }, 2, 4},
		{"header too small", func(d []byte, c []uint32) ([]byte, []uint32) { c[0] = 11; return d, c }, 0, 0},
		{"header too large", func(d []byte, c []uint32) ([]byte, []uint32) { c[0] = 812; return d, c }, 0, 0},
		{"header beyond the tag", func(d []byte, c []uint32) ([]byte, []uint32) { return d[:16], c }, 0, 0},
		{"bad magic", func(d []byte, c []uint32) ([]byte, []uint32) { d[0] = 'X'; return d, c }, 0, 0},
		// "IJIJ" in a little-endian file: ImageJ's order, not the file's.
		{"big-endian magic", func(d []byte, c []uint32) ([]byte, []uint32) {
			binary.BigEndian.PutUint32(d, ijMagic)
			return d, c
		}, 0, 0},
		{"block beyond the tag", func(d []byte, c []uint32) ([]byte, []uint32) { c[2] = 1 << 30; return d, c }, 1, 0},
		{"billions of labels", func(d []byte, c []uint32) ([]byte, []uint32) {
			bo.PutUint32(d[8:], 0xffffffff) // the label count
			return d, c
		}, 2, 0},
		{"fewer counts than blocks", func(d []byte, c []uint32) ([]byte, []uint32) { return d, c[:3] }, 2, 0},
		{"one count", func(d []byte, c []uint32) ([]byte, []uint32) { return d, c[:1] }, 0, 0},
		// A stray byte after label "b" is dropped with the label's odd size.
		{"odd label", func(d []byte, c []uint32) ([]byte, []uint32) {
			at := len(d) - 32
			c[2]++
			return append(d[:at:at], append([]byte{'!'}, d[at:]...)...), c
		}, 2, 4},
		{"ranges not a multiple of 8", func(d []byte, c []uint32) ([]byte, []uint32) {
			c[3]--
			return d[:len(d)-1], c
		}, 2, 3},
	}
	for _, c := range cases {
		d, cs := good()
		d, cs = c.edit(d, cs)
		f, p := ijPage(bo, d, cs)
		md := f.ijMeta(p, 2)
		if len(md.labels) != c.labels || len(md.ranges) != c.ranges {
			t.Errorf("%s: labels %q ranges %v, want %d labels, %d range values", c.name, md.labels, md.ranges, c.labels, c.ranges)
		}
	}
	// Tags that are not what ImageJ writes are ignored.
	d, cs := good()
	f, p := ijPage(bo, d, cs)
	p.ijCounts.typ = tASCII
	if md := f.ijMeta(p, 2); md.labels != nil {
		t.Errorf("counts of ASCII type read")
	}
	f, p = ijPage(bo, d, cs)
	p.ijMeta.count = uint64(len(f.b)) // beyond the end of the file
	if md := f.ijMeta(p, 2); md.labels != nil {
		t.Errorf("metadata beyond the file read")
	}
}

// TestIJMetadataEveryByte spoils each byte of the display metadata of a
// tifffile hyperstack in turn: the stack must still open as an ImageJ
// hyperstack of two channels.
func TestIJMetadataEveryByte(t *testing.T) {
	dir := t.TempDir()
	python(t, dir, `
g = np.zeros((3, 256), np.uint8); g[1] = np.arange(256)
tifffile.imwrite(d + '/h.tif', np.zeros((2, 2, 4, 5), np.uint8), imagej=True,
    metadata={'axes': 'ZCYX', 'Ranges': (1, 2, 3, 4), 'LUTs': [g, g[::-1]], 'Labels': ['a', 'b', 'c', 'd']})
`)
	b := readFile(t, filepath.Join(dir, "h.tif"))
	f, first, err := parseHeader(b)
	if err != nil {
		t.Fatal(err)
	}
	p0, err := f.parsePage(first)
	if err != nil {
		t.Fatal(err)
	}
	spans := [][2]int64{
		{p0.ijMeta.pos, p0.ijMeta.pos + int64(p0.ijMeta.count)},
		{p0.ijCounts.pos, p0.ijCounts.pos + 4*int64(p0.ijCounts.count)},
	}
	for _, s := range spans {
		for i := s[0]; i < s[1]; i++ {
			for _, v := range []byte{0, 0x7f, 0xff} {
				c := bytes.Clone(b)
				c[i] = v
				f2, first, _ := parseHeader(c)
				p, err := f2.parsePage(first)
				if err != nil {
					t.Fatalf("byte %d = %#x: %v", i, v, err)
				}
				l := f2.metaLayout(p)
				if l == nil || l.format != "imagej-tiff" || (l.chans != nil && len(l.chans) != 2) {
					t.Fatalf("byte %d = %#x: layout %+v", i, v, l)
				}
			}
		}
	}
}

// fireLUT is the table the seeds in testdata give their second channel.
func fireLUT() *[256][3]uint8 {
	var l [256][3]uint8
	for i := range l {
		for k := range 3 {
			l[i][k] = uint8(min(max(3*i-255*k, 0), 255))
		}
	}
	return &l
}

// TestImageJDisplaySeeds reads the display metadata of the committed
// tifffile hyperstacks (the FuzzIJMetadata seeds), without Python.
func TestImageJDisplaySeeds(t *testing.T) {
	rgb := func(r, g, b uint8) [3]uint8 { return [3]uint8{r, g, b} }
	white := rgb(255, 255, 255)
	m := openTIFF(t, filepath.Join("testdata", "imagej_display.tif")).Meta()
	expectDisplay(t, m, loader.ChannelsComposite, []loader.Channel{
		{Label: "DAPI", Color: rgb(0, 255, 0), HasColor: true, Lo: 10, Hi: 900, HasWindow: true},
		{Label: "GFP", Color: white, HasColor: true, Lo: 0, Hi: 500, HasWindow: true, LUT: fireLUT()},
	})
	m = openTIFF(t, filepath.Join("testdata", "imagej_display_be.tif")).Meta()
	expectDisplay(t, m, loader.ChannelsColor, []loader.Channel{
		{Label: "left", Color: rgb(255, 0, 255), HasColor: true, Lo: -1, Hi: 1, HasWindow: true},
		{Label: "right", Color: white, HasColor: true, Lo: -2, Hi: 2, HasWindow: true, LUT: fireLUT()},
	})
}

// TestIJMetadataBlockLimit stops at the limit of blocks, keeping what the
// first ones say.
func TestIJMetadataBlockLimit(t *testing.T) {
	bo := binary.LittleEndian
	data, counts := ijTag(bo,
		ijBlock{"labl", [][]byte{utf16Bytes(bo, "a"), utf16Bytes(bo, "b")}},
		ijBlock{"rang", [][]byte{doubles(bo, 1, 2, 3, 4)}},
		ijBlock{"luts", [][]byte{rampBytes(0, 255, 0), rampBytes(255, 0, 0)}},
	)
	f, p := ijPage(bo, data, counts)
	md := f.ijMetaUpTo(p, 2, 3)
	if len(md.labels) != 2 || len(md.ranges) != 4 || len(md.luts) != 0 {
		t.Errorf("labels %q ranges %v, %d tables: want 2 labels, 4 range values, no table", md.labels, md.ranges, len(md.luts))
	}
}

// TestIJMetadataSpoiledStillOpens spoils the display metadata of a
// tifffile hyperstack in ways a broken writer might: the image opens with
// the same axes and pixels, without the parts that cannot be trusted.
func TestIJMetadataSpoiledStillOpens(t *testing.T) {
	dir := t.TempDir()
	python(t, dir, `
i = np.arange(256, dtype=np.uint8)
g = np.stack([0 * i, i, 0 * i])
tifffile.imwrite(d + '/h.tif', np.arange(2 * 3 * 4 * 5, dtype=np.uint16).reshape(3, 2, 4, 5), imagej=True,
    metadata={'axes': 'ZCYX', 'mode': 'composite', 'Ranges': (1, 2, 3, 4), 'LUTs': [g, g[:, ::-1]], 'Labels': ['a', 'b'] + ['x'] * 4})
`)
	path := filepath.Join(dir, "h.tif")
	orig := readFile(t, path)
	src := openTIFF(t, path)
	want, wantMeta := readAll(t, src), src.Meta()
	if len(wantMeta.Channels) != 2 || wantMeta.Channels[1].Label != "b" || wantMeta.Channels[1].LUT == nil {
		t.Fatalf("unspoiled channels %+v", wantMeta.Channels)
	}
	f, first, err := parseHeader(orig)
	if err != nil {
		t.Fatal(err)
	}
	p0, err := f.parsePage(first)
	if err != nil {
		t.Fatal(err)
	}
	meta, counts := p0.ijMeta.pos, p0.ijCounts.pos
	bo := f.bo
	cases := []struct {
		name  string
		spoil func(b []byte)
		chans int // channels still described
		// what channel 1 keeps: its label, its window, its table
		label      string
		window, lt bool
	}{
		{"header size beyond the tag", func(b []byte) { bo.PutUint32(b[counts:], 1<<31) }, 0, "", false, false},
		{"magic", func(b []byte) { b[meta] ^= 0xff }, 0, "", false, false},
		{"the last table's size beyond the tag", func(b []byte) { bo.PutUint32(b[counts+4*int64(p0.ijCounts.count-1):], 0xffffffff) }, 2, "b", true, false},
		{"the labels claiming every block", func(b []byte) { bo.PutUint32(b[meta+8:], 0xffffffff) }, 2, "b", false, false},
		{"counts of an unknown type", func(b []byte) { spoilEntryType(t, b, f, first, tagIJMetaCounts) }, 0, "", false, false},
		{"metadata of an unknown type", func(b []byte) { spoilEntryType(t, b, f, first, tagIJMeta) }, 0, "", false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := bytes.Clone(orig)
			c.spoil(b)
			p := filepath.Join(t.TempDir(), "s.tif")
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			src := openTIFF(t, p)
			m := src.Meta()
			if m.Format != "imagej-tiff" || m.Axes != wantMeta.Axes || !reflect.DeepEqual(m.Shape, wantMeta.Shape) {
				t.Fatalf("%s %s %v, want imagej-tiff %s %v", m.Format, m.Axes, m.Shape, wantMeta.Axes, wantMeta.Shape)
			}
			if m.ChannelMode != loader.ChannelsComposite {
				t.Errorf("channel mode %q: the description still says composite", m.ChannelMode)
			}
			if len(m.Channels) != c.chans {
				t.Fatalf("%d channels described (%+v), want %d", len(m.Channels), m.Channels, c.chans)
			}
			if c.chans > 0 {
				ch := m.Channels[1]
				if ch.Label != c.label || ch.HasWindow != c.window || (ch.LUT != nil) != c.lt {
					t.Errorf("channel 1 %+v, want label %q, window %v, table %v", ch, c.label, c.window, c.lt)
				}
			}
			if got := readAll(t, src); !bytes.Equal(got, want) {
				t.Errorf("pixels differ from byte %d", firstDiff(got, want))
			}
		})
	}
}

// spoilEntryType gives the entry of tag in the IFD at off the type 0xff.
func spoilEntryType(t *testing.T, b []byte, f *file, off int64, tag uint16) {
	t.Helper()
	n := int64(f.bo.Uint16(b[off:]))
	for i := range n {
		e := off + 2 + 12*i
		if f.bo.Uint16(b[e:]) == tag {
			f.bo.PutUint16(b[e+2:], 0xff)
			return
		}
	}
	t.Fatalf("no tag %d", tag)
}
