package tiff

import (
	"context"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"vastview/loader"
)

// tifffileFixtures writes one file per case into d.
const tifffileFixtures = `
rng = np.random.default_rng(7)
def ints(dt, shape):
    i = np.iinfo(dt)
    return rng.integers(i.min, i.max, shape, dtype=dt, endpoint=True)
def w(name, data, **kw):
    tifffile.imwrite(d + '/' + name + '.tif', data, **kw)
mb = dict(photometric='minisblack')
w('u8', ints(np.uint8, (5, 33, 47)), **mb)
w('bigtiff_u16', ints(np.uint16, (6, 40, 30)), bigtiff=True, **mb)
w('f32', rng.normal(size=(3, 20, 25)).astype(np.float32), **mb)
w('f64', rng.normal(size=(20, 25)), **mb)
w('i8', ints(np.int8, (2, 9, 11)), **mb)
w('i16', ints(np.int16, (5, 21, 13)), **mb)
w('u32', ints(np.uint32, (2, 9, 11)), **mb)
w('i32', ints(np.int32, (2, 9, 11)), **mb)
w('u64', ints(np.uint64, (2, 9, 11)), **mb)
w('i64', ints(np.int64, (3, 9, 11)), **mb)
w('be_i64_zlib_pred', ints(np.int64, (2, 30, 19)), byteorder='>', compression='zlib', predictor=2, rowsperstrip=7, **mb)
w('tiled_u64_labels', (2**60 + rng.integers(0, 5, (2, 40, 50))).astype(np.uint64), tile=(16, 32), **mb)
w('tiled', ints(np.uint16, (3, 100, 70)), tile=(32, 48), **mb)
w('tiled_zlib_pred', ints(np.uint16, (2, 100, 70)) // 7, tile=(32, 16), compression='zlib', predictor=2, **mb)
w('be_u16', ints(np.uint16, (3, 17, 19)), byteorder='>', **mb)
w('be_f64', rng.normal(size=(2, 17, 19)), byteorder='>', **mb)
w('be_i32_zlib_pred', ints(np.int32, (3, 30, 19)) // 1000, byteorder='>', compression='zlib', predictor=2, rowsperstrip=7, **mb)
w('be_tiled_f32', rng.normal(size=(2, 40, 50)).astype(np.float32), byteorder='>', tile=(16, 32), **mb)
w('zlib_u8_rps', ints(np.uint8, (4, 50, 31)) // 3, compression='zlib', rowsperstrip=6, **mb)
w('zlib_i16_pred', ints(np.int16, (4, 50, 31)) // 5, compression='zlib', predictor=2, rowsperstrip=9, **mb)
w('zlib_u32', ints(np.uint32, (2, 20, 30)) // 9, compression=('zlib', 9), predictor=2, **mb)
w('lzma', ints(np.uint16, (2, 20, 30)) // 9, compression='lzma', **mb)
w('rgb', ints(np.uint8, (2, 30, 40, 3)), photometric='rgb')
w('rgb_be16', ints(np.uint16, (30, 40, 3)), photometric='rgb', byteorder='>', rowsperstrip=4)
w('rgb_planar16', ints(np.uint16, (3, 30, 40)), photometric='rgb', planarconfig='separate', rowsperstrip=7)
w('rgba', ints(np.uint8, (30, 40, 4)), photometric='rgb', extrasamples=['unassalpha'])
w('rgb_tiled_zlib_pred', ints(np.uint16, (70, 80, 3)) // 3, photometric='rgb', tile=(32, 32), compression='zlib', predictor=2)
w('rgb_planar_tiled', ints(np.uint8, (2, 3, 40, 50)), photometric='rgb', planarconfig='separate', tile=(16, 16))
w('rgb_zlib_strips', ints(np.uint8, (2, 30, 40, 3)) // 4, photometric='rgb', compression='zlib', predictor=2, rowsperstrip=8)
w('miniswhite', ints(np.uint16, (2, 10, 12)), photometric='miniswhite')
w('shaped_tzyx', ints(np.uint8, (2, 3, 16, 24)), metadata={'axes': 'TZYX'}, **mb)
w('shaped_tyxs', ints(np.uint8, (2, 16, 24, 3)), photometric='rgb', metadata={'axes': 'TYXS'})
w('shaped_tcyx_zlib', ints(np.uint16, (3, 2, 16, 24)) // 9, compression='zlib', metadata={'axes': 'TCYX'}, **mb)
# A shape without axes: the first series is its pages, not the file's.
w('two_series', ints(np.uint16, (5, 20, 30)), **mb)
tifffile.imwrite(d + '/two_series.tif', ints(np.uint8, (3, 10, 12)), append=True, **mb)
w('two_series_rgb', ints(np.uint8, (2, 20, 30, 3)), photometric='rgb')
tifffile.imwrite(d + '/two_series_rgb.tif', ints(np.uint8, (4, 20, 30)), append=True, **mb)
`

