package sequence

import (
	"path/filepath"
	"testing"

	"vastview/loader/internal/loadertest"
)

// TestConformance runs the Source conformance suite over the still
// pictures (PNG, JPEG, BMP, GIF), a folder of frames and a glob pattern.
func TestConformance(t *testing.T) {
	files := func(pattern string) []string {
		paths, _ := filepath.Glob(filepath.Join("testdata", pattern))
		if len(paths) == 0 {
			t.Fatalf("no testdata/%s", pattern)
		}
		return paths
	}
	for _, p := range files("*.png") {
		t.Run(filepath.Base(p), func(t *testing.T) { loadertest.ConformanceFile(t, "png", p) })
	}
	for _, p := range files("*.jpg") {
		t.Run(filepath.Base(p), func(t *testing.T) { loadertest.ConformanceFile(t, "jpeg", p) })
	}
	for _, p := range files("*.bmp") {
		t.Run(filepath.Base(p), func(t *testing.T) { loadertest.ConformanceFile(t, "bmp", p) })
	}
	for _, p := range files("*.gif") {
		t.Run(filepath.Base(p), func(t *testing.T) { loadertest.ConformanceFile(t, "gif", p) })
	}
	dir := t.TempDir()
	writeFrames(t, dir, 300, 7, "f1.png", "f2.png", "f10.png")
	t.Run("folder", func(t *testing.T) { loadertest.ConformanceFile(t, "sequence", dir) })
	t.Run("glob", func(t *testing.T) { loadertest.ConformanceFile(t, "sequence", filepath.Join(dir, "f1*.png")) })
}
