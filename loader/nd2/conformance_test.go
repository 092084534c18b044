package nd2

import (
	"path/filepath"
	"testing"

	"vastview/loader/internal/loadertest"
)

// TestConformance runs the Source conformance suite over the ND2 file.
func TestConformance(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(shared, "*.nd2"))
	if len(paths) == 0 {
		t.Fatal("no files")
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) { loadertest.ConformanceFile(t, "nd2", p) })
	}
}
