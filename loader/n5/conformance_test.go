package n5

import (
	"path/filepath"
	"testing"

	"vastview/loader/internal/loadertest"
)

// TestConformance runs the Source conformance suite over the container
// zarr wrote (a file of many series), its datasets of every compressor
// and type, an n5-viewer pyramid and BigDataViewer setups.
func TestConformance(t *testing.T) {
	dir, manifest := writeContainer(t)
	root := filepath.Join(dir, "c.n5")
	locs := []string{root, filepath.Join(root, "pyramid"), root + "#setup0/timepoint0", filepath.Join(root, "setup1")}
	for _, e := range manifest {
		if filepath.Base(e.Path) != "s1" && filepath.Base(e.Path) != "s2" {
			locs = append(locs, filepath.Join(root, filepath.FromSlash(e.Path)))
		}
	}
	for _, loc := range locs {
		t.Run(loc[len(dir):], func(t *testing.T) { loadertest.ConformanceFile(t, "n5", loc) })
	}
}
