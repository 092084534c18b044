package metaimage

import (
	"testing"
	"vastview/loader/internal/loadertest"
)

// FuzzOpen opens arbitrary bytes as a file and reads every plane: no panic,
// no hang, and a Source that opens describes a valid array.
func FuzzOpen(f *testing.F) {
	loadertest.Seeds(f, "*.mha")
	loadertest.Fuzz(f, "f.mha", 16<<10, Match, Open)
}
