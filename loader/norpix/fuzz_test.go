package norpix

import (
	"testing"

	"vastview/loader/internal/loadertest"
)

// FuzzOpen opens arbitrary bytes as a sequence and reads every frame: no
// panic, no hang, and a Source that opens describes a valid array. Seeds:
// StreamPix's own sequence and a version 4 one.
func FuzzOpen(f *testing.F) {
	if b, ok := loadertest.SharedSeed(f, "seq/sample_norpix6.seq"); ok {
		f.Add(b)
	}
	f.Add(seq(4, 6, 4, 3, 5, 0.01))
	loadertest.Fuzz(f, "f.seq", 64<<10, Match, Open)
}
