package sequence

import (
	"path/filepath"
	"strings"
	"testing"

	"vastview/loader/internal/loadertest"
)

// TestConformance runs the Source conformance suite over the still
// pictures (PNG, JPEG, BMP, GIF), a folder of frames and a glob pattern.
func TestConformance(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.*"))
	format := map[string]string{".png": "png", ".jpg": "jpeg", ".bmp": "bmp", ".gif": "gif"}
	for _, p := range paths {
		f, ok := format[strings.ToLower(filepath.Ext(p))]
		if !ok {
			continue
		}
		t.Run(filepath.Base(p), func(t *testing.T) { loadertest.ConformanceFile(t, f, p) })
	}
	dir := t.TempDir()
	writeFrames(t, dir, 300, 7, "f1.png", "f2.png", "f10.png")
	t.Run("folder", func(t *testing.T) { loadertest.ConformanceFile(t, "sequence", dir) })
	t.Run("glob", func(t *testing.T) { loadertest.ConformanceFile(t, "sequence", filepath.Join(dir, "f1*.png")) })
}
