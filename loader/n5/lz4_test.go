package n5

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/pierrec/lz4/v4"

	"vastview/base/testtool"
)

// lz4JavaStream frames data as lz4-java's LZ4BlockOutputStream does (the
// stream N5's lz4 compression writes): blocks of at most size bytes, each
// LZ4-compressed or, when that does not shrink it, stored raw, then an
// empty block. The checksums are left zero (the reader does not check
// them).
func lz4JavaStream(data []byte, size int) []byte {
	var out []byte
	block := func(method byte, payload []byte, n int) {
		h := make([]byte, 21)
		copy(h, lz4BlockMagic)
		h[8] = method | 4
		binary.LittleEndian.PutUint32(h[9:], uint32(len(payload)))
		binary.LittleEndian.PutUint32(h[13:], uint32(n))
		out = append(append(out, h...), payload...)
	}
	for len(data) > 0 {
		n := min(size, len(data))
		c := make([]byte, lz4.CompressBlockBound(n))
		k, err := lz4.CompressBlock(data[:n], c, nil)
		if err == nil && k > 0 && k < n {
			block(0x20, c[:k], n)
		} else {
			block(0x10, data[:n], n)
		}
		data = data[n:]
	}
	block(0x10, nil, 0)
	return out
}

// TestLZ4JavaBlocks reads a dataset whose blocks are lz4-java streams, as
// the N5 libraries write lz4 blocks: zarr-python writes the dataset raw,
// and each block's samples are framed as such a stream (no tool here
// writes one); every sample equals what zarr reads.
func TestLZ4JavaBlocks(t *testing.T) {
	testtool.RequirePython(t, "zarr", "numpy")
	dir := t.TempDir()
	root := filepath.Join(dir, "l.n5")
	testtool.RunPython(t, `
import os, sys
import numpy as np
import zarr
root = sys.argv[1]
a = zarr.open(zarr.N5Store(root), mode="w", shape=(3, 40, 50), chunks=(2, 32, 32), dtype="uint16", compressor=None)
v = np.zeros((3, 40, 50), dtype=np.uint16)
v[:, 10:30, :] = (np.arange(3 * 20 * 50) * 31 % 65536).reshape(3, 20, 50)
a[:] = v
np.save(root + ".npy", v)
`, root)
	blocks, err := filepath.Glob(filepath.Join(root, "*", "*", "*"))
	if err != nil || len(blocks) != 8 {
		t.Fatalf("blocks %v %v", blocks, err)
	}
	for _, p := range blocks {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		hl := 4 + 4*3
		if err := os.WriteFile(p, append(b[:hl:hl], lz4JavaStream(b[hl:], 1000)...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	attrs := `{"dimensions":[50,40,3],"blockSize":[32,32,2],"dataType":"uint16","compression":{"type":"lz4","blockSize":65536}}`
	if err := os.WriteFile(filepath.Join(root, attributesFile), []byte(attrs), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	checkLevel(t, src, 0, root+".npy")
}
