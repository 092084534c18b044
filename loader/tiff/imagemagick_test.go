package tiff

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// imCase is a file ImageMagick writes from raw samples.
type imCase struct {
	name   string
	pages  int
	w, h   int
	depth  int  // bits per sample of the raw input
	rgb    bool // interleaved RGB input
	float  bool // float32 input (ImageMagick quantizes it)
	args   []string
	axes   string
	dtype  loader.DType
	comp   int
	pred   int
	tiled  bool
	bigEnd bool
}

var imCases = []imCase{
	{name: "u8", pages: 3, w: 70, h: 50, depth: 8, axes: "ZYX", dtype: loader.Uint8, comp: cNone, pred: 1},
	{name: "u16", pages: 4, w: 70, h: 50, depth: 16, axes: "ZYX", dtype: loader.Uint16, comp: cNone, pred: 1},
	{name: "u16_msb", pages: 2, w: 33, h: 21, depth: 16, args: []string{"-define", "tiff:endian=msb"}, axes: "ZYX", dtype: loader.Uint16, comp: cNone, pred: 1, bigEnd: true},
	{name: "lzw8", pages: 3, w: 70, h: 50, depth: 8, args: []string{"-compress", "LZW"}, axes: "ZYX", dtype: loader.Uint8, comp: cLZW, pred: 2},
	{name: "lzw16_nopred", pages: 3, w: 70, h: 50, depth: 16, args: []string{"-compress", "LZW", "-define", "tiff:predictor=1"}, axes: "ZYX", dtype: loader.Uint16, comp: cLZW, pred: 1},
	{name: "lzw16_msb", pages: 2, w: 70, h: 50, depth: 16, args: []string{"-compress", "LZW", "-define", "tiff:endian=msb"}, axes: "ZYX", dtype: loader.Uint16, comp: cLZW, pred: 2, bigEnd: true},
	{name: "zip16", pages: 3, w: 70, h: 50, depth: 16, args: []string{"-compress", "Zip", "-define", "tiff:predictor=2"}, axes: "ZYX", dtype: loader.Uint16, comp: cDeflate, pred: 2},
	{name: "zip8_rows", pages: 2, w: 300, h: 200, depth: 8, args: []string{"-compress", "Zip", "-define", "tiff:rows-per-strip=7", "-define", "tiff:predictor=1"}, axes: "ZYX", dtype: loader.Uint8, comp: cDeflate, pred: 1},
	{name: "tiled16_zip", pages: 3, w: 150, h: 100, depth: 16, args: []string{"-compress", "Zip", "-define", "tiff:predictor=1", "-define", "tiff:tile-geometry=64x64"}, axes: "ZYX", dtype: loader.Uint16, comp: cDeflate, pred: 1, tiled: true},
	{name: "tiled8", pages: 2, w: 150, h: 100, depth: 8, args: []string{"-define", "tiff:tile-geometry=64x64"}, axes: "ZYX", dtype: loader.Uint8, comp: cNone, pred: 1, tiled: true},
	{name: "tiled16_lzw", pages: 2, w: 150, h: 100, depth: 16, args: []string{"-compress", "LZW", "-define", "tiff:tile-geometry=32x64"}, axes: "ZYX", dtype: loader.Uint16, comp: cLZW, pred: 2, tiled: true},
	{name: "rgb8", pages: 1, w: 70, h: 50, depth: 8, rgb: true, axes: "CYX", dtype: loader.Uint8, comp: cNone, pred: 1},
	{name: "rgb16_lzw", pages: 2, w: 70, h: 50, depth: 16, rgb: true, args: []string{"-compress", "LZW"}, axes: "ZCYX", dtype: loader.Uint16, comp: cLZW, pred: 2},
	{name: "rgb8_tiled_zip", pages: 2, w: 90, h: 70, depth: 8, rgb: true, args: []string{"-compress", "Zip", "-define", "tiff:predictor=2", "-define", "tiff:tile-geometry=32x32"}, axes: "ZCYX", dtype: loader.Uint8, comp: cDeflate, pred: 2, tiled: true},
	{name: "zstd16", pages: 3, w: 70, h: 50, depth: 16, args: []string{"-compress", "Zstd", "-define", "tiff:predictor=2"}, axes: "ZYX", dtype: loader.Uint16, comp: cZSTD, pred: 2},
	{name: "zstd8_msb", pages: 2, w: 70, h: 50, depth: 8, args: []string{"-compress", "Zstd", "-define", "tiff:endian=msb"}, axes: "ZYX", dtype: loader.Uint8, comp: cZSTD, pred: 1, bigEnd: true},
	{name: "zstd16_tiled_msb", pages: 2, w: 100, h: 70, depth: 16, args: []string{"-compress", "Zstd", "-define", "tiff:predictor=2", "-define", "tiff:endian=msb", "-define", "tiff:tile-geometry=32x32"}, axes: "ZYX", dtype: loader.Uint16, comp: cZSTD, pred: 2, tiled: true, bigEnd: true},
	{name: "packbits8", pages: 3, w: 70, h: 50, depth: 8, args: []string{"-compress", "RLE"}, axes: "ZYX", dtype: loader.Uint8, comp: cPackBits, pred: 1},
	{name: "packbits16", pages: 2, w: 70, h: 50, depth: 16, args: []string{"-compress", "RLE"}, axes: "ZYX", dtype: loader.Uint16, comp: cPackBits, pred: 1},
	{name: "f32_zip_fpred", pages: 2, w: 70, h: 50, depth: 32, float: true, args: []string{"-compress", "Zip", "-define", "tiff:predictor=3"}, axes: "ZYX", dtype: loader.Float32, comp: cDeflate, pred: 3},
	{name: "f32_lzw_fpred", pages: 2, w: 70, h: 50, depth: 32, float: true, args: []string{"-compress", "LZW", "-define", "tiff:predictor=3"}, axes: "ZYX", dtype: loader.Float32, comp: cLZW, pred: 3},
	{name: "f64_zstd_fpred", pages: 2, w: 70, h: 50, depth: 64, float: true, args: []string{"-compress", "Zstd", "-define", "tiff:predictor=3"}, axes: "ZYX", dtype: loader.Float64, comp: cZSTD, pred: 3},
	{name: "f32_rgb_zip_fpred", pages: 1, w: 40, h: 30, depth: 32, float: true, rgb: true, args: []string{"-compress", "Zip", "-define", "tiff:predictor=3"}, axes: "CYX", dtype: loader.Float32, comp: cDeflate, pred: 3},
}

