package hdf5

import (
	"fmt"
	"path/filepath"
	"testing"

	"vastview/base/testtool"
	"vastview/loader/internal/loadertest"
)

// BenchmarkOpenFirstPlane opens stacks of 100, 1,000 and 10,000 planes of
// 64 x 64 uint16 that h5py wrote, one gzip chunk per plane, indexed by a
// v1 B-tree (libver earliest) or an extensible array (latest, one
// unlimited axis), and stored contiguously, and reads the first plane: the
// time should not grow with the number of planes.
func BenchmarkOpenFirstPlane(b *testing.B) {
	testtool.RequirePython(b, "h5py", "numpy")
	dir := b.TempDir()
	for _, n := range []int{100, 1000, 10000} {
		testtool.RunPython(b, `
import sys, numpy as np, h5py
n = int(sys.argv[2])
a = (np.arange(n * 64 * 64) % 4099).astype('u2').reshape(n, 64, 64)
for lib, kw in (('earliest', {}), ('latest', {'maxshape': (None, 64, 64)})):
    with h5py.File('%s/%s_%d.h5' % (sys.argv[1], lib, n), 'w', libver=lib) as f:
        f.create_dataset('stack', data=a, chunks=(1, 64, 64), compression='gzip', **kw)
with h5py.File('%s/contiguous_%d.h5' % (sys.argv[1], n), 'w') as f:
    f.create_dataset('stack', data=a)
`, dir, fmt.Sprint(n))
	}
	for _, kind := range []string{"earliest", "latest", "contiguous"} {
		for _, n := range []int{100, 1000, 10000} {
			p := filepath.Join(dir, fmt.Sprintf("%s_%d.h5", kind, n))
			b.Run(fmt.Sprintf("%s/planes=%d", kind, n), func(b *testing.B) { loadertest.OpenFirstPlane(b, p, Open) })
		}
	}
}
