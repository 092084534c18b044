package tiff

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// jpegInputs writes smooth 8-bit images (JPEG's lossy coding keeps them
// close to themselves, so that decoders differ little) as raw input for
// ImageMagick: rgb.raw (2 pages of 70x45, interleaved) and gray.raw.
const jpegInputs = `
y, x = np.mgrid[0:90, 0:70]
r = 128 + 90 * np.sin(x / 7.0) * np.cos(y / 9.0)
g = 128 + 100 * np.cos((x + y) / 11.0)
b = 60 + 0.05 * x * y
rgb = np.clip(np.dstack([r, g, b]), 0, 255).astype(np.uint8)
rgb.tofile(d + '/rgb.raw')
rgb[:, :, 1].copy().tofile(d + '/gray.raw')
`

// gdalJPEG writes JPEG-compressed TIFFs with GDAL (libtiff and libjpeg),
// YCbCr subsampled 2x2 as GDAL does by default, and GDAL's reading of
// each as name.ref (samples C,Y,X).
const gdalJPEG = `
from osgeo import gdal
gdal.UseExceptions()
y, x = np.mgrid[0:45, 0:70]
rgb = np.clip(np.stack([128 + 90 * np.sin(x / 7.0) * np.cos(y / 9.0),
    128 + 100 * np.cos((x + y) / 11.0), 60 + 0.05 * x * y]), 0, 255).astype(np.uint8)
def w(name, a, opts):
    ds = gdal.GetDriverByName('GTiff').Create(d + '/' + name + '.tif', a.shape[2], a.shape[1], a.shape[0], gdal.GDT_Byte, opts)
    for i in range(a.shape[0]):
        ds.GetRasterBand(i + 1).WriteArray(a[i])
    ds = None
    gdal.Open(d + '/' + name + '.tif').ReadAsArray().tofile(d + '/' + name + '.ref')
w('ycbcr', rgb, ['COMPRESS=JPEG', 'PHOTOMETRIC=YCBCR'])
w('ycbcr_rows', rgb, ['COMPRESS=JPEG', 'PHOTOMETRIC=YCBCR', 'BLOCKYSIZE=16'])
w('ycbcr_tiled', rgb, ['COMPRESS=JPEG', 'PHOTOMETRIC=YCBCR', 'TILED=YES', 'BLOCKXSIZE=32', 'BLOCKYSIZE=16'])
w('rgb', rgb, ['COMPRESS=JPEG', 'PHOTOMETRIC=RGB', 'BLOCKYSIZE=8'])
w('rgb_planar', rgb, ['COMPRESS=JPEG', 'INTERLEAVE=BAND', 'TILED=YES', 'BLOCKXSIZE=16', 'BLOCKYSIZE=16'])
w('gray', rgb[1:2], ['COMPRESS=JPEG', 'BLOCKYSIZE=24'])
`

// expectClose checks that got and want (8-bit samples, the same count)
// differ, as two JPEG decoders do (their inverse DCTs and colour
// conversions round differently), by at most maxDiff in any sample and
// meanDiff on average.
func expectClose(t *testing.T, got, want []byte, maxDiff int, meanDiff float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d samples, want %d", len(got), len(want))
	}
	worst, sum := 0, 0
	for i := range got {
		d := int(got[i]) - int(want[i])
		if d < 0 {
			d = -d
		}
		worst = max(worst, d)
		sum += d
	}
	mean := float64(sum) / float64(len(got))
	t.Logf("max difference %d, mean %.3f", worst, mean)
	if worst > maxDiff || mean > meanDiff || math.IsNaN(mean) {
		t.Fatalf("samples differ by up to %d (mean %.3f), more than %d (%.3f)", worst, mean, maxDiff, meanDiff)
	}
}

