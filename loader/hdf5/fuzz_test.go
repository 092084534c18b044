package hdf5

import (
	"os"
	"path/filepath"
	"testing"

	"vastview/base/testtool"
	"vastview/loader/internal/loadertest"
)

// FuzzOpen opens arbitrary bytes as an HDF5 file and reads its chunks: no
// panic, no hang, a valid array or one clean error. Seeds: small files
// h5py writes (both library bounds, every chunk index, LZ4, an Imaris
// layout) and Bitplane's minimal Imaris file.
func FuzzOpen(f *testing.F) {
	if b, err := os.ReadFile(realIMS); err == nil {
		f.Add(b)
	}
	if _, err := os.Stat(testtool.Python); err == nil {
		dir := f.TempDir()
		testtool.RunPython(f, fuzzSeeds, dir)
		names, _ := filepath.Glob(filepath.Join(dir, "*.h5"))
		for _, n := range names {
			if b, err := os.ReadFile(n); err == nil {
				f.Add(b)
			}
		}
	}
	loadertest.Fuzz(f, "f.h5", 64<<10, Match, Open)
}

const fuzzSeeds = `
import sys, os, numpy as np, h5py
d = sys.argv[1]
def s1(v): return np.frombuffer(str(v).encode(), dtype='S1')
for lib in ('earliest', 'latest'):
    with h5py.File(os.path.join(d, lib + '.h5'), 'w', libver=lib) as f:
        f.create_dataset('g/chunked', data=np.arange(6 * 9 * 7, dtype='u2').reshape(6, 9, 7), chunks=(2, 4, 4), compression='gzip', shuffle=True)
        f.create_dataset('contig', data=np.arange(30, dtype='>f4').reshape(5, 6))
        f.create_dataset('ext', data=np.arange(40, dtype='i2').reshape(10, 2, 2), chunks=(1, 2, 2), maxshape=(None, 2, 2), fletcher32=True)
        f.create_dataset('bt2', data=np.arange(60, dtype='u1').reshape(6, 10), chunks=(2, 3), maxshape=(None, None))
        f['g'].attrs['s'] = 'text'
        for i in range(10):
            f.create_group('many/%d' % i)
with h5py.File(os.path.join(d, 'lz4.h5'), 'w') as f:
    import hdf5plugin
    f.create_dataset('lz4', data=np.arange(400, dtype='u2').reshape(20, 20), chunks=(10, 10), **hdf5plugin.LZ4())
with h5py.File(os.path.join(d, 'ims.h5'), 'w') as f:
    g = f.create_group('DataSet/ResolutionLevel 0/TimePoint 0/Channel 0')
    g.create_dataset('Data', data=np.arange(2 * 8 * 8, dtype='u1').reshape(2, 8, 8), chunks=(1, 8, 8), compression='gzip')
    for k, v in zip('XYZ', (7, 6, 2)): g.attrs['ImageSize' + k] = s1(v)
    i = f.create_group('DataSetInfo/Image')
    for k in range(3): i.attrs['ExtMin%d' % k] = s1(0); i.attrs['ExtMax%d' % k] = s1(5)
    f.create_group('DataSetInfo/Channel 0').attrs['Name'] = s1('c')
`
