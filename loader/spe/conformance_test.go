package spe

import (
	"path/filepath"
	"testing"

	"vastview/base/testtool"
	"vastview/loader/internal/loadertest"
)

// TestConformance runs the Source conformance suite over the SPE file.
func TestConformance(t *testing.T) {
	loadertest.ConformanceGlob(t, "spe", filepath.Join(testtool.SharedData(t, "spe"), "*.spe"))
}
