package lif

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	stdimage "image"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"golang.org/x/image/tiff"

	"vastview/base/testtool"
	"vastview/loader"
	"vastview/loader/internal/loadertest"
)

// realFile is the path of readlif's two-channel XZ test file, skipping t
// (failing under CI) when the shared test data is absent.
func realFile(t testing.TB) string {
	t.Helper()
	return testtool.SharedData(t, "lif/testdata_2channel_xz.lif")
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

// TestRealFileSeries opens LAS X's three XZ images through loader.Open,
// without a selector and with an index and a name: their axes (an XZ
// scan's Z on Y), shapes, spacing in micrometres and seconds, and the
// channels' LUT names and colours.
func TestRealFileSeries(t *testing.T) {
	path := realFile(t)
	head, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !Match(path, head[:4096]) || Match(path, []byte("II*\x00\x08\x00\x00\x00\x00\x00\x00\x00\x00")) {
		t.Fatal("Match is wrong")
	}
	xy := 1.781554e-05 / 127 * 1e6
	cases := []struct {
		sel, axes, shape string
		index            int
		spacing          []float64
		units            []string
	}{
		{"", "TCYX", "[20 2 128 128]", 0, []float64{10.07 / 19, 1, 1.781540e-05 / 127 * 1e6, xy}, []string{"second", "", "micrometer", "micrometer"}},
		{"#0", "TCYX", "[20 2 128 128]", 0, nil, nil},
		{"#1", "CZYX", "[2 23 128 128]", 1, []float64{1, 5.039354e-06 / 22 * 1e6, 1.781540e-05 / 127 * 1e6, xy}, []string{"", "micrometer", "micrometer", "micrometer"}},
		{"#xzy", "CZYX", "[2 23 128 128]", 1, nil, nil},
		{"#XZ", "CYX", "[2 512 512]", 2, []float64{1, 5.247841e-05 / 511 * 1e6, 5.247828e-05 / 511 * 1e6}, nil},
	}
	for _, c := range cases {
		src, err := loader.Open(context.Background(), path+c.sel)
		if err != nil {
			t.Fatalf("%q: %v", c.sel, err)
		}
		m := src.Meta()
		if m.Format != "lif" || m.Axes != c.axes || fmt.Sprint(m.Shape) != c.shape || m.DType != loader.Uint8 || m.SeriesIndex != c.index {
			t.Errorf("%q: %s %s %v %s series %d", c.sel, m.Format, m.Axes, m.Shape, m.DType, m.SeriesIndex)
		}
		if len(m.Series) != 3 || m.Series[0].Name != "xzt" || m.Series[1].Name != "xzy" || m.Series[2].Name != "xz" ||
			m.Series[1].Selector != "1" || fmt.Sprint(m.Series[2].Shape) != "[2 512 512]" {
			t.Errorf("%q: series %v", c.sel, m.Series)
		}
		for i, want := range c.spacing {
			if !near(m.Spacing[i], want) {
				t.Errorf("%q: spacing %v, want %v", c.sel, m.Spacing, c.spacing)
				break
			}
		}
		if c.units != nil && fmt.Sprint(m.Units) != fmt.Sprint(c.units) {
			t.Errorf("%q: units %q, want %q", c.sel, m.Units, c.units)
		}
		if len(m.Channels) != 2 || m.Channels[0].Label != "Green" || m.Channels[0].Color != [3]uint8{0, 255, 0} ||
			m.Channels[1].Label != "Red" || m.Channels[1].Color != [3]uint8{255, 0, 0} || !m.Channels[1].HasColor {
			t.Errorf("%q: channels %+v", c.sel, m.Channels)
		}
		if len(m.Notes) != 1 || !strings.Contains(m.Notes[0], "XZ scan") {
			t.Errorf("%q: notes %q", c.sel, m.Notes)
		}
		if err := src.Close(); err != nil {
			t.Error(err)
		}
	}
	if !near(xy, 0.14028) && math.Abs(xy-0.14028) > 1e-5 {
		t.Errorf("X spacing %v, want 0.14028", xy)
	}
	if _, err := loader.Open(context.Background(), path+"#nope"); err == nil || !strings.Contains(err.Error(), `"xzy"`) {
		t.Errorf("unknown selector: %v", err)
	}
}

// readGray decodes the 128×128 8-bit gray TIFF at path (with
// golang.org/x/image/tiff, not this module's reader) into its samples.
func readGray(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := tiff.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	g, ok := img.(*stdimage.Gray)
	if !ok || g.Rect != stdimage.Rect(0, 0, 128, 128) || g.Stride != 128 {
		t.Fatalf("%s: %T %v; want 128×128 gray", path, img, img.Bounds())
	}
	return g.Pix
}

// TestRealFilePlanes compares planes of the first image with readlif's
// reference TIFFs: channel 0 at time 0 and channel 1 at time 8, 128×128
// uint8 with rows along Z.
func TestRealFilePlanes(t *testing.T) {
	path := realFile(t)
	src, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	for _, c := range []struct {
		ref  string
		c, t int
	}{{"readlif_ref_xz_c0_t0.tif", 0, 0}, {"readlif_ref_xz_c1_t8.tif", 1, 8}} {
		want := readGray(t, testtool.SharedData(t, "lif/"+c.ref))
		got, w, h, err := loader.ReadPlane(context.Background(), src, 0, loader.Plane{At: map[byte]int{'C': c.c, 'T': c.t}})
		if err != nil {
			t.Fatal(err)
		}
		if w != 128 || h != 128 || !bytes.Equal(got, want) {
			t.Errorf("C %d T %d differs from readlif's %s", c.c, c.t, c.ref)
		}
	}
	// Series opened from one another are independent.
	so := src.(loader.SeriesOpener)
	s2, err := so.OpenSeries(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if _, err := loader.ReadAll(context.Background(), s2, 0, 1<<20); err != nil {
		t.Fatal(err)
	}
	if _, err := so.OpenSeries(context.Background(), 3); err == nil {
		t.Error("series 3 opened")
	}
}

// lifBlock is one memory block of a file made by makeLIF.
type lifBlock struct {
	id   string
	data []byte
}

// utf16le encodes s as UTF-16LE.
func utf16le(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = binary.LittleEndian.AppendUint16(b, u)
	}
	return b
}

// makeLIF lays out a LIF file: the XML header (version "1" or "2", the
// given elements below a root element), then the memory blocks.
func makeLIF(version, elements string, blocks []lifBlock) []byte {
	return lifBytes(version, `<LMSDataContainerHeader Version="`+version+`"><Element Name="project"><Data/><Memory Size="0" MemoryBlockID="MemBlock_0"/><Children>`+
		elements+`</Children></Element></LMSDataContainerHeader>`, append([]lifBlock{{id: "MemBlock_0"}}, blocks...))
}

// lifBytes lays out a LIF file of the given XML header and memory blocks,
// in the framing of version "1" or "2".
func lifBytes(version, header string, blocks []lifBlock) []byte {
	le := binary.LittleEndian
	x := utf16le(header)
	b := le.AppendUint32(nil, magic)
	b = le.AppendUint32(b, uint32(5+len(x)))
	b = append(b, memByte)
	b = le.AppendUint32(b, uint32(len(x)/2))
	b = append(b, x...)
	for _, blk := range blocks {
		id := utf16le(blk.id)
		b = le.AppendUint32(b, magic)
		sizeBytes := 8
		if version == "1" {
			sizeBytes = 4
		}
		b = le.AppendUint32(b, uint32(1+sizeBytes+5+len(id)))
		b = append(b, memByte)
		if version == "1" {
			b = le.AppendUint32(b, uint32(len(blk.data)))
		} else {
			b = le.AppendUint64(b, uint64(len(blk.data)))
		}
		b = append(b, memByte)
		b = le.AppendUint32(b, uint32(len(id)/2))
		b = append(b, id...)
		b = append(b, blk.data...)
	}
	return b
}

// imageElement is the XML of an image element: its channels and
// dimensions (attribute lists) and memory block.
func imageElement(name, memID string, size int, channels, dims []string) string {
	var s strings.Builder
	fmt.Fprintf(&s, `<Element Name="%s"><Data><Image><ImageDescription><Channels>`, name)
	for _, c := range channels {
		fmt.Fprintf(&s, `<ChannelDescription DataType="0" %s/>`, c)
	}
	s.WriteString(`</Channels><Dimensions>`)
	for _, d := range dims {
		fmt.Fprintf(&s, `<DimensionDescription %s/>`, d)
	}
	fmt.Fprintf(&s, `</Dimensions></ImageDescription></Image></Data><Memory Size="%d" MemoryBlockID="%s"/><Children/></Element>`, size, memID)
	return s.String()
}

// synthetic is a file of three images: a 12-bit XYZ stack of two channels
// stored one after the other, a tiled 8-bit image whose three channels
// are interleaved, and an image holding no samples; and the samples of
// the first two.
func synthetic(version string) (file, stack, tiles []byte) {
	const w, h, d = 5, 3, 4
	stack = make([]byte, 2*w*h*d*2)
	for c := 0; c < 2; c++ {
		for z := 0; z < d; z++ {
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					binary.LittleEndian.PutUint16(stack[2*(x+w*(y+h*(z+d*c))):], uint16(c*1000+z*100+y*10+x))
				}
			}
		}
	}
	tiles = make([]byte, 2*w*h*3)
	for i := range tiles {
		tiles[i] = byte(i)
	}
	els := imageElement("stack", "MemBlock_1", len(stack),
		[]string{`Resolution="12" BytesInc="0" LUTName="Cyan"><ChannelProperty><Key>DyeName</Key><Value>DAPI</Value></ChannelProperty></ChannelDescription><ChannelDescription Resolution="12" BytesInc="120" LUTName="Magenta"`},
		[]string{
			`DimID="1" NumberOfElements="5" Origin="0" Length="4e-6" Unit="m" BytesInc="2"`,
			`DimID="2" NumberOfElements="3" Origin="1e-6" Length="2e-6" Unit="m" BytesInc="10"`,
			`DimID="3" NumberOfElements="4" Origin="0" Length="3e-3" Unit="mm" BytesInc="30"`,
		}) +
		`<Element Name="folder"><Data/><Memory Size="0" MemoryBlockID="MemBlock_3"/><Children>` +
		imageElement("tiled", "MemBlock_2", len(tiles),
			[]string{`Resolution="8" BytesInc="0" LUTName="Red"`, `Resolution="8" BytesInc="1" LUTName="Green"`, `Resolution="8" BytesInc="2" LUTName="Blue"`},
			[]string{
				`DimID="1" NumberOfElements="5" Length="0" Unit="m" BytesInc="3"`,
				`DimID="2" NumberOfElements="3" Length="0" Unit="m" BytesInc="15"`,
				`DimID="10" NumberOfElements="2" BytesInc="45"`,
			}) +
		imageElement("empty", "MemBlock_4", 0, []string{`Resolution="8" BytesInc="0" LUTName="Gray"`},
			[]string{`DimID="1" NumberOfElements="5" BytesInc="1"`}) +
		`</Children></Element>`
	file = makeLIF(version, els, []lifBlock{{"MemBlock_1", stack}, {"MemBlock_3", nil}, {"MemBlock_2", tiles}, {"MemBlock_4", nil}})
	return file, stack, tiles
}

