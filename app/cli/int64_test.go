package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
)

// int64Fixtures writes, with zarr-python, a uint64 label volume whose ids
// lie one apart above 2^60 (a float64 cannot tell them apart) and an
// int64 volume over the type's whole range (block sums overflow 64 bits),
// and the planes numpy reads of them. Their planes are wider than a
// computed chunk, so that their pyramids have levels halving Y and X.
const int64Fixtures = `
import sys, numpy as np, zarr
d = sys.argv[1]
rng = np.random.default_rng(17)
cells = rng.integers(0, 6, (5, 75, 73))
lab = np.repeat(np.repeat(np.repeat(cells, 2, 0), 4, 1), 4, 2)[:9, :300, :290]
lab = np.where(lab > 0, np.uint64(2**60) + lab.astype(np.uint64), 0).astype(np.uint64)
noise = rng.integers(0, 4, lab.shape) == 0   # a quarter of the samples another id: ties and majorities
lab[noise] = np.uint64(2**60) + rng.integers(1, 3, int(noise.sum())).astype(np.uint64)
z = zarr.open(d + '/labels.zarr', mode='w', shape=lab.shape, chunks=(4, 32, 32), dtype='<u8')
z[...] = lab
big = rng.integers(-2**63, 2**63 - 1, (9, 300, 290), dtype=np.int64, endpoint=True)
big[:, :8, :8] = 2**63 - 1                  # blocks of the largest value: the sum's carry
big[:, 8:16, :8] = -2**63
z = zarr.open(d + '/big.zarr', mode='w', shape=big.shape, chunks=(4, 32, 32), dtype='>i8')
z[...] = big
lab[3].astype('<u8').tofile(d + '/labels.z3.raw')
big[4].astype('<i8').tofile(d + '/big.z4.raw')
`

// exactLevels reads every level of an OME-Zarr written by vastview with
// zarr-python and compares it with a reference computed from level 0 in
// Python integers: the mode (most frequent, smallest on a tie) or the mean
// rounded half up, floor(mean + 1/2), of each block of the axes that
// halve. It prints "ok LEVELS" or raises.
const exactLevels = `
import sys, json, numpy as np, zarr
from collections import Counter
out, src, method = sys.argv[1], sys.argv[2], sys.argv[3]
ref = zarr.open(src, mode='r')[...]
ms = json.load(open(out + '/.zattrs'))['multiscales'][0]
def down(a, red):
    out = np.empty(tuple((n + 1) // 2 if r else n for n, r in zip(a.shape, red)), dtype=a.dtype)
    for idx in np.ndindex(out.shape):
        sl = tuple(slice(2 * i, 2 * i + 2) if r else slice(i, i + 1) for i, r in zip(idx, red))
        vals = [int(v) for v in a[sl].ravel()]
        if method == 'mode':
            c = Counter(vals)
            out[idx] = min(c, key=lambda v: (-c[v], v))
        else:
            out[idx] = (2 * sum(vals) + len(vals)) // (2 * len(vals))
    return out
level = ref
for k, ds in enumerate(ms['datasets']):
    got = zarr.open(out + '/' + ds['path'], mode='r')[...]
    if k > 0:
        level = down(level, [n != m for n, m in zip(level.shape, got.shape)])
    assert got.dtype == ref.dtype.newbyteorder('<') and got.shape == level.shape, (k, got.dtype, got.shape, level.shape)
    assert np.array_equal(got, level), (k, np.argwhere(got != level)[:5])
print('ok', len(ms['datasets']))
`

// TestSixtyFourBitIntegersEndToEnd: uint64 labels and int64 samples
// written by zarr-python read exactly (info, plane .raw equal to numpy's),
// draw (.png), and export as OME-Zarr levels of their own type that equal
// the exact mode and mean computed in Python integers.
func TestSixtyFourBitIntegersEndToEnd(t *testing.T) {
	testtool.RequirePython(t, "zarr", "numpy")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	testtool.RunPython(t, int64Fixtures, dir)
	for _, c := range []struct {
		name, dtype, method, raw, z string
	}{
		{"labels.zarr", "uint64", "mode", "labels.z3.raw", "3"},
		{"big.zarr", "int64", "mean", "big.z4.raw", "4"},
	} {
		src := filepath.Join(dir, c.name)
		if j := infoOf(t, src); j.DType != c.dtype {
			t.Errorf("%s: info dtype %q, want %q", c.name, j.DType, c.dtype)
		}
		checkPlane(t, src, filepath.Join(dir, c.raw), "--z", c.z)
		png := filepath.Join(dir, c.name+".png")
		mustRun(t, "plane", src, "--z", c.z, "--out", png)
		if b := testtool.ReadPNG(t, png).Bounds(); b.Dx() != 290 || b.Dy() != 300 {
			t.Errorf("%s: PNG of %v, want 290×300", c.name, b)
		}
		out := filepath.Join(dir, c.name+".ome.zarr")
		mustRun(t, "pyramid", src, out, "--method", c.method, "--budget", "16MiB")
		res := testtool.RunPython(t, exactLevels, out, src, c.method)
		if !strings.HasPrefix(string(res), "ok ") || strings.TrimSpace(string(res)) == "ok 1" {
			t.Errorf("%s: %s", c.name, res)
		}
		var za struct{ DType string }
		b, err := os.ReadFile(filepath.Join(out, "0", ".zarray"))
		if err == nil {
			err = json.Unmarshal(b, &za)
		}
		if want := map[string]string{"uint64": "<u8", "int64": "<i8"}[c.dtype]; err != nil || za.DType != want {
			t.Errorf("%s: level 0 dtype %q (%v), want %q", c.name, za.DType, err, want)
		}
		// Zarr v3 (OME-Zarr 0.5) keeps the type and every bit as well.
		out3 := filepath.Join(dir, c.name+".v3.ome.zarr")
		mustRun(t, "pyramid", src, out3, "--zarr", "3", "--method", c.method)
		if j := infoOf(t, out3); j.DType != c.dtype {
			t.Errorf("%s: v3 export of type %q", c.name, j.DType)
		}
		checkPlane(t, out3, filepath.Join(dir, c.raw), "--z", c.z)
	}
}
