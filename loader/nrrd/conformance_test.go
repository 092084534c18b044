package nrrd

import (
	"path/filepath"
	"testing"

	"vastview/loader/internal/loadertest"
)

// TestConformance runs the Source conformance suite over the NRRD fixtures.
func TestConformance(t *testing.T) {
	loadertest.ConformanceGlob(t, "nrrd", filepath.Join("testdata", "*.nrrd"))
}
