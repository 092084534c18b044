package lif

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"vastview/loader/internal/loadertest"
)

// BenchmarkOpenFirstPlane opens files of 100, 1,000 and 10,000 time
// points of 256 x 256 8-bit planes in one memory block, and of 10, 100
// and 1,000 such images of 10 time points each (one block each), and
// reads the first plane: the time should grow only with the XML header
// and the number of blocks, never with the samples.
func BenchmarkOpenFirstPlane(b *testing.B) {
	const w, h = 256, 256
	dims := func(n int) []string {
		return []string{
			fmt.Sprintf(`DimID="1" NumberOfElements="%d" Length="1e-4" Unit="m" BytesInc="1"`, w),
			fmt.Sprintf(`DimID="2" NumberOfElements="%d" Length="1e-4" Unit="m" BytesInc="%d"`, h, w),
			fmt.Sprintf(`DimID="4" NumberOfElements="%d" Length="10" Unit="s" BytesInc="%d"`, n, w*h),
		}
	}
	ch := []string{`Resolution="8" BytesInc="0" LUTName="Gray"`}
	file := func(images, frames int) []byte {
		var els string
		var blocks []lifBlock
		for i := 0; i < images; i++ {
			id := fmt.Sprintf("MemBlock_%d", i+1)
			data := make([]byte, w*h*frames)
			els += imageElement(fmt.Sprintf("image %d", i), id, len(data), ch, dims(frames))
			blocks = append(blocks, lifBlock{id, data})
		}
		return makeLIF("2", els, blocks)
	}
	for _, c := range []struct{ images, frames int }{{1, 100}, {1, 1000}, {1, 10000}, {10, 10}, {100, 10}, {1000, 10}} {
		path := filepath.Join(b.TempDir(), "f.lif")
		if err := os.WriteFile(path, file(c.images, c.frames), 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("images=%d/frames=%d", c.images, c.frames), func(b *testing.B) { loadertest.OpenFirstPlane(b, path, Open) })
	}
}
