package cine

import (
	"path/filepath"
	"testing"

	"vastview/base/testtool"
	"vastview/loader/internal/loadertest"
)

// TestConformance runs the Source conformance suite over the Phantom cine file.
func TestConformance(t *testing.T) {
	loadertest.ConformanceGlob(t, "cine", filepath.Join(testtool.SharedData(t, "cine"), "*.cine"))
}
