package lif

import (
	"os"
	"path/filepath"
	"testing"

	"vastview/base/testtool"
	"vastview/loader/internal/loadertest"
)

// TestConformance runs the Source conformance suite over the LIF file.
func TestConformance(t *testing.T) {
	loadertest.ConformanceGlob(t, "lif", filepath.Join(testtool.SharedData(t, "lif"), "*.lif"))
}

// TestConformanceSeries runs the suite over a file of several images.
func TestConformanceSeries(t *testing.T) {
	for _, version := range []string{"1", "2"} {
		file, _, _ := synthetic(version)
		path := filepath.Join(t.TempDir(), "s.lif")
		if err := os.WriteFile(path, file, 0o644); err != nil {
			t.Fatal(err)
		}
		loadertest.ConformanceFile(t, "lif", path)
	}
}
