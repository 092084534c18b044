package cli

import (
	"os"
	"path/filepath"
	"testing"

	"vastview/base/testtool"
)

// TestPlanePNGOfAnisotropicPlaneAsTheWindowShowsIt draws an XZ plane of a
// stack whose planes lie three times as far apart as its pixels: the PNG
// is the plane as the window shows it, each plane's row three rows high,
// each sample through the window given, equal to tifffile's samples.
func TestPlanePNGOfAnisotropicPlaneAsTheWindowShowsIt(t *testing.T) {
	testtool.RequirePython(t, "tifffile", "numpy")
	dir := t.TempDir()
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
rng = np.random.default_rng(5)
a = rng.integers(0, 1000, (7, 20, 30)).astype(np.uint16)
tifffile.imwrite(sys.argv[1] + '/s.tif', a, imagej=True, resolution=(1, 1), metadata={'spacing': 3.0, 'unit': 'um', 'axes': 'ZYX'})
a[:, 11, :].tofile(sys.argv[1] + '/xz.raw')
`, dir)
	out := filepath.Join(dir, "xz.png")
	mustRun(t, "plane", filepath.Join(dir, "s.tif"), "--plane", "xz", "--index", "11", "--level-range", "0,999", "--out", out)
	img := testtool.ReadPNG(t, out)
	raw, err := os.ReadFile(filepath.Join(dir, "xz.raw"))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 30 || b.Dy() != 21 {
		t.Fatalf("png is %dx%d, want 30x21 (7 planes, 3 rows each)", b.Dx(), b.Dy())
	}
	for y := 0; y < 21; y++ {
		for x := 0; x < 30; x++ {
			i := 2 * (30*(y/3) + x)
			v := float64(uint16(raw[i]) | uint16(raw[i+1])<<8)
			want := uint32(v*255/999 + 0.5)
			if r, _, _, _ := img.At(x, y).RGBA(); r>>8 != want && r>>8 != want-1 && r>>8 != want+1 {
				t.Fatalf("pixel (%d,%d) = %d, want %d (sample %v of plane %d)", x, y, r>>8, want, v, y/3)
			}
		}
	}
}
