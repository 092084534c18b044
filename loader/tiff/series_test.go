package tiff

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// seriesFixtures writes files whose pages differ in shape or type.
const seriesFixtures = `
rng = np.random.default_rng(11)
def ints(dt, shape):
    i = np.iinfo(dt)
    return rng.integers(i.min, i.max, shape, dtype=dt, endpoint=True)
mb = dict(photometric='minisblack')
def series(name, *parts):
    with tifffile.TiffWriter(d + '/' + name + '.tif') as w:
        for data, kw in parts:
            w.write(data, **kw)
# Described series: two of one shape and type are still two.
series('shaped', (ints(np.uint16, (3, 32, 48)), mb), (ints(np.uint8, (2, 20, 30, 3)), dict(photometric='rgb')),
       (ints(np.uint16, (3, 32, 48)), mb))
# A long uncompressed first series (found by arithmetic), then others.
series('shaped_long', (ints(np.uint16, (40, 16, 24)), dict(metadata={'axes': 'TYX'}, **mb)),
       (rng.normal(size=(2, 3, 5, 7)).astype(np.float32), dict(metadata={'axes': 'TZYX'}, **mb)), (ints(np.uint8, (9, 11)), mb))
# A compressed first series (walked), then a tiled one.
series('shaped_zlib', (ints(np.int16, (30, 20, 10)) // 7, dict(compression='zlib', **mb)),
       (ints(np.uint16, (2, 64, 48)), dict(tile=(32, 16), **mb)))
# No descriptions: pages alike are one series wherever they are.
a, b = ints(np.uint16, (5, 32, 48)), ints(np.uint8, (3, 20, 30, 3))
series('generic', (a[0], dict(metadata=None, **mb)), (b[0], dict(metadata=None, photometric='rgb')),
       (a[1:3], dict(metadata=None, **mb)), (b[1:], dict(metadata=None, photometric='rgb')),
       (a[3:], dict(metadata=None, **mb)))
series('generic_tail', (ints(np.uint8, (12, 30, 40)), dict(metadata=None, **mb)),
       (ints(np.uint8, (8, 10)), dict(metadata=None, **mb)))
`

// TestSeriesLikeTifffile checks that files whose pages differ list the
// series tifffile lists, and that each series reads as tifffile reads it,
// opened by its selector.
func TestSeriesLikeTifffile(t *testing.T) {
	dir := t.TempDir()
	python(t, dir, seriesFixtures)
	// ImageMagick writes each image of a sequence as a page.
	testtool.Run(t, testtool.Require(t, "convert"), "-size", "30x20", "gradient:", "-size", "17x9", "plasma:",
		"-size", "30x20", "xc:gray40", "-depth", "8", "-type", "Grayscale", filepath.Join(dir, "magick.tif"))
	names := []string{"shaped", "shaped_long", "shaped_zlib", "generic", "generic_tail", "magick"}
	var paths []string
	for _, n := range names {
		paths = append(paths, filepath.Join(dir, n+".tif"))
	}
	count := tifffileRead(t, paths...)
	var args []string
	for _, n := range names {
		p := filepath.Join(dir, n+".tif")
		for i := range count[p].Series {
			args = append(args, fmt.Sprintf("%s#%d", p, i))
		}
	}
	refs := tifffileRead(t, args...)
	for _, n := range names {
		t.Run(n, func(t *testing.T) {
			p := filepath.Join(dir, n+".tif")
			m := openTIFF(t, p).Meta()
			want := count[p].Series
			if len(m.Series) != want {
				t.Fatalf("%d series, tifffile lists %d: %+v", len(m.Series), want, m.Series)
			}
			for i, s := range m.Series {
				arg := fmt.Sprintf("%s#%d", p, i)
				r := refs[arg]
				axes := strings.NewReplacer("Q", "Z", "I", "Z").Replace(r.Axes)
				src := expectRef(t, arg, axes, r)
				if sm := src.Meta(); sm.SeriesIndex != i || len(sm.Series) != want {
					t.Errorf("series %d: opened as %d of %d", i, sm.SeriesIndex, len(sm.Series))
				}
				if s.Axes != axes {
					t.Errorf("series %d listed as %s, opens as %s", i, s.Axes, axes)
				}
			}
		})
	}
}

// TestSeriesOpenedFirstAndBack checks that series open in any order and
// stay independent of the source they were opened from.
func TestSeriesOpenedFirstAndBack(t *testing.T) {
	dir := t.TempDir()
	python(t, dir, seriesFixtures)
	ctx := context.Background()
	p := filepath.Join(dir, "shaped_long.tif")
	src := openTIFF(t, p+"#2")
	so := src.(loader.SeriesOpener)
	first, err := so.OpenSeries(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	src.Close()
	if m := first.Meta(); m.SeriesIndex != 0 || m.Axes != "TYX" || m.Shape[0] != 40 {
		t.Fatalf("series 0 opened as %d %s %v", m.SeriesIndex, m.Axes, m.Shape)
	}
	if _, err := loader.ReadAll(ctx, first, 0, 1<<30); err != nil {
		t.Fatal(err)
	}
	if _, err := loader.Open(ctx, p+"#3"); err == nil || !strings.Contains(err.Error(), "holds 3") {
		t.Fatalf("series 3 of 3: %v", err)
	}
}