func TestTifffile(t *testing.T) {
	dir := t.TempDir()
	python(t, dir, tifffileFixtures)
	axes := map[string]string{
		"u8": "ZYX", "bigtiff_u16": "ZYX", "f32": "ZYX", "f64": "YX", "i8": "ZYX",
		"i16": "ZYX", "u32": "ZYX", "i32": "ZYX", "tiled": "ZYX", "tiled_zlib_pred": "ZYX",
		"be_u16": "ZYX", "be_f64": "ZYX", "be_i32_zlib_pred": "ZYX", "be_tiled_f32": "ZYX",
		"zlib_u8_rps": "ZYX", "zlib_i16_pred": "ZYX", "zlib_u32": "ZYX",
		"rgb": "ZCYX", "rgb_be16": "CYX", "rgb_planar16": "CYX", "rgba": "CYX",
		"rgb_tiled_zlib_pred": "CYX", "rgb_planar_tiled": "ZCYX", "rgb_zlib_strips": "ZCYX",
		"miniswhite": "ZYX", "shaped_tzyx": "TZYX", "shaped_tyxs": "TCYX", "shaped_tcyx_zlib": "TCYX",
		"two_series": "ZYX", "two_series_rgb": "ZCYX", "lzma": "ZYX",
		"u64": "ZYX", "i64": "ZYX", "be_i64_zlib_pred": "ZYX", "tiled_u64_labels": "ZYX",
	}
	var names, paths []string
	for n := range axes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		paths = append(paths, filepath.Join(dir, n+".tif"))
	}
	refs := tifffileRead(t, paths...)
	for i, n := range names {
		t.Run(n, func(t *testing.T) {
			src := expectRef(t, paths[i], axes[n], refs[paths[i]])
			if f := src.Meta().Format; f != "tiff" {
				t.Errorf("format %q", f)
			}
		})
	}
}

const paletteFixture = `
rng = np.random.default_rng(3)
cmap = rng.integers(0, 65535, (3, 256), dtype=np.uint16, endpoint=True)
idx = rng.integers(0, 255, (2, 20, 30), dtype=np.uint8, endpoint=True)
tifffile.imwrite(d + '/palette.tif', idx, photometric='palette', colormap=cmap)
cmap.T.astype('<u2').tofile(d + '/palette.cmap')
`

func TestPalette(t *testing.T) {
	dir := t.TempDir()
	python(t, dir, paletteFixture)
	path := filepath.Join(dir, "palette.tif")
	src := expectTifffile(t, path, "ZYX")
	pal := src.Meta().Palette
	raw := readFile(t, filepath.Join(dir, "palette.cmap"))
	if len(pal) != 256 {
		t.Fatalf("palette of %d entries", len(pal))
	}
	for i, e := range pal {
		for c := 0; c < 3; c++ {
			if want := uint16(raw[(i*3+c)*2]) | uint16(raw[(i*3+c)*2+1])<<8; e[c] != want {
				t.Fatalf("palette[%d] = %v, want channel %d = %d", i, e, c, want)
			}
		}
	}
}

const imagejFixtures = `
rng = np.random.default_rng(5)
hyper = rng.integers(0, 4000, (2, 3, 4, 16, 24), dtype=np.uint16)
tifffile.imwrite(d + '/hyper.tif', hyper, imagej=True, resolution=(1 / 0.25, 1 / 0.5),
    metadata={'spacing': 1.5, 'unit': 'um', 'finterval': 0.5, 'axes': 'TZCYX'})
tifffile.imwrite(d + '/stack.tif', rng.integers(0, 255, (7, 16, 24), dtype=np.uint8), imagej=True,
    resolution=(2.0, 2.0), metadata={'unit': 'micron', 'spacing': 3, 'axes': 'ZYX'})
tifffile.imwrite(d + '/tc.tif', rng.normal(size=(5, 2, 16, 24)).astype(np.float32), imagej=True,
    metadata={'finterval': 2, 'axes': 'TCYX'})
tifffile.imwrite(d + '/rgb.tif', rng.integers(0, 255, (3, 16, 24, 3), dtype=np.uint8), imagej=True,
    photometric='rgb', metadata={'axes': 'ZYXS'})
# One IFD with the images stored back to back, as ImageJ writes stacks
# larger than 4 GB: cut the chain after the first page.
tifffile.imwrite(d + '/contig.tif', rng.integers(0, 65535, (6, 16, 24), dtype=np.uint16), imagej=True,
    metadata={'axes': 'ZYX'})
with tifffile.TiffFile(d + '/contig.tif') as tf:
    p = tf.pages[0]
    nextpos = p.offset + 2 + 12 * len(p.tags)
with open(d + '/contig.tif', 'r+b') as f:
    f.seek(nextpos)
    f.write(b'\0\0\0\0')
`

