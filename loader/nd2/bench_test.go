package nd2

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"vastview/loader/internal/loadertest"
)

// BenchmarkOpenFirstPlane opens files of 100, 1,000 and 10,000 time
// points of 256 x 256 16-bit frames and reads the first: the time should
// not grow with the file beyond reading its chunk map once.
func BenchmarkOpenFirstPlane(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		s := synth{w: 256, h: 256, comps: 1, bits: 16, loops: []loop{{'T', n}}, channels: []string{"a"}, colors: []uint32{1}}
		path := filepath.Join(b.TempDir(), "f.nd2")
		if err := os.WriteFile(path, s.build(), 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("frames=%d", n), func(b *testing.B) { loadertest.OpenFirstPlane(b, path, Open) })
	}
}
