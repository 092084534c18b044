package cine

import (
	"path/filepath"
	"testing"

	"vastview/loader/internal/loadertest"
)

// TestConformance runs the Source conformance suite over the Phantom cine file.
func TestConformance(t *testing.T) {
	loadertest.ConformanceGlob(t, "cine", filepath.Join(shared, "*.cine"))
}
