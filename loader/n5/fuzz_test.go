package n5

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"vastview/base/testtool"
	"vastview/loader/internal/loadertest"
)

// seedScript writes tiny datasets with zarr-python's N5Store into argv[1],
// one per compressor, each of one block (whole, or with an edge).
const seedScript = `
import os, sys, warnings
import numpy as np
import numcodecs
import zarr
warnings.simplefilter("ignore")
out = sys.argv[1]
for name, c, shape, chunks, dt in [
        ("raw", None, (3, 5), (3, 5), "uint8"), ("gzip", numcodecs.GZip(1), (2, 3, 4), (2, 3, 4), "int16"),
        ("zlib", numcodecs.Zlib(1), (3, 4), (2, 4), "uint32"), ("bz2", numcodecs.BZ2(1), (4, 4), (4, 4), "float32"),
        ("lz4", numcodecs.LZ4(), (4, 6), (4, 6), "uint16"), ("blosc", numcodecs.Blosc("lz4", 5, 1), (5, 4), (5, 4), "int32"),
        ("zstd", numcodecs.Zstd(1), (2, 2, 3), (2, 2, 3), "float64")]:
    a = zarr.open(zarr.N5Store(os.path.join(out, name)), mode="w", shape=shape, chunks=chunks, dtype=dt, compressor=c)
    a[:] = (np.arange(int(np.prod(shape))) % 100).reshape(shape)
`

// FuzzOpen opens a dataset made of arbitrary attributes.json and block
// bytes (the block at grid position 0 of as many dimensions as the
// attributes give): no panic, no hang, and a Source that opens describes
// a valid array whose chunks read or fail cleanly. Seeds: one-block
// datasets zarr-python wrote with each compressor.
func FuzzOpen(f *testing.F) {
	dir := loadertest.FuzzDir(f)
	testtool.RequirePython(f, "zarr", "numcodecs", "numpy")
	tmp := f.TempDir()
	testtool.RunPython(f, seedScript, tmp)
	for _, name := range []string{"raw", "gzip", "zlib", "bz2", "lz4", "blosc", "zstd"} {
		dir := filepath.Join(tmp, name)
		a, err := os.ReadFile(filepath.Join(dir, attributesFile))
		if err != nil {
			f.Fatal(err)
		}
		blocks, _ := filepath.Glob(filepath.Join(dir, "0", "0*"))
		if len(blocks) == 0 {
			f.Fatalf("%s: no block", name)
		}
		for len(blocks) == 1 {
			st, err := os.Stat(blocks[0])
			if err != nil {
				f.Fatal(err)
			}
			if !st.IsDir() {
				break
			}
			blocks, _ = filepath.Glob(filepath.Join(blocks[0], "0"))
		}
		b, err := os.ReadFile(blocks[0])
		if err != nil {
			f.Fatal(err)
		}
		f.Add(a, b)
	}
	var mu sync.Mutex // one input in the folder at a time
	f.Fuzz(func(t *testing.T, attrsJSON, block []byte) {
		if len(attrsJSON)+len(block) > 64<<10 {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		root := filepath.Join(dir, "d.n5")
		os.RemoveAll(root)
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, attributesFile), attrsJSON, 0o644); err != nil {
			t.Fatal(err)
		}
		if a, err := parseAttrs(attrsJSON); err == nil && len(a.Dimensions) >= 1 && len(a.Dimensions) <= maxDims {
			p := filepath.Join(root, strings.Repeat("0"+string(filepath.Separator), len(a.Dimensions)-1))
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(p, "0"), block, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		loadertest.Check(t, root, nil, Match, openSource)
	})
}
