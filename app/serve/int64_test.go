package serve_test

import (
	"context"
	"path/filepath"
	"testing"

	"vastview/app/serve"
	"vastview/levels"
	"vastview/loader"
)

// TestSixtyFourBitLabelsAsZarr serves a uint64 label stack and an int64
// stack written by tifffile and reads them back with zarr over HTTP:
// level 0 equals tifffile's read to the last bit (ids above 2^60, one
// apart), the dtype is <u8 / <i8, and level 1 is the exact mode (labels)
// or the mean rounded half up (int64), computed in Python integers.
func TestSixtyFourBitLabelsAsZarr(t *testing.T) {
	dir := t.TempDir()
	python(t, dir, "", `
rng = np.random.default_rng(9)
lab = (2**60 + rng.integers(0, 4, (3, 300, 40))).astype(np.uint64)
tifffile.imwrite(d + '/labels.tif', lab)
tifffile.imwrite(d + '/big.tif', rng.integers(-2**63, 2**63 - 1, (3, 300, 40), dtype=np.int64, endpoint=True))
`)
	var imgs []serve.Image
	for _, c := range []struct {
		name string
		mode bool
	}{{"labels", true}, {"big", false}} {
		src, err := loader.Open(context.Background(), filepath.Join(dir, c.name+".tif"))
		if err != nil {
			t.Fatal(err)
		}
		pyr, err := levels.Open(src, levels.Options{CacheBytes: 16 << 20, Mode: c.mode})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pyr.Close() })
		imgs = append(imgs, serve.Image{Name: c.name, Src: pyr, Type: map[bool]string{true: "mode", false: "mean"}[c.mode]})
	}
	url, _ := serveImages(t, imgs, serve.Options{Codec: "zstd"})
	out := python(t, dir, url, `
from collections import Counter
for name, method, dt in [('labels', 'mode', '<u8'), ('big', 'mean', '<i8')]:
    g = zarr.open(fsspec.get_mapper(u + '/' + name + '.ome.zarr'), mode='r')
    ref = tifffile.imread(d + '/' + name + '.tif')
    a0, a1 = g['0'], g['1']
    assert a0.dtype == np.dtype(dt) and a1.dtype == np.dtype(dt), (a0.dtype, a1.dtype)
    assert np.array_equal(a0[...], ref), name
    red = [n != m for n, m in zip(a0.shape, a1.shape)]
    got = a1[...]
    for idx in np.ndindex(got.shape):
        sl = tuple(slice(2 * i, 2 * i + 2) if r else slice(i, i + 1) for i, r in zip(idx, red))
        vals = [int(v) for v in ref[sl].ravel()]
        if method == 'mode':
            c = Counter(vals)
            want = min(c, key=lambda v: (-c[v], v))
        else:
            want = (2 * sum(vals) + len(vals)) // (2 * len(vals))
        assert int(got[idx]) == want, (name, idx, int(got[idx]), want)
print('ok')
`)
	if out != "ok\n" {
		t.Fatalf("python printed %q", out)
	}
}
