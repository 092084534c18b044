package omezarr

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
	_ "vastview/loader/tiff"
)

// tiffFixtures writes TIFF files with tifffile into argv[1].
const tiffFixtures = `
import sys, numpy as np, tifffile
d = sys.argv[1]
rng = np.random.default_rng(5)
tifffile.imwrite(d + '/stack.tif', rng.integers(0, 65535, (7, 45, 61), dtype=np.uint16))
tifffile.imwrite(d + '/hyper.tif', rng.integers(0, 255, (2, 3, 2, 20, 30), dtype=np.uint8), imagej=True,
    resolution=(1 / 0.25, 1 / 0.5), metadata={'spacing': 1.5, 'unit': 'um', 'finterval': 0.5, 'axes': 'TZCYX'})
tifffile.imwrite(d + '/float.tif', rng.normal(size=(5, 17, 23)).astype(np.float32))
`

// compareScript reads pairs (TIFF, OME-Zarr v2) from argv[1:] and prints,
// per pair, whether dask's level 0 equals tifffile's array with its axes
// put in OME-NGFF order, with both shapes and dtypes.
const compareScript = `
import sys, json, numpy as np, tifffile, dask.array as da
res = {}
args = sys.argv[1:]
for tif, zarr in zip(args[::2], args[1::2]):
    s = tifffile.TiffFile(tif).series[0]
    a, axes = s.asarray(), s.axes.replace('Q', 'Z').replace('I', 'Z')
    order = [axes.index(c) for c in 'TCZYX' if c in axes]
    a = np.transpose(a, order)
    b = np.asarray(da.from_zarr(zarr, component='0').compute())
    res[zarr] = {'equal': bool(a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b)),
                 'tiff': [list(a.shape), a.dtype.name], 'zarr': [list(b.shape), b.dtype.name]}
json.dump(res, sys.stdout)
`

// TestTIFFToZarr writes TIFF files made by tifffile (a plain stack, an
// ImageJ TZCYX hyperstack with units, a float stack) through the loader as
// OME-NGFF 0.4 and checks that dask reads tifffile's arrays, axes in
// OME-NGFF order, and that the physical metadata carries over.
func TestTIFFToZarr(t *testing.T) {
	testtool.RequirePython(t, "tifffile", "numpy", "zarr", "dask.array")
	dir := t.TempDir()
	testtool.RunPython(t, tiffFixtures, dir)
	var args []string
	for _, n := range []string{"stack", "hyper", "float"} {
		src, err := loader.Open(context.Background(), filepath.Join(dir, n+".tif"))
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, n+".ome.zarr")
		err = Write(context.Background(), out, src, Options{Codec: map[string]string{"hyper": "gzip"}[n]})
		src.Close()
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		args = append(args, filepath.Join(dir, n+".tif"), out)
	}
	var res map[string]struct {
		Equal      bool
		TIFF, Zarr []any
	}
	if err := json.Unmarshal(testtool.RunPython(t, compareScript, args...), &res); err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 {
		t.Fatalf("%d results", len(res))
	}
	for p, r := range res {
		if !r.Equal {
			t.Errorf("%s: zarr %v differs from tiff %v", filepath.Base(p), r.Zarr, r.TIFF)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "hyper.ome.zarr", ".zattrs"))
	if err != nil {
		t.Fatal(err)
	}
	ms := decodeJSON(t, b)["multiscales"].([]any)[0].(map[string]any)
	var names, units []string
	for _, a := range ms["axes"].([]any) {
		ax := a.(map[string]any)
		u, _ := ax["unit"].(string)
		names, units = append(names, ax["name"].(string)), append(units, u)
	}
	ds := ms["datasets"].([]any)[0].(map[string]any)
	scale := ds["coordinateTransformations"].([]any)[0].(map[string]any)["scale"]
	if strings.Join(names, "") != "tczyx" ||
		!reflect.DeepEqual(units, []string{"second", "", "micrometer", "micrometer", "micrometer"}) ||
		!reflect.DeepEqual(scale, []any{0.5, 1.0, 1.5, 0.5, 0.25}) {
		t.Errorf("hyperstack axes %v units %v scale %v", names, units, scale)
	}
}