// rawInput makes the samples ImageMagick is given: little-endian, pixels
// interleaved for RGB, integers spanning the range with runs that compress.
func (c *imCase) rawInput() []byte {
	r := rand.New(rand.NewPCG(uint64(len(c.name)), uint64(c.w*c.h)))
	spp := 1
	if c.rgb {
		spp = 3
	}
	n := c.pages * c.w * c.h * spp
	es := c.depth / 8
	b := make([]byte, n*es)
	for i := 0; i < n; i++ {
		switch {
		case c.float && es == 4:
			putF32(b[i*4:], r.Float32())
		case c.float:
			putF64(b[i*8:], r.Float64())
		default:
			v := r.Uint64()
			if r.IntN(3) == 0 && i >= spp {
				copy(b[i*es:(i+1)*es], b[(i-spp)*es:(i-spp+1)*es])
				continue
			}
			for k := 0; k < es; k++ {
				b[i*es+k] = byte(v >> (8 * k))
			}
		}
	}
	return b
}

// planarOf reorders interleaved RGB pages into the loader's C,Y,X order.
func planarOf(raw []byte, pages, pix, es int) []byte {
	out := make([]byte, len(raw))
	for p := 0; p < pages; p++ {
		src := raw[p*pix*3*es : (p+1)*pix*3*es]
		deinterleave(out[p*pix*3*es:], pix*es, src, pix, 3, es, false)
	}
	return out
}

