package tiff

import (
	"path/filepath"
	"testing"

	"vastview/base/testtool"
)

// gdalCodecs writes TIFFs with GDAL (libtiff with libwebp and liblzma):
// WebP lossless and lossy, RGB and RGBA, in strips and tiles, and LZMA;
// next to each, the image as written (.in) and as GDAL reads it back (.ref),
// bands planar.
const gdalCodecs = `
import sys, numpy as np
from osgeo import gdal
d = sys.argv[1]
y, x = np.mgrid[0:61, 0:83]
bands = [128 + 90 * np.sin(x / 7.0) * np.cos(y / 9.0), 128 + 100 * np.cos((x + y) / 11.0), 60 + 0.05 * x * y, 255 - 2 * x]
img = np.clip(np.stack(bands), 0, 255).astype(np.uint8)
rng = np.random.default_rng(2)
img[:, 20:30, 40:50] = rng.integers(0, 255, (4, 10, 10), dtype=np.uint8, endpoint=True)
def write(name, n, opts):
    ds = gdal.GetDriverByName('GTiff').Create(d + '/' + name + '.tif', 83, 61, n, gdal.GDT_Byte, opts)
    for i in range(n):
        ds.GetRasterBand(i + 1).WriteArray(img[i])
    ds = None
    img[:n].tofile(d + '/' + name + '.in')
    ds = gdal.Open(d + '/' + name + '.tif')
    np.stack([ds.GetRasterBand(i + 1).ReadAsArray() for i in range(n)]).tofile(d + '/' + name + '.ref')
write('webp_lossless', 3, ['COMPRESS=WEBP', 'WEBP_LOSSLESS=YES'])
write('webp_lossless_rgba', 4, ['COMPRESS=WEBP', 'WEBP_LOSSLESS=YES', 'TILED=YES', 'BLOCKXSIZE=32', 'BLOCKYSIZE=32'])
write('webp_lossy', 3, ['COMPRESS=WEBP', 'WEBP_LEVEL=90', 'BLOCKYSIZE=16'])
write('lzma', 3, ['COMPRESS=LZMA', 'INTERLEAVE=PIXEL'])
write('lzma_planar_pred', 4, ['COMPRESS=LZMA', 'PREDICTOR=2', 'INTERLEAVE=BAND'])
`

// TestGDALCodecs: WebP and LZMA TIFFs written by GDAL read as written
// (lossless) or as GDAL (libwebp) reads them (lossy WebP: within one level,
// libwebp converting colour in fixed point, we in floating point).
func TestGDALCodecs(t *testing.T) {
	testtool.RequirePython(t, "osgeo.gdal", "numpy")
	dir := t.TempDir()
	testtool.RunPython(t, gdalCodecs, dir)
	for _, c := range []struct {
		name        string
		compression int
		maxDiff     int
	}{
		{"webp_lossless", cWebP, 0},
		{"webp_lossless_rgba", cWebP, 0},
		{"webp_lossy", cWebP, 1}, // libwebp's fixed-point colour conversion rounds differently
		{"lzma", cLZMA, 0},
		{"lzma_planar_pred", cLZMA, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := openTIFF(t, filepath.Join(dir, c.name+".tif"))
			if p := src.(*source).p0; p.compression != c.compression {
				t.Fatalf("GDAL wrote compression %d", p.compression)
			}
			got := readAll(t, src)
			ref := readFile(t, filepath.Join(dir, c.name+".ref"))
			if c.maxDiff == 0 {
				if in := readFile(t, filepath.Join(dir, c.name+".in")); string(in) != string(ref) {
					t.Fatal("GDAL reads back other samples than it wrote")
				}
				if i := firstDiff(got, ref); i < len(ref) || len(got) != len(ref) {
					t.Fatalf("%d samples; sample %d differs from GDAL's", len(got), i)
				}
				return
			}
			expectClose(t, got, ref, c.maxDiff, 0.05)
		})
	}
}