func TestImageJ(t *testing.T) {
	dir := t.TempDir()
	python(t, dir, imagejFixtures)
	cases := []struct {
		name, axes string
		spacing    []float64
		units      []string
	}{
		{"hyper", "TZCYX", []float64{0.5, 1.5, 1, 0.5, 0.25}, []string{"second", "micrometer", "", "micrometer", "micrometer"}},
		{"stack", "ZYX", []float64{3, 0.5, 0.5}, []string{"micrometer", "micrometer", "micrometer"}},
		{"tc", "TCYX", []float64{2, 1, 1, 1}, []string{"second", "", "", ""}},
		{"rgb", "ZCYX", []float64{1, 1, 1, 1}, []string{"", "", "", ""}},
		{"contig", "ZYX", []float64{1, 1, 1}, []string{"", "", ""}},
	}
	var paths []string
	for _, c := range cases {
		paths = append(paths, filepath.Join(dir, c.name+".tif"))
	}
	refs := tifffileRead(t, paths...)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := expectRef(t, paths[i], c.axes, refs[paths[i]])
			m := src.Meta()
			if m.Format != "imagej-tiff" {
				t.Errorf("format %q", m.Format)
			}
			expectSpacing(t, m, c.spacing, c.units)
		})
	}
	if m := openTIFF(t, paths[4]).(*source); m.idx.mode != modeContiguous {
		t.Errorf("contiguous ImageJ stack indexed in mode %d", m.idx.mode)
	}
}

const omeFixtures = `
rng = np.random.default_rng(9)
tifffile.imwrite(d + '/tczyx.ome.tif', rng.integers(0, 4000, (2, 3, 4, 16, 24), dtype=np.uint16), ome=True,
    metadata={'axes': 'TCZYX', 'PhysicalSizeX': 0.3, 'PhysicalSizeXUnit': 'µm', 'PhysicalSizeY': 0.4,
              'PhysicalSizeZ': 2.0, 'PhysicalSizeZUnit': 'nm', 'TimeIncrement': 5, 'TimeIncrementUnit': 'ms'})
tifffile.imwrite(d + '/tzcyx.ome.tif', rng.integers(0, 255, (3, 2, 2, 16, 24), dtype=np.uint8), ome=True,
    compression='zlib', metadata={'axes': 'TZCYX', 'PhysicalSizeX': 0.7, 'PhysicalSizeY': 0.7, 'TimeIncrement': 1.5})
tifffile.imwrite(d + '/czyx.ome.tif', rng.normal(size=(2, 5, 16, 24)).astype(np.float32), ome=True,
    metadata={'axes': 'CZYX', 'PhysicalSizeZ': 0.25})
tifffile.imwrite(d + '/rgb.ome.tif', rng.integers(0, 255, (4, 16, 24, 3), dtype=np.uint8), ome=True,
    photometric='rgb', metadata={'axes': 'ZYXS'})
`

func TestOME(t *testing.T) {
	dir := t.TempDir()
	python(t, dir, omeFixtures)
	cases := []struct {
		name, axes string
		spacing    []float64
		units      []string
	}{
		{"tczyx", "TCZYX", []float64{5, 1, 2, 0.4, 0.3}, []string{"millisecond", "", "nanometer", "micrometer", "micrometer"}},
		{"tzcyx", "TZCYX", []float64{1.5, 1, 1, 0.7, 0.7}, []string{"second", "", "", "micrometer", "micrometer"}},
		{"czyx", "CZYX", []float64{1, 0.25, 1, 1}, []string{"", "micrometer", "", ""}},
		{"rgb", "ZCYX", []float64{1, 1, 1, 1}, []string{"", "", "", ""}},
	}
	var paths []string
	for _, c := range cases {
		paths = append(paths, filepath.Join(dir, c.name+".ome.tif"))
	}
	refs := tifffileRead(t, paths...)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := refs[paths[i]]
			if r.Axes != c.axes {
				t.Fatalf("tifffile reads axes %q, want %q", r.Axes, c.axes)
			}
			src := expectRef(t, paths[i], c.axes, r)
			m := src.Meta()
			if m.Format != "ome-tiff" {
				t.Errorf("format %q", m.Format)
			}
			expectSpacing(t, m, c.spacing, c.units)
		})
	}
}

