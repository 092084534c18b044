package tiff

import (
	"path/filepath"
	"testing"

	"vastview/loader/internal/loadertest"
)

// TestConformance runs the Source conformance suite over every TIFF fixture (plain, OME-TIFF, ImageJ, several series).
func TestConformance(t *testing.T) {
	loadertest.ConformanceGlob(t, "tiff", filepath.Join("testdata", "*.tif"))
}
