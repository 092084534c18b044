package czi

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"vastview/loader/internal/loadertest"
)

// BenchmarkOpenFirstPlane opens files of 100, 1,000 and 10,000 time points
// of 256 x 256 Gray16 subblocks, uncompressed and in Zstd1, and reads the
// first plane: the time should not grow with the file beyond reading its
// directory once.
func BenchmarkOpenFirstPlane(b *testing.B) {
	for _, comp := range []int32{cNone, cZstd1} {
		for _, n := range []int{100, 1000, 10000} {
			w := &cziWriter{}
			p := u16plane(256, 256, 3)
			data := p
			if comp == cZstd1 {
				data = append([]byte{3, 1, 1}, zstdFrame(hiLo(p))...)
			}
			for i := 0; i < n; i++ {
				w.blocks = append(w.blocks, blockW{pixel: 1, comp: comp, dims: plane2D(0, 0, 256, 256, 256, 256, map[string]int{"T": i}), data: data})
			}
			path := filepath.Join(b.TempDir(), "f.czi")
			if err := os.WriteFile(path, w.bytes(), 0o644); err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("compression=%d/planes=%d", comp, n), func(b *testing.B) { loadertest.OpenFirstPlane(b, path, Open) })
		}
	}
}
