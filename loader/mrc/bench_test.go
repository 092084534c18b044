package mrc

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"vastview/loader/internal/loadertest"
)

// BenchmarkOpenFirstPlane opens image stacks of 100 to 100,000
// frames of 256 x 256 16-bit samples and reads the first: the time
// should not grow with the file, which is only mapped. Frames after the
// first are a hole in the file.
func BenchmarkOpenFirstPlane(b *testing.B) {
	for _, n := range []int{100, 1000, 10000, 100000} {
		path := filepath.Join(b.TempDir(), "f.mrcs")
		// One frame written, the rest a hole: the file has its full size
		// without writing gigabytes.
		f := synth(binary.LittleEndian, 1, 256, 256, 1, 0, 1, 0)
		binary.LittleEndian.PutUint32(f[offNX+8:], uint32(n))
		if err := os.WriteFile(path, f, 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Truncate(path, headerSize+int64(n)*256*256*2); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("frames=%d", n), func(b *testing.B) { loadertest.OpenFirstPlane(b, path, Open) })
	}
}
