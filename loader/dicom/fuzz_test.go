package dicom

import (
	"os"
	"path/filepath"
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
	for _, p := range []string{filepath.Join(shared, "CT_small.dcm"), filepath.Join(shared, "CT5N_series", "2062")} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	loadertest.Fuzz(f, "f.dcm", 64<<10, Match, Open)
}
