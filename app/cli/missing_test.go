package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
)

// TestPlaneNotesMissingChunks: an OME-Zarr written by zarr-python, which
// leaves out the chunks that hold only the fill value (half the volume is
// 0), projects with nothing to say; once five chunks that held data are
// deleted, the projection still succeeds (they read as the fill value, as
// Zarr says) but a note on stderr counts them, since level 1 holds data
// over them, and info notes them too. The chunks left out for being empty
// are never counted.
func TestPlaneNotesMissingChunks(t *testing.T) {
	testtool.RequirePython(t, "numpy", "zarr")
	dir := t.TempDir()
	store := filepath.Join(dir, "sparse.ome.zarr")
	testtool.RunPython(t, `
import sys, numpy as np, zarr
rng = np.random.default_rng(3)
a = np.zeros((16, 64, 64), np.uint16)
a[:, :, :32] = rng.integers(1, 60000, (16, 64, 32), dtype=np.uint16)
b = a.reshape(8, 2, 32, 2, 32, 2).astype(np.float64).mean(axis=(1, 3, 5))
b = np.floor(b + 0.5).astype(np.uint16)
g = zarr.open_group(sys.argv[1], mode='w')
for name, arr in (('0', a), ('1', b)):
    d = g.create_dataset(name, shape=arr.shape, chunks=(4, 16, 16), dtype=arr.dtype, fill_value=0, write_empty_chunks=False)
    d[:] = arr
g.attrs['multiscales'] = [{'version': '0.4', 'axes': [{'name': n, 'type': 'space'} for n in 'zyx'],
    'datasets': [{'path': p, 'coordinateTransformations': [{'type': 'scale', 'scale': [s, s, s]}]} for p, s in (('0', 1.0), ('1', 2.0))]}]
`, store)
	level0, _ := filepath.Glob(filepath.Join(store, "0", "*.*.*"))
	if len(level0) != 32 {
		t.Fatalf("zarr-python stored %d chunks of level 0, want the 32 that hold data", len(level0))
	}
	raw := filepath.Join(dir, "max.raw")
	if code, _, errs := vv("plane", store, "--project", "max", "--out", raw); code != 0 || errs != "" {
		t.Fatalf("the sparse store: exit %d, stderr %q; want nothing said", code, errs)
	}
	if notes := infoOf(t, store).Notes; len(notes) != 0 {
		t.Errorf("info on the sparse store notes %q", notes)
	}
	for _, k := range []string{"0.0.0", "1.1.1", "2.2.0", "3.3.1", "3.0.0"} {
		if err := os.Remove(filepath.Join(store, "0", k)); err != nil {
			t.Fatal(err)
		}
	}
	code, _, errs := vv("plane", store, "--project", "max", "--out", raw)
	want := fmt.Sprintf("vastview: note: %s: 5 chunks were absent where the level above holds data; read as the fill value\n", store)
	if code != 0 || errs != want {
		t.Errorf("five chunks deleted: exit %d, stderr %q; want exit 0 and %q", code, errs, want)
	}
	if strings.Count(errs, "\n") > 1 {
		t.Errorf("more than one line: %q", errs)
	}
	if notes := infoOf(t, store).Notes; fmt.Sprint(notes) != "[5 chunks missing where the level above holds data (read as the fill value)]" {
		t.Errorf("info notes %q, want the 5 chunks missing", notes)
	}
}
