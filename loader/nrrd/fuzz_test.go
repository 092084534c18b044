package nrrd

import (
	"testing"
	"vastview/loader/internal/loadertest"
)

// FuzzOpen opens arbitrary bytes as a file and reads every plane: no panic,
// no hang, and a Source that opens describes a valid array.
func FuzzOpen(f *testing.F) {
	loadertest.Seeds(f, "*.nrrd")
	loadertest.Fuzz(f, "f.nrrd", 16<<10, Match, Open)
}
