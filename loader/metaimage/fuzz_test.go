package metaimage

import (
	"os"
	"path/filepath"
	"testing"
	"vastview/loader/internal/loadertest"
)

// FuzzOpen opens arbitrary bytes as a file and reads every plane: no panic,
// no hang, and a Source that opens describes a valid array.
func FuzzOpen(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*.mha"))
	if len(seeds) == 0 {
		f.Fatal("no seed files in testdata")
	}
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	loadertest.Fuzz(f, "f.mha", 16<<10, Match, Open)
}
