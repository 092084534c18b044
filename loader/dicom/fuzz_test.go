package dicom

import (
	"testing"

	"vastview/loader/internal/loadertest"
)

// FuzzOpen opens arbitrary bytes as a DICOM file and reads its planes: no
// panic, no hang, and a Source that opens describes a valid array. Seeds:
// pydicom's CT files, and (in testdata/fuzz/FuzzOpen) small files that
// pydicom and dcmtk wrote in each transfer syntax read (implicit, big
// endian, deflated, RLE, JPEG baseline and lossless, multi-frame with
// per-frame positions, colour), made by TestWriteSeeds.
func FuzzOpen(f *testing.F) {
	for _, name := range []string{"dicom/CT_small.dcm", "dicom/CT5N_series/2062"} {
		if b, ok := loadertest.SharedSeed(f, name); ok {
			f.Add(b)
		}
	}
	loadertest.Fuzz(f, "f.dcm", 64<<10, Match, Open)
}
