package norpix

import (
	"os"
	"testing"
	"vastview/base/testtool"
	"vastview/loader/internal/loadertest"
)

// FuzzOpen opens arbitrary bytes as a sequence and reads every frame: no
// panic, no hang, and a Source that opens describes a valid array. Seeds:
// StreamPix's own sequence and a version 4 one.
func FuzzOpen(f *testing.F) {
	if p, ok := testtool.LookSharedData("seq/sample_norpix6.seq"); ok {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(seq(4, 6, 4, 3, 5, 0.01))
	loadertest.Fuzz(f, "f.seq", 64<<10, Match, Open)
}