// TestSynthetic reads images laid out in ways the real file does not show:
// 12-bit samples, channels stored after the Z stack and interleaved, tiles
// as series, an image without samples, both block framings.
func TestSynthetic(t *testing.T) {
	for _, version := range []string{"1", "2"} {
		file, stack, tiles := synthetic(version)
		path := filepath.Join(t.TempDir(), "s.lif")
		if err := os.WriteFile(path, file, 0o644); err != nil {
			t.Fatal(err)
		}
		src, err := loader.Open(context.Background(), path)
		if err != nil {
			t.Fatalf("version %s: %v", version, err)
		}
		m := src.Meta()
		if m.Axes != "CZYX" || fmt.Sprint(m.Shape) != "[2 4 3 5]" || m.DType != loader.Uint16 ||
			!near(m.Spacing[1], 1) || !near(m.Spacing[2], 1) || !near(m.Spacing[3], 1) || m.Units[1] != "micrometer" ||
			!near(m.Levels[0].Translation[2], 1) {
			t.Errorf("version %s: %s %v %s %v %v %v", version, m.Axes, m.Shape, m.DType, m.Spacing, m.Units, m.Levels[0].Translation)
		}
		if len(m.Channels) != 2 || m.Channels[0].Label != "DAPI" || m.Channels[0].Color != [3]uint8{0, 255, 255} || m.Channels[1].Label != "Magenta" {
			t.Errorf("channels %+v", m.Channels)
		}
		if len(m.Series) != 3 || m.Series[1].Name != "folder/tiled (tile 1 of 2)" || m.Series[2].Name != "folder/tiled (tile 2 of 2)" {
			t.Errorf("series %v", m.Series)
		}
		if len(m.Notes) != 1 || !strings.Contains(m.Notes[0], `"folder/empty"`) {
			t.Errorf("notes %q", m.Notes)
		}
		got, err := loader.ReadAll(context.Background(), src, 0, 1<<20)
		if err != nil || !bytes.Equal(got, stack) {
			t.Errorf("version %s: stack read %v", version, err)
		}
		src.Close()
		for tile := 0; tile < 2; tile++ {
			src, err := loader.Open(context.Background(), fmt.Sprintf("%s#%d", path, tile+1))
			if err != nil {
				t.Fatal(err)
			}
			m := src.Meta()
			if m.Axes != "CYX" || fmt.Sprint(m.Shape) != "[3 3 5]" || m.DType != loader.Uint8 || m.Units[2] != "" {
				t.Errorf("tile %d: %s %v %s %v", tile, m.Axes, m.Shape, m.DType, m.Units)
			}
			got, err := loader.ReadAll(context.Background(), src, 0, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			for c := 0; c < 3; c++ {
				for i := 0; i < 15; i++ {
					if want := tiles[45*tile+3*i+c]; got[15*c+i] != want {
						t.Fatalf("tile %d channel %d sample %d: %d, want %d", tile, c, i, got[15*c+i], want)
					}
				}
			}
			src.Close()
		}
	}
}

// writeTemp writes b to a file in t's temporary folder.
func writeTemp(t *testing.T, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.lif")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestUnreadableImageIsANote: an image whose layout is bad is left out of
// the series, and the notes say why; the others open.
func TestUnreadableImageIsANote(t *testing.T) {
	syn, _, _ := synthetic("2")
	bad := bytes.Replace(syn, utf16le(`Resolution="12"`), utf16le(`Resolution="32"`), 2)
	src, err := Open(context.Background(), writeTemp(t, bad))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	m := src.Meta()
	if len(m.Series) != 2 || m.Series[0].Name != "folder/tiled (tile 1 of 2)" || len(m.Notes) != 2 ||
		!strings.Contains(m.Notes[1], `"stack"`) || !strings.Contains(m.Notes[1], "32") {
		t.Errorf("series %v notes %q", m.Series, m.Notes)
	}
}

// TestBadLIFGivesOneClearError: files cut short, a corrupted XML header
// and layouts that reach beyond their memory are refused in one line
// saying why, without a panic.
func TestBadLIFGivesOneClearError(t *testing.T) {
	b, err := os.ReadFile(realFile(t))
	if err != nil {
		t.Fatal(err)
	}
	xmlEnd := xmlAt + 2*int(binary.LittleEndian.Uint32(b[9:]))
	corrupt := bytes.Clone(b)
	copy(corrupt[xmlAt+2000:], utf16le("<<&"))
	one := func(res, zinc string) []byte {
		return makeLIF("2", imageElement("one", "MemBlock_1", 8*8*2,
			[]string{`Resolution="` + res + `" BytesInc="0"`},
			[]string{`DimID="1" NumberOfElements="8" BytesInc="1"`, `DimID="3" NumberOfElements="8" BytesInc="8"`, `DimID="4" NumberOfElements="2" BytesInc="` + zinc + `"`},
		), []lifBlock{{"MemBlock_1", make([]byte, 8*8*2)}})
	}
	if _, err := Open(context.Background(), writeTemp(t, one("8", "64"))); err != nil {
		t.Fatalf("the good variant: %v", err)
	}
	over, bits := one("8", "65"), one("32", "64")
	huge := one("8", "9223372036854775807")
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"cut.lif", b[:len(b)-100], "truncated"},
		{"xmlcut.lif", b[:xmlEnd-10], "truncated"},
		{"blockcut.lif", b[:xmlEnd+30], "truncated"},
		{"tiny.lif", b[:11], "truncated"},
		{"xml.lif", corrupt, "XML"},
		{"over.lif", over, "memory block"},
		{"bits.lif", bits, "bits"},
		{"huge.lif", huge, "overflow"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(context.Background(), path)
		t.Logf("%s: %v", c.name, err)
		if loadertest.ClearError(t, c.name, err, c.want) && strings.Contains(err.Error(), dir) {
			t.Errorf("%s: %v names the folder", c.name, err)
		}
	}
}

// TestEmptyImagesInRealHeader opens LAS X's XML header with the samples
// of its first two images left out (empty memory blocks) and the last
// made small: the two are named in the notes, the last is the only image.
func TestEmptyImagesInRealHeader(t *testing.T) {
	b, err := os.ReadFile(realFile(t))
	if err != nil {
		t.Fatal(err)
	}
	src, err := Open(context.Background(), writeTemp(t, shrunk(t, b)))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	m := src.Meta()
	if m.Series != nil || m.Axes != "CYX" || fmt.Sprint(m.Shape) != "[2 8 8]" || len(m.Notes) != 2 ||
		!strings.Contains(m.Notes[1], `"xzt", "xzy"`) {
		t.Errorf("%s %v series %v notes %q", m.Axes, m.Shape, m.Series, m.Notes)
	}
	got, err := loader.ReadAll(context.Background(), src, 0, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if want := byte(i); v != want {
			t.Fatalf("sample %d: %d, want %d", i, v, want)
		}
	}
}
