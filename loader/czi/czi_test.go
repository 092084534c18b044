package czi

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
	"vastview/loader/internal/loadertest"
)

// realFile reads the real CZI file name of the shared test data,
// skipping t (failing it under CI) without it.
func realFile(t testing.TB, name string) (string, []byte) {
	t.Helper()
	path := testtool.SharedData(t, "czi/"+name)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, b
}

// scanned is a subblock found by scanning the file for subblock segments
// (not through the directory), described by its own header.
type scanned struct {
	dims       map[string]int
	x, y, w, h int
	data       []byte
}

func scanSubblocks(t *testing.T, b []byte) []scanned {
	var out []scanned
	le := binary.LittleEndian
	for i := 0; i+288 <= len(b); i += 32 {
		if !bytes.HasPrefix(b[i:], []byte("ZISRAWSUBBLOCK\x00\x00")) {
			continue
		}
		d := b[i+32:]
		metaSize, dataSize := int(le.Uint32(d)), int(le.Uint64(d[8:]))
		nd := int(le.Uint32(d[16+28:]))
		s := scanned{dims: map[string]int{}}
		for k := 0; k < nd; k++ {
			e := d[16+32+20*k:]
			name := string(bytes.TrimRight(e[:4], "\x00"))
			start, size := int(int32(le.Uint32(e[4:]))), int(int32(le.Uint32(e[8:])))
			switch name {
			case "X":
				s.x, s.w = start, size
			case "Y":
				s.y, s.h = start, size
			default:
				s.dims[name] = start
			}
		}
		at := i + 32 + max(256, 16+32+20*nd) + metaSize
		s.data = b[at : at+dataSize]
		out = append(out, s)
	}
	if len(out) == 0 {
		t.Fatal("no subblocks found by scanning")
	}
	return out
}

func readPlane(t *testing.T, src loader.Source, level int, at map[byte]int) []byte {
	t.Helper()
	buf, _, _, err := loader.ReadPlane(context.Background(), src, level, loader.Plane{Orientation: loader.XY, At: at})
	if err != nil {
		t.Fatal(err)
	}
	return buf
}

