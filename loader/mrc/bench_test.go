package mrc

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"vastview/loader/internal/loadertest"
)

// BenchmarkOpenFirstPlane opens image stacks of 100, 1,000 and 10,000
// frames of 256 x 256 16-bit samples and reads the first: the time
// should not grow with the file, which is only mapped.
func BenchmarkOpenFirstPlane(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		path := filepath.Join(b.TempDir(), "f.mrcs")
		if err := os.WriteFile(path, synth(binary.LittleEndian, 1, 256, 256, n, 0, 1, 0), 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("frames=%d", n), func(b *testing.B) { loadertest.OpenFirstPlane(b, path, Open) })
	}
}