func TestJPEGGDAL(t *testing.T) {
	testtool.RequirePython(t, "osgeo.gdal", "numpy")
	dir := t.TempDir()
	testtool.RunPython(t, "import sys, numpy as np\nd = sys.argv[1]\n"+gdalJPEG, dir)
	cases := []struct {
		name, axes    string
		photometric   int
		tiled, planar bool
		maxDiff       int
	}{
		{"ycbcr", "CYX", 6, false, false, 2},
		{"ycbcr_rows", "CYX", 6, false, false, 2},
		{"ycbcr_tiled", "CYX", 6, true, false, 2},
		{"rgb", "CYX", 2, false, false, 2},
		{"rgb_planar", "CYX", 2, true, true, 2},
		{"gray", "YX", 1, false, false, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := openTIFF(t, filepath.Join(dir, c.name+".tif"))
			p := src.(*source).p0
			if p.compression != cJPEG || p.photometric != c.photometric || p.tiled != c.tiled || p.planar != c.planar || p.jpegTables.tag == 0 {
				t.Fatalf("GDAL wrote compression %d, photometric %d, tiled %v, planar %v, tables %v", p.compression, p.photometric, p.tiled, p.planar, p.jpegTables.tag != 0)
			}
			m := src.Meta()
			shape := []int{45, 70}
			if c.axes == "CYX" {
				shape = []int{3, 45, 70}
			}
			if m.Axes != c.axes || !reflect.DeepEqual(m.Shape, shape) || m.DType != loader.Uint8 || m.RGB != (len(shape) == 3) {
				t.Fatalf("meta %s %v %s RGB %v", m.Axes, m.Shape, m.DType, m.RGB)
			}
			expectClose(t, readAll(t, src), readFile(t, filepath.Join(dir, c.name+".ref")), c.maxDiff, 0.3)
		})
	}
}

