package norpix

import (
	"path/filepath"
	"testing"

	"vastview/base/testtool"
	"vastview/loader/internal/loadertest"
)

// TestConformance runs the Source conformance suite over the Norpix sequence.
func TestConformance(t *testing.T) {
	loadertest.ConformanceGlob(t, "norpix-seq", filepath.Join(testtool.SharedData(t, "seq"), "*.seq"))
}