func (c *imCase) write(t *testing.T, dir string) (path string, raw []byte) {
	t.Helper()
	raw = c.rawInput()
	in := filepath.Join(dir, c.name+".raw")
	if err := os.WriteFile(in, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	kind := "gray:"
	if c.rgb {
		kind = "rgb:"
	}
	args := []string{"-size", itoa(c.w) + "x" + itoa(c.h), "-depth", itoa(c.depth), "-endian", "LSB"}
	if c.float {
		args = append(args, "-define", "quantum:format=floating-point")
	}
	path = filepath.Join(dir, c.name+".tif")
	args = append(append(append(args, kind+in), c.args...), path)
	testtool.Run(t, "convert", args...)
	return path, raw
}

func itoa(i int) string { return strconv.Itoa(i) }

func putF32(b []byte, v float32) { binary.LittleEndian.PutUint32(b, math.Float32bits(v)) }
func putF64(b []byte, v float64) { binary.LittleEndian.PutUint64(b, math.Float64bits(v)) }

func TestImageMagick(t *testing.T) {
	testtool.Require(t, "convert")
	dir := t.TempDir()
	for _, c := range imCases {
		t.Run(c.name, func(t *testing.T) {
			path, raw := c.write(t, dir)
			src := openTIFF(t, path)
			s := src.(*source)
			p := s.p0
			if p.compression != c.comp || p.predictor != c.pred || p.tiled != c.tiled || (s.f.bo.String() == "BigEndian") != c.bigEnd {
				t.Fatalf("ImageMagick wrote compression %d predictor %d tiled %v %v, want %d %d %v big-endian %v",
					p.compression, p.predictor, p.tiled, s.f.bo, c.comp, c.pred, c.tiled, c.bigEnd)
			}
			m := src.Meta()
			shape := []int{c.h, c.w}
			if c.rgb {
				shape = append([]int{3}, shape...)
			}
			if c.pages > 1 {
				shape = append([]int{c.pages}, shape...)
			}
			if m.Axes != c.axes || !reflect.DeepEqual(m.Shape, shape) || m.DType != c.dtype {
				t.Fatalf("meta %s %v %s, want %s %v %s", m.Axes, m.Shape, m.DType, c.axes, shape, c.dtype)
			}
			got := readAll(t, src)
			want := raw
			if c.float {
				// ImageMagick quantizes floats: compare with libtiff's
				// decoding of the same file, as raw samples.
				out := filepath.Join(dir, c.name+".decoded.raw")
				kind := "gray:"
				if c.rgb {
					kind = "rgb:"
				}
				testtool.Run(t, "convert", path, "-define", "quantum:format=floating-point", "-depth", itoa(c.depth), "-endian", "LSB", kind+out)
				want = readFile(t, out)
			}
			if c.rgb {
				want = planarOf(want, c.pages, c.w*c.h, c.depth/8)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("samples differ at byte %d", firstDiff(got, want))
			}
		})
	}
}

// Compressed files that tifffile can decode without imagecodecs are also
// checked against tifffile's reading.
func TestImageMagickAgainstTifffile(t *testing.T) {
	testtool.Require(t, "convert")
	dir := t.TempDir()
	var paths []string
	var cases []imCase
	for _, c := range imCases {
		if c.comp == cNone || c.comp == cDeflate || c.comp == cPackBits {
			if c.pred == 3 {
				continue
			}
			p, _ := c.write(t, dir)
			paths = append(paths, p)
			cases = append(cases, c)
		}
	}
	refs := tifffileRead(t, paths...)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) { expectRef(t, paths[i], c.axes, refs[paths[i]]) })
	}
}
