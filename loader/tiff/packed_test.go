package tiff

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// tifffile writes bilevel images (bool arrays, 1 bit per sample) and half
// floats; its reading of them is the reference.
const packedFixtures = `
rng = np.random.default_rng(11)
def w(name, data, **kw):
    tifffile.imwrite(d + '/' + name + '.tif', data, **kw)
w('bool', rng.integers(0, 2, (3, 21, 37)).astype(bool))
w('bool_tiled', rng.integers(0, 2, (2, 40, 50)).astype(bool), tile=(16, 32))
w('bool_be', rng.integers(0, 2, (21, 37)).astype(bool), byteorder='>', photometric='minisblack')
w('half', rng.normal(size=(2, 21, 37)).astype(np.float16), photometric='minisblack')
w('half_zlib', (rng.normal(size=(2, 21, 37)) * 1e4).astype(np.float16), compression='zlib', rowsperstrip=5, photometric='minisblack')
w('half_be_tiled', rng.normal(size=(2, 40, 50)).astype(np.float16), byteorder='>', tile=(16, 16), photometric='minisblack')
w('half_rgb', rng.normal(size=(21, 37, 3)).astype(np.float16), photometric='rgb')
w('half_special', np.array([[0, -0.0, 1, -2, 65504, 6e-8, -6e-8, 1e-5, np.inf, -np.inf, np.nan, 0.333]], np.float16), photometric='minisblack')
`

func TestPackedTifffile(t *testing.T) {
	dir := t.TempDir()
	python(t, dir, packedFixtures)
	cases := []struct {
		name, axes string
		bits       int
	}{
		{"bool", "ZYX", 1}, {"bool_tiled", "ZYX", 1}, {"bool_be", "YX", 1},
		{"half", "ZYX", 16}, {"half_zlib", "ZYX", 16}, {"half_be_tiled", "ZYX", 16},
		{"half_rgb", "CYX", 16}, {"half_special", "YX", 16},
	}
	var paths []string
	for _, c := range cases {
		paths = append(paths, filepath.Join(dir, c.name+".tif"))
	}
	refs := tifffileRead(t, paths...)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := expectRef(t, paths[i], c.axes, refs[paths[i]])
			if p := src.(*source).p0; p.bits != c.bits {
				t.Errorf("%d bits per sample, want %d", p.bits, c.bits)
			}
		})
	}
}

// imPacked is a file ImageMagick writes in a packed bit depth from 16-bit
// gray (or RGB) samples.
type imPacked struct {
	name  string
	bits  int
	rgb   bool
	args  []string
	comp  int
	lsb   bool // FillOrder 2
	tiled bool
}

var imPackedCases = []imPacked{
	{name: "b1", bits: 1, args: []string{"-threshold", "50%"}, comp: cNone},
	{name: "b2", bits: 2, comp: cNone},
	{name: "b4", bits: 4, comp: cNone},
	{name: "b12", bits: 12, comp: cNone},
	{name: "b6", bits: 6, comp: cNone},
	{name: "b10", bits: 10, comp: cNone},
	{name: "b14_msb", bits: 14, args: []string{"-define", "tiff:endian=msb"}, comp: cNone},
	{name: "b4_lsb", bits: 4, args: []string{"-define", "tiff:fill-order=lsb"}, comp: cNone, lsb: true},
	{name: "b1_lsb", bits: 1, args: []string{"-threshold", "50%", "-define", "tiff:fill-order=lsb"}, comp: cNone, lsb: true},
	{name: "b12_zip", bits: 12, args: []string{"-compress", "Zip", "-define", "tiff:rows-per-strip=5"}, comp: cDeflate},
	{name: "b4_lzw_tiled", bits: 4, args: []string{"-compress", "LZW", "-define", "tiff:tile-geometry=32x16"}, comp: cLZW, tiled: true},
	{name: "b12_tiled", bits: 12, args: []string{"-define", "tiff:tile-geometry=16x16"}, comp: cNone, tiled: true},
	{name: "b2_packbits", bits: 2, args: []string{"-compress", "RLE"}, comp: cPackBits},
	{name: "rgb4", bits: 4, rgb: true, comp: cNone},
	{name: "rgb12_zip", bits: 12, rgb: true, args: []string{"-compress", "Zip"}, comp: cDeflate},
}

// TestPackedImageMagick compares our unpacking of packed samples with
// ImageMagick's (libtiff's) reading of the same file, which it gives as
// 16-bit samples scaled from the stored range: the stored value is
// v16 * (2^bits-1) / 65535, rounded.
func TestPackedImageMagick(t *testing.T) {
	testtool.Require(t, "convert")
	dir := t.TempDir()
	for _, c := range imPackedCases {
		t.Run(c.name, func(t *testing.T) {
			ic := imCase{name: c.name, pages: 2, w: 37, h: 21, depth: 16, rgb: c.rgb}
			ic.args = append(append(ic.args, c.args...), "-depth", itoa(c.bits))
			path, _ := ic.write(t, dir)
			src := openTIFF(t, path)
			p := src.(*source).p0
			if p.bits != c.bits || p.compression != c.comp || p.lsbFirst != c.lsb || p.tiled != c.tiled || p.photometric > 2 {
				t.Fatalf("ImageMagick wrote %d bits, compression %d, FillOrder 2 %v, tiled %v, photometric %d; want %d bits, %d, %v, %v",
					p.bits, p.compression, p.lsbFirst, p.tiled, p.photometric, c.bits, c.comp, c.lsb, c.tiled)
			}
			m := src.Meta()
			dt := loader.Uint8
			if c.bits > 8 {
				dt = loader.Uint16
			}
			if m.DType != dt {
				t.Fatalf("dtype %s, want %s", m.DType, dt)
			}
			kind := "gray:"
			if c.rgb {
				kind = "rgb:"
			}
			out := filepath.Join(dir, c.name+".decoded.raw")
			testtool.Run(t, "convert", path, "-depth", "16", "-endian", "LSB", kind+out)
			ref := readFile(t, out)
			max := uint64(1)<<c.bits - 1
			want := make([]byte, len(ref)/2*dt.Size())
			for i := 0; i < len(ref)/2; i++ {
				v := (uint64(binary.LittleEndian.Uint16(ref[2*i:]))*max + 32767) / 65535
				if dt == loader.Uint8 {
					want[i] = byte(v)
				} else {
					binary.LittleEndian.PutUint16(want[2*i:], uint16(v))
				}
			}
			if c.rgb {
				want = planarOf(want, ic.pages, ic.w*ic.h, dt.Size())
			}
			got := readAll(t, src)
			if !bytes.Equal(got, want) {
				t.Fatalf("samples differ from ImageMagick's at byte %d of %d", firstDiff(got, want), len(want))
			}
		})
	}
}
