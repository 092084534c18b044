package zarr

import (
	"path/filepath"
	"testing"

	"vastview/loader/internal/loadertest"
)

// TestConformance runs the Source conformance suite over every Zarr v2
// and OME-Zarr 0.4 image python-zarr wrote for TestPythonZarr and every
// hand-built Zarr v3 array and OME-Zarr 0.5 image (sharding, codecs,
// missing chunks) of TestZarrV3ByHand.
func TestConformance(t *testing.T) {
	dir, specs, _ := pyFixtures(t)
	for _, sp := range specs {
		t.Run(sp.Name, func(t *testing.T) { loadertest.ConformanceFile(t, "zarr", filepath.Join(dir, sp.Name)) })
	}
	root := t.TempDir()
	for _, img := range v3Images() {
		img.write(t, root)
		t.Run(img.name, func(t *testing.T) { loadertest.ConformanceFile(t, "zarr", filepath.Join(root, img.name)) })
	}
}