// Reduced-resolution pages are not part of the stack, whether they sit in
// the main chain or in SubIFDs.
const reducedFixture = `
rng = np.random.default_rng(11)
full = rng.integers(0, 65535, (3, 64, 48), dtype=np.uint16)
with tifffile.TiffWriter(d + '/chain.tif') as tw:
    for k in range(3):
        tw.write(full[k], photometric='minisblack')
        tw.write(full[k, ::2, ::2], photometric='minisblack', subfiletype=1)
with tifffile.TiffWriter(d + '/subifds.tif', bigtiff=True) as tw:
    for k in range(3):
        tw.write(full[k], photometric='minisblack', subifds=2, tile=(16, 16))
        tw.write(full[k, ::2, ::2], photometric='minisblack', subfiletype=1, tile=(16, 16))
        tw.write(full[k, ::4, ::4], photometric='minisblack', subfiletype=1, tile=(16, 16))
full.astype('<u2').tofile(d + '/full.raw')
np.ascontiguousarray(full[:, ::2, ::2]).astype('<u2').tofile(d + '/half.raw')
np.ascontiguousarray(full[:, ::4, ::4]).astype('<u2').tofile(d + '/quarter.raw')
`

func TestReducedPagesSkipped(t *testing.T) {
	dir := t.TempDir()
	python(t, dir, reducedFixture)
	want := readFile(t, filepath.Join(dir, "full.raw"))
	for _, n := range []string{"chain.tif", "subifds.tif"} {
		t.Run(n, func(t *testing.T) {
			src := openTIFF(t, filepath.Join(dir, n))
			m := src.Meta()
			if m.Axes != "ZYX" || !reflect.DeepEqual(m.Shape, []int{3, 64, 48}) || m.DType != loader.Uint16 {
				t.Fatalf("meta %s %v %s, want ZYX [3 64 48] uint16", m.Axes, m.Shape, m.DType)
			}
			if got := readAll(t, src); string(got) != string(want) {
				t.Fatalf("samples differ from the full-resolution pages at byte %d", firstDiff(got, want))
			}
			if n == "chain.tif" {
				if len(m.Levels) != 1 {
					t.Fatalf("%d levels, want 1", len(m.Levels))
				}
				return
			}
			// tifffile's SubIFDs become levels 1 and 2.
			if len(m.Levels) != 3 {
				t.Fatalf("%d levels, want 3", len(m.Levels))
			}
			for lv, c := range []struct {
				file  string
				shape []int
				scale float64
			}{{"half.raw", []int{3, 32, 24}, 2}, {"quarter.raw", []int{3, 16, 12}, 4}} {
				l := m.Levels[lv+1]
				if !reflect.DeepEqual(l.Shape, c.shape) || !reflect.DeepEqual(l.Chunk, []int{1, 16, 16}) {
					t.Errorf("level %d: shape %v chunk %v, want %v in 16x16 tiles", lv+1, l.Shape, l.Chunk, c.shape)
				}
				tr := (c.scale - 1) / 2
				if !reflect.DeepEqual(l.Scale, []float64{1, c.scale, c.scale}) || !reflect.DeepEqual(l.Translation, []float64{0, tr, tr}) {
					t.Errorf("level %d: scale %v translation %v", lv+1, l.Scale, l.Translation)
				}
				got, err := loader.ReadAll(context.Background(), src, lv+1, 1<<20)
				if err != nil {
					t.Fatal(err)
				}
				if want := readFile(t, filepath.Join(dir, c.file)); string(got) != string(want) {
					t.Fatalf("level %d differs from tifffile's SubIFD at byte %d", lv+1, firstDiff(got, want))
				}
			}
		})
	}
}

