package nd2

import (
	"path/filepath"
	"testing"

	"vastview/base/testtool"
	"vastview/loader/internal/loadertest"
)

// TestConformance runs the Source conformance suite over the ND2 file.
func TestConformance(t *testing.T) {
	loadertest.ConformanceGlob(t, "nd2", filepath.Join(testtool.SharedData(t, "nd2"), "*.nd2"))
}
