package norpix

import (
	"os"
	"path/filepath"
	"testing"
	"vastview/loader/internal/loadertest"
)

// FuzzOpen opens arbitrary bytes as a sequence and reads every frame: no
// panic, no hang, and a Source that opens describes a valid array. Seeds:
// StreamPix's own sequence and a version 4 one.
func FuzzOpen(f *testing.F) {
	b, err := os.ReadFile(filepath.Join(shared, "sample_norpix6.seq"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(seq(4, 6, 4, 3, 5, 0.01))
	loadertest.Fuzz(f, "f.seq", 64<<10, Match, Open)
}
