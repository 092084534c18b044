package rawvol

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"vastview/loader"
)

// BenchmarkReadMapped reads the planes of a mapped raw file in turn: one
// copy out of the mapping per plane, for small planes (where the per-read
// cost of guarding the mapping shows) and large ones.
func BenchmarkReadMapped(b *testing.B) {
	for _, c := range []struct {
		planes, side int
		dt           loader.DType
	}{{256, 64, loader.Uint8}, {16, 1024, loader.Uint16}} {
		b.Run(fmt.Sprintf("%dx%d_%s", c.side, c.side, c.dt), func(b *testing.B) {
			shape := []int{c.planes, c.side, c.side}
			size, _ := ArrayBytes(shape, c.dt)
			path := filepath.Join(b.TempDir(), "planes.raw")
			if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
				b.Fatal(err)
			}
			data, err := Open([]Part{{Path: path}}, size)
			if err != nil {
				b.Fatal(err)
			}
			m := loader.NewMeta("raw", "ZYX", shape, c.dt, PlaneChunk(shape, false), nil, nil)
			src, err := New(m, data, false, false)
			if err != nil {
				b.Fatal(err)
			}
			defer src.Close()
			buf := make([]byte, m.Levels[0].ChunkBytes(c.dt))
			idx := []int{0, 0, 0}
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			for b.Loop() {
				idx[0] = (idx[0] + 1) % c.planes
				if err := src.ReadChunk(context.Background(), 0, idx, buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
