package metaimage

import (
	"path/filepath"
	"testing"

	"vastview/loader/internal/loadertest"
)

// TestConformance runs the Source conformance suite over the MetaImage fixtures.
func TestConformance(t *testing.T) {
	loadertest.ConformanceGlob(t, "metaimage", filepath.Join("testdata", "*.mha"))
}
