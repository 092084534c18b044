package tiff

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"vastview/base/testtool"
)

// TestBandsOfOneStrip reads pages stored as one compressed strip (zlib
// with the horizontal predictor by tifffile; LZW with the predictor and
// zstd by ImageMagick) in bands of rows, as a strip many bands long is:
// each band equals the same rows of the whole strip decoded at once, read
// in order (each band resuming the decoder where the last stopped), in
// reverse, and again.
func TestBandsOfOneStrip(t *testing.T) {
	testtool.Require(t, "convert")
	dir := t.TempDir()
	python(t, dir, `
rng = np.random.default_rng(5)
tifffile.imwrite(d + '/zlib.tif', rng.integers(0, 4000, (2, 61, 40), dtype=np.uint16), compression='zlib', predictor=2, rowsperstrip=61, photometric='minisblack')
`)
	for _, c := range []struct{ name, compress string }{{"lzw.tif", "lzw"}, {"zstd.tif", "zstd"}} {
		testtool.Run(t, "convert", "-size", "40x61", "gradient:", "+noise", "Random", "-colorspace", "gray", "-depth", "16",
			"-define", "tiff:rows-per-strip=61", "-define", "tiff:predictor=2", "-compress", c.compress, filepath.Join(dir, c.name))
	}
	for _, name := range []string{"zlib.tif", "lzw.tif", "zstd.tif"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			whole := readAll(t, openTIFF(t, path))
			if name == "zlib.tif" {
				if r := tifffileRead(t, path)[path]; !bytes.Equal(whole, r.Data) {
					t.Fatalf("the whole strip differs from tifffile's at byte %d", firstDiff(whole, r.Data))
				}
			}
			// 4 rows of 80 bytes a band; the strip is 61 rows.
			src := openBandedTIFF(t, path, smallBands)
			m := src.Meta()
			l := &m.Levels[0]
			n := len(l.Shape)
			if l.Chunk[n-2] != 4 {
				t.Fatalf("chunks of %d rows, want bands of 4", l.Chunk[n-2])
			}
			if got := readAll(t, src); !bytes.Equal(got, whole) {
				t.Fatalf("read in bands, in order: differs from the whole strip at byte %d", firstDiff(got, whole))
			}
			// Each band alone, last first, then first to last again.
			grid := l.Grid()
			planes := 1
			for i := 0; i < n-2; i++ {
				planes *= grid[i]
			}
			rowBytes := l.Shape[n-1] * m.DType.Size()
			// read reads band of plane p and says how it differs from the
			// whole strip's rows, if it does.
			read := func(p, band int) error {
				buf := make([]byte, l.ChunkBytes(m.DType))
				idx := make([]int, n)
				if n == 3 {
					idx[0] = p
				}
				idx[n-2] = band
				if err := src.ReadChunk(context.Background(), 0, idx, buf); err != nil {
					return err
				}
				y0, rows := band*4, min(4, l.Shape[n-2]-band*4)
				want := whole[(p*l.Shape[n-2]+y0)*rowBytes:][:rows*rowBytes]
				if !bytes.Equal(buf[:rows*rowBytes], want) {
					return fmt.Errorf("plane %d band %d differs from the whole strip's rows", p, band)
				}
				for _, b := range buf[rows*rowBytes:] {
					if b != 0 {
						return fmt.Errorf("plane %d band %d: rows beyond the page are not zero", p, band)
					}
				}
				return nil
			}
			check := func(p, band int) {
				if err := read(p, band); err != nil {
					t.Fatal(err)
				}
			}
			for p := 0; p < planes; p++ {
				for band := grid[n-2] - 1; band >= 0; band-- {
					check(p, band)
				}
				for band := 0; band < grid[n-2]; band++ {
					check(p, band)
				}
			}
			// Four readers at once, as a plane's chunks are read: they take
			// turns on the strip's decoder and each gets its rows.
			var wg sync.WaitGroup
			errs := make(chan error, 4*planes*grid[n-2])
			for range 4 {
				wg.Go(func() {
					for p := 0; p < planes; p++ {
						for band := 0; band < grid[n-2]; band++ {
							if err := read(p, band); err != nil {
								errs <- err
							}
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}
