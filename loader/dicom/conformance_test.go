package dicom

import (
	"path/filepath"
	"testing"

	"vastview/base/testtool"
	"vastview/loader/internal/loadertest"
)

// TestConformance runs the Source conformance suite over a single file, a
// folder of a series, and a generated multi-frame RGB file and 12-bit
// series.
func TestConformance(t *testing.T) {
	for _, p := range []string{filepath.Join(testtool.SharedData(t, "dicom"), "CT_small.dcm"), filepath.Join(testtool.SharedData(t, "dicom"), "CT5N_series")} {
		t.Run(filepath.Base(p), func(t *testing.T) { loadertest.ConformanceFile(t, "dicom", p) })
	}
	t.Run("generated", func(t *testing.T) {
		dir, _ := generate(t, "", series{N: 3, Rows: 6, Cols: 7, DType: "<u1", SPP: 3})
		loadertest.ConformanceFile(t, "dicom", dir)
		dir, _ = generate(t, "", series{N: 2, Rows: 4, Cols: 5, DType: "<u2", BitsStored: 12, RawHighBits: true, Random: true})
		loadertest.ConformanceFile(t, "dicom", dir)
	})
}

// TestConformanceSeries runs the suite over a folder of three series.
func TestConformanceSeries(t *testing.T) {
	dir, _ := generate(t, "",
		series{N: 2, Rows: 4, Cols: 4, DType: "<u2", Desc: "Scout", Number: ptr(1), Prefix: "A"},
		series{N: 5, Rows: 8, Cols: 6, DType: "<i2", Desc: "Axial", Number: ptr(2), Shuffle: true, Prefix: "B"},
		series{N: 3, Rows: 5, Cols: 5, DType: "<u1", Number: ptr(7), Prefix: "C"},
	)
	loadertest.ConformanceFile(t, "dicom", dir)
}