func TestJPEGImageMagick(t *testing.T) {
	testtool.Require(t, "convert")
	dir := t.TempDir()
	python(t, dir, jpegInputs)
	cases := []struct {
		name        string
		rgb         bool
		args        []string
		photometric int
		tiled       bool
		maxDiff     int
	}{
		{"gray", false, nil, 1, false, 2},
		{"gray_tiled", false, []string{"-define", "tiff:tile-geometry=32x32"}, 1, true, 2},
		{"gray_rows", false, []string{"-define", "tiff:rows-per-strip=16"}, 1, false, 2},
		{"rgb", true, nil, 2, false, 2},
		{"rgb_tiled", true, []string{"-define", "tiff:tile-geometry=16x32"}, 2, true, 2},
		// ImageMagick converts to YCbCr itself, rounding differently.
		{"ycbcr", true, []string{"-colorspace", "YCbCr"}, 6, false, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			kind, in := "gray:", filepath.Join(dir, "gray.raw")
			if c.rgb {
				kind, in = "rgb:", filepath.Join(dir, "rgb.raw")
			}
			path := filepath.Join(dir, c.name+".tif")
			args := append([]string{"-size", "70x45", "-depth", "8", kind + in}, c.args...)
			testtool.Run(t, "convert", append(args, "-compress", "JPEG", path)...)
			src := openTIFF(t, path)
			p := src.(*source).p0
			if p.compression != cJPEG || p.photometric != c.photometric || p.tiled != c.tiled {
				t.Fatalf("ImageMagick wrote compression %d, photometric %d, tiled %v", p.compression, p.photometric, p.tiled)
			}
			m := src.Meta()
			if m.Size('Z') != 2 || m.Size('C') != 1+2*btoi(c.rgb) || m.RGB != c.rgb {
				t.Fatalf("meta %s %v RGB %v", m.Axes, m.Shape, m.RGB)
			}
			out := filepath.Join(dir, c.name+".decoded.raw")
			testtool.Run(t, "convert", path, "-depth", "8", kind+out)
			want := readFile(t, out)
			if c.rgb {
				want = planarOf(want, 2, 70*45, 1)
			}
			expectClose(t, readAll(t, src), want, c.maxDiff, 0.3)
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Old-style JPEG (compression 6) is refused by name: an ImageMagick JPEG
// file with its Compression tag set to 6.
func TestOldJPEGUnsupported(t *testing.T) {
	testtool.Require(t, "convert")
	dir := t.TempDir()
	python(t, dir, jpegInputs)
	path := filepath.Join(dir, "ojpeg.tif")
	testtool.Run(t, "convert", "-size", "70x45", "-depth", "8", "gray:"+filepath.Join(dir, "gray.raw"), "-compress", "JPEG", path)
	testtool.RunPython(t, `
import sys, struct, tifffile
with tifffile.TiffFile(sys.argv[1]) as tf:
    pos = tf.pages[0].tags[259].valueoffset
with open(sys.argv[1], 'r+b') as f:
    f.seek(pos)
    f.write(struct.pack(('<' if tf.byteorder == '<' else '>') + 'H', 6))
`, path)
	_, err := loader.Open(context.Background(), path)
	var ue *loader.UnsupportedError
	if !errors.As(err, &ue) || ue.Feature != "old-style JPEG compression" {
		t.Fatalf("error %v, want unsupported old-style JPEG compression", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}

// yccFixtures writes YCbCr TIFFs without JPEG compression (tifffile stores
// the samples as given), the RGB that the TIFF 6.0 formula gives for them
// (computed in floating point and rounded), and a subsampled copy.
const yccFixtures = `
rng = np.random.default_rng(5)
a = rng.integers(0, 255, (2, 33, 41, 3), dtype=np.uint8, endpoint=True)
tifffile.imwrite(d + '/ycc.tif', a, photometric='ycbcr')
tifffile.imwrite(d + '/ycc_zlib.tif', a, photometric='ycbcr', compression='zlib', predictor=2, rowsperstrip=5)
y, cb, cr = a[..., 0].astype(float), a[..., 1] - 128.0, a[..., 2] - 128.0
r, b = y + 1.402 * cr, y + 1.772 * cb
g = (y - 0.299 * r - 0.114 * b) / 0.587
rgb = np.clip(np.floor(np.stack([r, g, b], -1) + 0.5), 0, 255).astype(np.uint8)
np.ascontiguousarray(np.moveaxis(rgb, -1, 1)).tofile(d + '/ycc.rgb')
tifffile.imwrite(d + '/ycc22.tif', a[0], photometric='ycbcr')
with tifffile.TiffFile(d + '/ycc22.tif') as t:
    at = t.pages[0].tags[530].valueoffset
with open(d + '/ycc22.tif', 'r+b') as f:
    f.seek(at)
    f.write(np.array([2, 2], '<u2').tobytes())
`

// TestYCbCrUncompressed: YCbCr pixels stored whole read as the RGB the
// TIFF formula gives, and within one level of ImageMagick's (libtiff's
// integer conversion rounds differently); subsampled chroma without JPEG
// is refused in one line.
func TestYCbCrUncompressed(t *testing.T) {
	dir := t.TempDir()
	python(t, dir, yccFixtures)
	want := readFile(t, filepath.Join(dir, "ycc.rgb"))
	convert := testtool.Require(t, "convert")
	for _, n := range []string{"ycc", "ycc_zlib"} {
		path := filepath.Join(dir, n+".tif")
		src := openTIFF(t, path)
		if m := src.Meta(); m.Axes != "ZCYX" || !m.RGB || !reflect.DeepEqual(m.Shape, []int{2, 3, 33, 41}) {
			t.Fatalf("%s: %s %v rgb %v", n, m.Axes, m.Shape, m.RGB)
		}
		got := readAll(t, src)
		if !bytes.Equal(got, want) {
			i := firstDiff(got, want)
			t.Fatalf("%s: %d samples, sample %d differs from the formula's (of %d)", n, len(got), i, len(want))
		}
		im := testtool.Run(t, convert, path+"[0]", "-depth", "8", "rgb:-")
		const plane = 33 * 41
		for k := 0; k < plane*3; k++ {
			if d := int(got[k%3*plane+k/3]) - int(im[k]); d < -1 || d > 1 {
				t.Fatalf("%s: pixel %d sample %d: %d, ImageMagick %d", n, k/3, k%3, got[k%3*plane+k/3], im[k])
			}
		}
	}
	err := openErr(t, filepath.Join(dir, "ycc22.tif"))
	var ue *loader.UnsupportedError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "subsampled 2x2") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("subsampled: %v, want one line refusing it", err)
	}
}

// jpegTIFF writes a one-strip TIFF whose strip is the JPEG file jpg (a
// whole JPEG stream, tables included), of w x h pixels of spp samples with
// the given photometric and YCbCrSubSampling (h, v; none when 0).
func jpegTIFF(t *testing.T, path string, jpg []byte, w, h, spp, photometric, sh, sv int) {
	t.Helper()
	le := binary.LittleEndian
	type ent struct {
		tag, typ uint16
		vals     []uint32
	}
	bps := make([]uint32, spp)
	for i := range bps {
		bps[i] = 8
	}
	ents := []ent{{256, 4, []uint32{uint32(w)}}, {257, 4, []uint32{uint32(h)}}, {258, 3, bps}, {259, 3, []uint32{7}},
		{262, 3, []uint32{uint32(photometric)}}, {273, 4, []uint32{8}}, {277, 3, []uint32{uint32(spp)}},
		{278, 4, []uint32{uint32(h)}}, {279, 4, []uint32{uint32(len(jpg))}}}
	if sh > 0 {
		ents = append(ents, ent{530, 3, []uint32{uint32(sh), uint32(sv)}})
	}
	b := append([]byte("II*\x00\x00\x00\x00\x00"), jpg...)
	if len(b)%2 == 1 {
		b = append(b, 0)
	}
	ifd := len(b)
	le.PutUint32(b[4:], uint32(ifd))
	extra := ifd + 2 + 12*len(ents) + 4
	b = append(b, make([]byte, extra-ifd)...)
	le.PutUint16(b[ifd:], uint16(len(ents)))
	for i, e := range ents {
		p := b[ifd+2+12*i:]
		le.PutUint16(p, e.tag)
		le.PutUint16(p[2:], e.typ)
		le.PutUint32(p[4:], uint32(len(e.vals)))
		size := map[uint16]int{3: 2, 4: 4}[e.typ]
		var vb []byte
		for _, v := range e.vals {
			if size == 2 {
				vb = le.AppendUint16(vb, uint16(v))
			} else {
				vb = le.AppendUint32(vb, v)
			}
		}
		if len(vb) <= 4 {
			copy(p[8:], vb)
		} else {
			le.PutUint32(p[8:], uint32(len(b)))
			b = append(b, vb...)
		}
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestJPEGSubsampledChroma: YCbCr JPEG strips with chroma subsampled 4:2:2
// and 4:2:0 (standalone JPEG files made by ImageMagick, put in TIFF
// strips) read as ImageMagick decodes those JPEG files, up to the
// rounding of libjpeg's integer IDCT and colour conversion (chroma is
// upsampled as libjpeg does, see loader/internal/ycc).
func TestJPEGSubsampledChroma(t *testing.T) {
	convert := testtool.Require(t, "convert")
	dir := t.TempDir()
	python(t, dir, jpegInputs)
	for _, c := range []struct {
		name          string
		sh, sv, limit int
	}{{"422", 2, 1, 3}, {"420", 2, 2, 3}, {"444", 1, 1, 2}} {
		t.Run(c.name, func(t *testing.T) {
			jpg := filepath.Join(dir, c.name+".jpg")
			testtool.Run(t, convert, "-size", "70x90", "-depth", "8", "rgb:"+filepath.Join(dir, "rgb.raw"),
				"-sampling-factor", fmt.Sprintf("%dx%d", c.sh, c.sv), "-quality", "92", jpg)
			path := filepath.Join(dir, c.name+".tif")
			jpegTIFF(t, path, readFile(t, jpg), 70, 90, 3, 6, c.sh, c.sv)
			src := openTIFF(t, path)
			if m := src.Meta(); m.Axes != "CYX" || !m.RGB {
				t.Fatalf("meta %s %v", m.Axes, m.Shape)
			}
			want := planarOf(testtool.Run(t, convert, jpg, "-depth", "8", "rgb:-"), 1, 70*90, 1)
			expectClose(t, readAll(t, src), want, c.limit, 0.3)
		})
	}
}