func open(t *testing.T, path string) loader.Source {
	t.Helper()
	src, err := loader.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

func checkMeta(t *testing.T, m *loader.Meta, axes string, shape []int, dt loader.DType) {
	t.Helper()
	if m.Format != "czi" || m.Axes != axes || fmt.Sprint(m.Shape) != fmt.Sprint(shape) || m.DType != dt {
		t.Fatalf("%s %s %v %v, want czi %s %v %v", m.Format, m.Axes, m.Shape, m.DType, axes, shape, dt)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Abs(b) }

// TestFocusStack: T 3, C 2, Z 5 planes of 240 x 170 Gray16, each equal to
// the subblock found by scanning with those coordinates; scaling, Z step,
// the channels' names and colours from the XML; T spacing from the time
// stamps (360.42, 420.40, 480.41 s).
func TestFocusStack(t *testing.T) {
	path, b := realFile(t, "CD_s_1_t_3_c_2_z_5.czi")
	src := open(t, path)
	m := src.Meta()
	checkMeta(t, m, "TCZYX", []int{3, 2, 5, 170, 240}, loader.Uint16)
	want := []float64{(480.4104779 - 360.4196148) / 2, 1, 0.32, 0.090576674152210312, 0.090576674152210312}
	for i, w := range want {
		if !near(m.Spacing[i], w) {
			t.Errorf("spacing %c %v, want %v", m.Axes[i], m.Spacing[i], w)
		}
	}
	if m.Units[0] != "second" || m.Units[2] != "micrometer" || m.Units[4] != "micrometer" {
		t.Errorf("units %q", m.Units)
	}
	if len(m.Channels) != 2 || m.Channels[0].Label != "LED555" || m.Channels[1].Label != "LED470" ||
		m.Channels[0].Color != [3]uint8{0xff, 0x7e, 0} || m.Channels[1].Color != [3]uint8{0, 0xff, 0x33} {
		t.Errorf("channels %+v", m.Channels)
	}
	blocks := scanSubblocks(t, b)
	if len(blocks) != 30 {
		t.Fatalf("%d subblocks scanned", len(blocks))
	}
	for _, s := range blocks {
		got := readPlane(t, src, 0, map[byte]int{'T': s.dims["T"], 'C': s.dims["C"], 'Z': s.dims["Z"]})
		if !bytes.Equal(got, s.data) {
			t.Fatalf("plane %v differs from its subblock", s.dims)
		}
	}
}

// TestStagePosition: a plane whose subblock sits at stage pixel (39856,
// 39272) is shown from its own first pixel; channel "Bright".
func TestStagePosition(t *testing.T) {
	path, b := realFile(t, "s_1_t_1_c_1_z_1.czi")
	src := open(t, path)
	m := src.Meta()
	checkMeta(t, m, "YX", []int{325, 475}, loader.Uint16)
	if !near(m.Spacing[0], 1.0833333333333333) || len(m.Channels) != 1 || m.Channels[0].Label != "Bright" {
		t.Errorf("spacing %v channels %+v", m.Spacing, m.Channels)
	}
	s := scanSubblocks(t, b)[0]
	if s.x != 39856 || s.y != 39272 {
		t.Fatalf("scanned subblock at %d, %d", s.x, s.y)
	}
	if got := readPlane(t, src, 0, nil); !bytes.Equal(got, s.data) {
		t.Fatal("plane differs from its subblock")
	}
}

// TestBgr24: the green samples equal aicspylibczi's own reference plane,
// and red and blue are the third and first byte of each stored triple.
func TestBgr24(t *testing.T) {
	path, b := realFile(t, "RGB-8bit.czi")
	src := open(t, path)
	m := src.Meta()
	checkMeta(t, m, "CYX", []int{3, 624, 924}, loader.Uint8)
	if !m.RGB {
		t.Error("not RGB")
	}
	_, shape, green := testtool.ReadNPY(t, testtool.SharedData(t, "czi/RGB-8bit_Gplane.npy"))
	if fmt.Sprint(shape) != "[624 924]" {
		t.Fatalf("reference of shape %v", shape)
	}
	stored := scanSubblocks(t, b)[0].data
	for c, off := range []int{2, 1, 0} {
		got := readPlane(t, src, 0, map[byte]int{'C': c})
		for i := range got {
			if got[i] != stored[3*i+off] {
				t.Fatalf("channel %d sample %d: %d, stored %d", c, i, got[i], stored[3*i+off])
			}
		}
		if c == 1 && !bytes.Equal(got, green) {
			t.Fatal("green plane differs from aicspylibczi's reference")
		}
	}
}

// paint assembles subblocks of one channel into a plane of w x h 8-bit
// samples whose first pixel is at (x0, y0), in the order given.
func paint(blocks []scanned, x0, y0, w, h int) []byte {
	out := make([]byte, w*h)
	for _, s := range blocks {
		for y := 0; y < s.h; y++ {
			copy(out[(s.y-y0+y)*w+s.x-x0:], s.data[y*s.w:(y+1)*s.w])
		}
	}
	return out
}

// TestMosaic: four 256 x 256 tiles at X -127/127 and Y -128/128 make a
// 510 x 512 plane per channel; where neighbours overlap (they differ
// there), the tile of higher M index is on top, as ZEN shows it.
func TestMosaic(t *testing.T) {
	path, b := realFile(t, "tiles.czi")
	src := open(t, path)
	m := src.Meta()
	checkMeta(t, m, "CYX", []int{2, 512, 510}, loader.Uint8)
	if !near(m.Spacing[2], 0.83026582096383912) || m.Channels[0].Label != "Ch1" || m.Channels[1].Label != "T PMT" {
		t.Errorf("spacing %v channels %+v", m.Spacing, m.Channels)
	}
	all := scanSubblocks(t, b)
	ordered := false
	for c := 0; c < 2; c++ {
		var tiles []scanned
		for _, s := range all {
			if s.dims["C"] == c {
				tiles = append(tiles, s)
			}
		}
		byM := make([]scanned, 4)
		for _, s := range tiles {
			byM[s.dims["M"]] = s
		}
		want := paint(byM, -127, -128, 510, 512)
		reversed := paint([]scanned{byM[3], byM[2], byM[1], byM[0]}, -127, -128, 510, 512)
		ordered = ordered || !bytes.Equal(want, reversed)
		if got := readPlane(t, src, 0, map[byte]int{'C': c}); !bytes.Equal(got, want) {
			t.Fatalf("channel %d differs from the tiles drawn in M order", c)
		}
	}
	if !ordered {
		t.Fatal("the tiles agree where they overlap: the test cannot tell the order")
	}
}

func u16plane(w, h, seed int) []byte {
	b := make([]byte, 2*w*h)
	for i := 0; i < w*h; i++ {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(i*seed+seed*977))
	}
	return b
}

func writeFile(t *testing.T, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestScenesZstdPyramid: a file of two named scenes, each a two-tile
// mosaic of Gray16 in Zstd1 with low/high-byte packing and in Zstd0, with
// the file's pyramid (factor 2) as a stored level, two time points whose
// time stamps give the T spacing; SRC#NAME opens the second scene.
func TestScenesZstdPyramid(t *testing.T) {
	const tw, th = 40, 30 // a tile; two side by side make a plane of 80 x 30
	w := &cziWriter{stamps: []float64{10, 12.5}}
	w.xml = `<ImageDocument><Metadata><Information><Image><Dimensions><S><Scenes>` +
		`<Scene Index="0" Name="well A1"/><Scene Index="1" Name="well B2"/></Scenes></S></Dimensions></Image></Information>` +
		`<Scaling><Items><Distance Id="X"><Value>2E-07</Value></Distance><Distance Id="Y"><Value>2E-07</Value></Distance></Items></Scaling>` +
		`</Metadata></ImageDocument>`
	planes := map[[3]int][]byte{} // scene, t, tile
	for s := 0; s < 2; s++ {
		for ti := 0; ti < 2; ti++ {
			for k := 0; k < 2; k++ {
				p := u16plane(tw, th, 1+s*7+ti*3+k)
				planes[[3]int{s, ti, k}] = p
				other := map[string]int{"S": s, "T": ti, "M": k, "C": 0}
				data, comp := append([]byte{3, 1, 1}, zstdFrame(hiLo(p))...), int32(cZstd1)
				if k == 1 {
					data, comp = zstdFrame(p), cZstd0
				}
				w.blocks = append(w.blocks, blockW{pixel: 1, comp: comp, dims: plane2D(1000+k*tw, 500, tw, th, tw, th, other), data: data})
			}
			// The pyramid subblock: the whole plane at half size.
			half := make([]byte, 2*40*15)
			for i := range half {
				half[i] = byte(i*5 + s + ti)
			}
			w.blocks = append(w.blocks, blockW{pixel: 1, comp: cZstd0,
				dims: plane2D(1000, 500, 80, 30, 40, 15, map[string]int{"S": s, "T": ti, "C": 0}), data: zstdFrame(half)})
			planes[[3]int{s, ti, 9}] = half
		}
	}
	path := writeFile(t, "scenes.czi", w.bytes())
	for s, sel := range []string{"", "#well B2"} {
		src := open(t, path+sel)
		m := src.Meta()
		checkMeta(t, m, "TYX", []int{2, 30, 80}, loader.Uint16)
		if len(m.Series) != 2 || m.Series[0].Name != "well A1" || m.Series[1].Name != "well B2" || m.SeriesIndex != s {
			t.Fatalf("series %+v index %d", m.Series, m.SeriesIndex)
		}
		if m.Spacing[0] != 2.5 || m.Units[0] != "second" || !near(m.Spacing[2], 0.2) {
			t.Errorf("spacing %v %q", m.Spacing, m.Units)
		}
		if len(m.Levels) != 2 || fmt.Sprint(m.Levels[1].Shape) != "[2 15 40]" || !near(m.Levels[1].Scale[2], 0.4) {
			t.Fatalf("levels %+v", m.Levels)
		}
		for ti := 0; ti < 2; ti++ {
			got := readPlane(t, src, 0, map[byte]int{'T': ti})
			for k := 0; k < 2; k++ {
				p := planes[[3]int{s, ti, k}]
				for y := 0; y < th; y++ {
					if !bytes.Equal(got[2*(y*80+k*tw):2*(y*80+k*tw+tw)], p[2*y*tw:2*(y+1)*tw]) {
						t.Fatalf("scene %d time %d tile %d row %d differs", s, ti, k, y)
					}
				}
			}
			if got := readPlane(t, src, 1, map[byte]int{'T': ti}); !bytes.Equal(got, planes[[3]int{s, ti, 9}]) {
				t.Fatalf("scene %d time %d: the pyramid level differs from its subblock", s, ti)
			}
		}
	}
}

// TestPixelTypes: Bgr48 (raw) as RGB uint16, Gray32Float in Zstd0, and
// Gray8 and Bgr24 in JPEG, each equal to what was written (the JPEG ones
// to what image/jpeg decodes of the same stream).
func TestPixelTypes(t *testing.T) {
	const pw, ph = 17, 9
	bgr48 := u16plane(3*pw, ph, 5)
	f32 := make([]byte, 4*pw*ph)
	for i := 0; i < pw*ph; i++ {
		binary.LittleEndian.PutUint32(f32[4*i:], math.Float32bits(float32(i)*0.25-3))
	}
	gray := image.NewGray(image.Rect(0, 0, pw, ph))
	for i := range gray.Pix {
		gray.Pix[i] = byte(i * 3)
	}
	var jg bytes.Buffer
	if err := jpeg.Encode(&jg, gray, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	decoded, _ := jpeg.Decode(bytes.NewReader(jg.Bytes()))
	colour := image.NewRGBA(image.Rect(0, 0, pw, ph))
	for i := range colour.Pix {
		colour.Pix[i] = byte(i * 7)
	}
	var jc bytes.Buffer
	if err := jpeg.Encode(&jc, colour, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	decodedColour, _ := jpeg.Decode(bytes.NewReader(jc.Bytes()))
	cases := []struct {
		name   string
		pixel  int32
		comp   int32
		data   []byte
		axes   string
		dt     loader.DType
		expect func(src loader.Source)
	}{
		{"bgr48", 4, cNone, bgr48, "CYX", loader.Uint16, func(src loader.Source) {
			for c, off := range []int{2, 1, 0} {
				got := readPlane(t, src, 0, map[byte]int{'C': c})
				for i := 0; i < pw*ph; i++ {
					if !bytes.Equal(got[2*i:2*i+2], bgr48[6*i+2*off:6*i+2*off+2]) {
						t.Fatalf("bgr48 channel %d sample %d", c, i)
					}
				}
			}
		}},
		{"float", 2, cZstd0, zstdFrame(f32), "YX", loader.Float32, func(src loader.Source) {
			if !bytes.Equal(readPlane(t, src, 0, nil), f32) {
				t.Fatal("float plane differs")
			}
		}},
		{"jpeg", 0, cJPEG, jg.Bytes(), "YX", loader.Uint8, func(src loader.Source) {
			got, g := readPlane(t, src, 0, nil), decoded.(*image.Gray)
			for y := 0; y < ph; y++ {
				if !bytes.Equal(got[y*pw:(y+1)*pw], g.Pix[y*g.Stride:y*g.Stride+pw]) {
					t.Fatalf("JPEG row %d differs from image/jpeg's", y)
				}
			}
		}},
		{"jpegrgb", 3, cJPEG, jc.Bytes(), "CYX", loader.Uint8, func(src loader.Source) {
			for c := 0; c < 3; c++ {
				got := readPlane(t, src, 0, map[byte]int{'C': c})
				for i := 0; i < pw*ph; i++ {
					r, g, b, _ := decodedColour.At(i%pw, i/pw).RGBA()
					if want := [3]uint32{r, g, b}[c] >> 8; uint32(got[i]) != want {
						t.Fatalf("JPEG colour %d sample %d: %d, image/jpeg gives %d", c, i, got[i], want)
					}
				}
			}
		}},
	}
	for _, c := range cases {
		w := &cziWriter{blocks: []blockW{{pixel: c.pixel, comp: c.comp, dims: plane2D(0, 0, pw, ph, pw, ph, nil), data: c.data}}}
		src := open(t, writeFile(t, c.name+".czi", w.bytes()))
		checkMeta(t, src.Meta(), c.axes, map[string][]int{"CYX": {3, ph, pw}, "YX": {ph, pw}}[c.axes], c.dt)
		c.expect(src)
	}
}

// TestBadFilesGiveOneClearError: cut or corrupt files and features not
// read give one line naming the problem, at open or when the plane is
// read.
func TestBadFilesGiveOneClearError(t *testing.T) {
	_, real := realFile(t, "CD_s_1_t_3_c_2_z_5.czi")
	one := func(pixel, comp int32, data []byte) []byte {
		w := &cziWriter{blocks: []blockW{{pixel: pixel, comp: comp, dims: plane2D(0, 0, 8, 4, 8, 4, nil), data: data}}}
		return w.bytes()
	}
	dirAt := int(binary.LittleEndian.Uint64(real[32+52:]))
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"cut.czi", real[:dirAt+1000], "truncated"},
		{"header.czi", real[:300], "ends inside its 544-byte header"},
		{"dir.czi", func() []byte {
			c := bytes.Clone(real)
			binary.LittleEndian.PutUint64(c[32+52:], 4096)
			return c
		}(), "no ZISRAWDIRECTORY segment at 4096"},
		{"jxr.czi", one(0, cJPGXR, make([]byte, 32)), "JPEG XR"},
		{"complex.czi", one(10, cNone, make([]byte, 32*8)), "Gray64ComplexFloat pixels"},
		{"short.czi", one(1, cNone, make([]byte, 20)), "20 bytes of data for 8 x 4 Gray16 pixels"},
		{"zstd.czi", one(1, cZstd0, zstdFrame(make([]byte, 60))), "zstd stream decodes to 60 bytes, expected 64"},
		{"zstd1.czi", one(1, cZstd1, append([]byte{7}, zstdFrame(make([]byte, 64))...)), "a Zstd1 header of 7 bytes"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		src, err := Open(context.Background(), path)
		if err == nil {
			_, err = loader.ReadAll(context.Background(), src, 0, 1<<24)
			src.Close()
		}
		loadertest.ClearError(t, c.name, err, c.want)
	}
}
