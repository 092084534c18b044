package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"vastview/base/testtool"
)

// daskCheck opens an OME-Zarr v0.4 image with Dask and checks each level's
// shape, dtype and values against a NumPy reference of the mean rule
// computed from level 0 of the original, and the metadata against the NGFF
// 0.4 rules; it prints "ok LEVELS" or raises.
const daskCheck = `
import sys, json, numpy as np, dask.array as da, zarr, tifffile
out, orig, spacing = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
ref = tifffile.imread(orig)
attrs = json.load(open(out + '/.zattrs'))
ms = attrs['multiscales'][0]
assert ms['version'] == '0.4', ms
axes = ms['axes']
assert [a['name'] for a in axes] == ['z', 'y', 'x'], axes
assert all(a['type'] == 'space' for a in axes), axes
assert all(a.get('unit') == 'micrometer' for a in axes), axes
def down(a, red):
    s = a.astype(np.float64)
    c = np.ones_like(s)
    for ax, r in enumerate(red):
        if not r:
            continue
        if s.shape[ax] % 2:
            pad = [(0, 0)] * s.ndim
            pad[ax] = (0, 1)
            s, c = np.pad(s, pad), np.pad(c, pad)
        shp = s.shape[:ax] + (s.shape[ax] // 2, 2) + s.shape[ax+1:]
        s, c = s.reshape(shp).sum(ax + 1), c.reshape(shp).sum(ax + 1)
    if a.dtype.kind == 'f':
        return (s / c).astype(a.dtype)
    return np.floor(s / c + 0.5).astype(a.dtype)
level = ref
factor = np.ones(3)
for k, ds in enumerate(ms['datasets']):
    arr = da.from_zarr(out, component=ds['path'])
    if k > 0:
        red = [n != m for n, m in zip(level.shape, arr.shape)]
        for n, m, r in zip(level.shape, arr.shape, red):
            assert m == ((n + 1) // 2 if r else n), (level.shape, arr.shape)
        factor *= [2 if r else 1 for r in red]
        level = down(level, red)
    got = arr.compute()
    assert got.dtype == ref.dtype and got.shape == level.shape, (k, got.dtype, got.shape, level.shape)
    assert np.array_equal(got, level), (k, np.argwhere(got != level)[:5])
    tr = {t['type']: t for t in ds['coordinateTransformations']}
    assert list(tr) == ['scale', 'translation'], tr
    np.testing.assert_allclose(tr['scale']['scale'], np.array(spacing) * factor)
    np.testing.assert_allclose(tr['translation']['translation'], (factor - 1) / 2 * np.array(spacing))
print('ok', len(ms['datasets']))
`

func TestPyramidIsReadByDask(t *testing.T) {
	testtool.RequirePython(t, "tifffile", "numpy", "dask.array", "zarr")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	for _, dt := range testtool.Quick([]string{"uint16", "uint8", "float32"}, 1) {
		orig := filepath.Join(dir, dt+".tif")
		testtool.RunPython(t, `
import sys, numpy as np, tifffile
rng = np.random.default_rng(3)
a = (rng.random((37, 301, 530)) * 250).astype(sys.argv[2])
tifffile.imwrite(sys.argv[1], a, imagej=True,
                 resolution=(1/0.5, 1/0.5), metadata={'spacing': 2.0, 'unit': 'um', 'axes': 'ZYX'})
`, orig, dt)
		out := filepath.Join(dir, dt+".ome.zarr")
		mustRun(t, "pyramid", orig, out, "--budget", "64MiB")
		res := testtool.RunPython(t, daskCheck, out, orig, "[2.0, 0.5, 0.5]")
		if !strings.HasPrefix(string(res), "ok ") || strings.TrimSpace(string(res)) == "ok 1" {
			t.Errorf("%s: %s", dt, res)
		}
		// An existing output is never overwritten without --overwrite.
		if code, _, errs := vv("pyramid", orig, out); code != 1 || !strings.Contains(errs, "exists") {
			t.Errorf("second write: exit %d, %q", code, errs)
		}
	}
}

func TestPyramidZarr3Layout(t *testing.T) {
	testtool.RequirePython(t, "tifffile", "numpy")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	orig := filepath.Join(dir, "s.tif")
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
tifffile.imwrite(sys.argv[1], np.arange(20*300*300, dtype=np.uint16).reshape(20, 300, 300))
`, orig)
	out := filepath.Join(dir, "s.ome.zarr")
	mustRun(t, "pyramid", orig, out, "--zarr", "3")
	for _, p := range []string{"zarr.json", "0/zarr.json", "1/zarr.json", "0/c/0/0/0"} {
		if _, err := os.Stat(filepath.Join(out, p)); err != nil {
			t.Errorf("missing %s: %v", p, err)
		}
	}
}

// TestPyramidLevelsOfAnisotropicStacks exports stacks whose Z step differs
// from their Y and X steps: each level halves the finer axes first, so the
// samples grow toward cubic, and Dask reads every level as NumPy's block
// means with the NGFF scale and translation of its factors per axis.
func TestPyramidLevelsOfAnisotropicStacks(t *testing.T) {
	testtool.RequirePython(t, "tifffile", "numpy", "dask.array", "zarr")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	for _, c := range []struct {
		name    string
		shape   string
		z, xy   float64
		spacing string
		shapes  string
	}{
		{"coarse-z", "20,600,530", 2, 0.5, "[2.0, 0.5, 0.5]", "[[20, 600, 530], [20, 300, 265], [20, 150, 133]]"},
		{"fine-z", "40,300,300", 0.25, 1, "[0.25, 1.0, 1.0]", "[[40, 300, 300], [20, 300, 300], [10, 300, 300], [5, 150, 150]]"},
	} {
		orig := filepath.Join(dir, c.name+".tif")
		testtool.RunPython(t, `
import sys, numpy as np, tifffile
rng = np.random.default_rng(5)
shape = tuple(int(v) for v in sys.argv[2].split(','))
a = (rng.random(shape) * 60000).astype(np.uint16)
z, xy = float(sys.argv[3]), float(sys.argv[4])
tifffile.imwrite(sys.argv[1], a, imagej=True,
                 resolution=(1/xy, 1/xy), metadata={'spacing': z, 'unit': 'um', 'axes': 'ZYX'})
`, orig, c.shape, strconv.FormatFloat(c.z, 'g', -1, 64), strconv.FormatFloat(c.xy, 'g', -1, 64))
		out := filepath.Join(dir, c.name+".ome.zarr")
		mustRun(t, "pyramid", orig, out)
		if res := testtool.RunPython(t, daskCheck, out, orig, c.spacing); !strings.HasPrefix(string(res), "ok ") {
			t.Errorf("%s: %s", c.name, res)
		}
		shapes := testtool.RunPython(t, `
import sys, json, zarr
ms = json.load(open(sys.argv[1] + '/.zattrs'))['multiscales'][0]
print(json.dumps([list(zarr.open(sys.argv[1] + '/' + d['path'], mode='r').shape) for d in ms['datasets']]))
`, out)
		if got := strings.TrimSpace(string(shapes)); got != c.shapes {
			t.Errorf("%s: levels %s, want %s", c.name, got, c.shapes)
		}
	}
}