// Pages larger than the plane chunk limit are read in bands of rows: whole
// strips when compressed, any rows when not.
func TestBands(t *testing.T) {
	dir := t.TempDir()
	python(t, dir, `
rng = np.random.default_rng(8)
mb = dict(photometric='minisblack')
tifffile.imwrite(d + '/zlib.tif', rng.integers(0, 9, (2, 61, 40), dtype=np.uint16), compression='zlib', predictor=2, rowsperstrip=5, **mb)
tifffile.imwrite(d + '/plain.tif', rng.integers(0, 65535, (2, 61, 40), dtype=np.uint16), rowsperstrip=7, **mb)
tifffile.imwrite(d + '/rgb.tif', rng.integers(0, 255, (61, 40, 3), dtype=np.uint8), rowsperstrip=3, photometric='rgb')
tifffile.imwrite(d + '/planar.tif', rng.integers(0, 255, (3, 61, 40), dtype=np.uint8), rowsperstrip=8, compression='zlib', photometric='rgb', planarconfig='separate')
`)
	cases := []struct {
		file, axes string
		rows       int
	}{
		{"zlib.tif", "ZYX", 5},
		{"plain.tif", "ZYX", 4},
		{"rgb.tif", "CYX", 2},
		{"planar.tif", "CYX", 8},
	}
	var paths []string
	for _, c := range cases {
		paths = append(paths, filepath.Join(dir, c.file))
	}
	refs := tifffileRead(t, paths...)
	for i, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			src := checkRef(t, openBandedTIFF(t, paths[i], smallBands), paths[i], c.axes, refs[paths[i]])
			ch := src.Meta().Levels[0].Chunk
			if got := ch[len(ch)-2]; got != c.rows {
				t.Errorf("chunks of %d rows, want %d", got, c.rows)
			}
		})
	}
}

// TestOMEChannelNamesAndColours reads the Channel names and colours
// tifffile writes into the OME-XML (colours as signed 32-bit RGBA
// integers, as OME specifies: magenta is -16711681).
func TestOMEChannelNamesAndColours(t *testing.T) {
	dir := t.TempDir()
	python(t, dir, `
rng = np.random.default_rng(3)
a = rng.integers(0, 4000, (3, 2, 16, 24), dtype=np.uint16)
tifffile.imwrite(d + '/named.ome.tif', a, metadata={'axes': 'ZCYX',
    'Channel': {'Name': ['GFP', 'mCherry'], 'Color': [16711935, -16711681]}})
tifffile.imwrite(d + '/plain.ome.tif', a, metadata={'axes': 'ZCYX'})
`)
	src, err := Open(context.Background(), filepath.Join(dir, "named.ome.tif"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	want := []loader.Channel{
		{Label: "GFP", Color: [3]uint8{0, 255, 0}, HasColor: true},
		{Label: "mCherry", Color: [3]uint8{255, 0, 255}, HasColor: true},
	}
	if got := src.Meta().Channels; !reflect.DeepEqual(got, want) {
		t.Errorf("channels %+v, want %+v", got, want)
	}
	plain, err := Open(context.Background(), filepath.Join(dir, "plain.ome.tif"))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if got := plain.Meta().Channels; got != nil {
		t.Errorf("channels %+v from OME-XML that names none", got)
	}
}

// Tiled files of old writers give the tiles' offsets and byte counts in
// StripOffsets and StripByteCounts: tifffile's tiled files with those tags
// renamed read as tifffile reads the originals.
func TestTilesInStripTags(t *testing.T) {
	dir := t.TempDir()
	python(t, dir, `
import shutil, struct
rng = np.random.default_rng(12)
tifffile.imwrite(d + '/tiled.tif', rng.integers(0, 65535, (2, 50, 70), dtype=np.uint16), tile=(16, 32), photometric='minisblack')
tifffile.imwrite(d + '/tiled_zlib.tif', rng.integers(0, 255, (40, 50, 3), dtype=np.uint8), tile=(16, 16), compression='zlib', photometric='rgb')
for name in ('tiled', 'tiled_zlib'):
    shutil.copy(d + '/' + name + '.tif', d + '/' + name + '_old.tif')
    with tifffile.TiffFile(d + '/' + name + '.tif') as tf:
        entries = [(p.tags[c].offset, s) for p in tf.pages for c, s in ((324, 273), (325, 279))]
    with open(d + '/' + name + '_old.tif', 'r+b') as f:
        for pos, code in entries:
            f.seek(pos)
            f.write(struct.pack('<H', code))
`)
	for _, n := range []string{"tiled", "tiled_zlib"} {
		t.Run(n, func(t *testing.T) {
			orig, old := filepath.Join(dir, n+".tif"), filepath.Join(dir, n+"_old.tif")
			src := expectRef(t, old, map[string]string{"tiled": "ZYX", "tiled_zlib": "CYX"}[n], tifffileRead(t, orig)[orig])
			if p := src.(*source).p0; !p.tiled || p.offsets.tag != tagStripOffsets {
				t.Fatalf("tiled %v, offsets from tag %d", p.tiled, p.offsets.tag)
			}
		})
	}
}
