package dicom

import (
	"fmt"
	"testing"

	"vastview/loader/internal/loadertest"
)

// BenchmarkOpenFirstPlane opens pydicom-written series of 200 and 2,000
// files of 64 × 64 int16 slices (in shuffled order, so that sorting
// matters), 200 files of 512 × 512 slices (64 times the pixel bytes), and
// enhanced multi-frame files of 100 and 1,000 frames of 64 × 64, and reads
// the first plane. Opening reads every file's header and no pixels, so
// the time grows with the number of files, not with their samples.
func BenchmarkOpenFirstPlane(b *testing.B) {
	for _, c := range []struct {
		s    series
		name string
	}{
		{series{N: 200, Rows: 64, Cols: 64, DType: "<i2", Shuffle: true}, "files=200/64x64"},
		{series{N: 2000, Rows: 64, Cols: 64, DType: "<i2", Shuffle: true}, "files=2000/64x64"},
		{series{N: 200, Rows: 512, Cols: 512, DType: "<i2", Shuffle: true}, "files=200/512x512"},
		{series{Frames: 100, Rows: 64, Cols: 64, DType: "<i2"}, "frames=100/64x64"},
		{series{Frames: 1000, Rows: 64, Cols: 64, DType: "<i2"}, "frames=1000/64x64"},
	} {
		dir, _ := generate(b, "", c.s)
		b.Run(fmt.Sprint(c.name), func(b *testing.B) { loadertest.OpenFirstPlane(b, dir, Open) })
	}
}
