package sequence

import (
	"path/filepath"
	"testing"

	"vastview/loader/internal/loadertest"
)

// TestConformance runs the Source conformance suite over the still
// pictures (PNG, JPEG, BMP, GIF), a folder of frames and a glob pattern.
func TestConformance(t *testing.T) {
	loadertest.ConformanceGlob(t, "png", filepath.Join("testdata", "*.png"))
	loadertest.ConformanceGlob(t, "jpeg", filepath.Join("testdata", "*.jpg"))
	loadertest.ConformanceGlob(t, "bmp", filepath.Join("testdata", "*.bmp"))
	loadertest.ConformanceGlob(t, "gif", filepath.Join("testdata", "*.gif"))
	dir := t.TempDir()
	writeFrames(t, dir, 300, 7, "f1.png", "f2.png", "f10.png")
	t.Run("folder", func(t *testing.T) { loadertest.ConformanceFile(t, "sequence", dir) })
	t.Run("glob", func(t *testing.T) { loadertest.ConformanceFile(t, "sequence", filepath.Join(dir, "f1*.png")) })
}
