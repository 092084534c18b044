package mrc

import (
	"path/filepath"
	"testing"

	"vastview/loader/internal/loadertest"
)

// TestConformance runs the Source conformance suite over files mrcfile
// wrote: volumes, stacks, a volume stack, both byte orders, extended
// headers.
func TestConformance(t *testing.T) {
	dir := writeFixtures(t, fixtures)
	for _, c := range fixtures {
		t.Run(c.Name, func(t *testing.T) { loadertest.ConformanceFile(t, "mrc", filepath.Join(dir, c.Name)) })
	}
}
