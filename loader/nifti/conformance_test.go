package nifti

import (
	"path/filepath"
	"testing"

	"vastview/loader/internal/loadertest"
)

// TestConformance runs the Source conformance suite over the NIfTI fixtures.
func TestConformance(t *testing.T) {
	loadertest.ConformanceGlob(t, "nifti", filepath.Join("testdata", "*.nii*"))
}
