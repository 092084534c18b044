package n5

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"vastview/loader/internal/loadertest"
)

// BenchmarkOpenFirstPlane opens containers holding one dataset of 100,
// 1,000 and 10,000 raw blocks (Z planes of 64 x 64 uint16 samples, one
// block each) and reads the first plane: the time should not grow with
// the dataset, whose blocks are neither listed nor read at open.
func BenchmarkOpenFirstPlane(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		root := filepath.Join(b.TempDir(), "c.n5")
		writeRawDataset(b, filepath.Join(root, "vol"), n, 64, 64)
		if err := os.WriteFile(filepath.Join(root, attributesFile), []byte(`{"n5":"2.0.0"}`), 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("blocks=%d", n), func(b *testing.B) { loadertest.OpenFirstPlane(b, root, openSource) })
	}
}

// writeRawDataset writes a dataset of z planes of h×w uint16 samples in
// raw blocks of one plane each, as the N5 libraries lay one out.
func writeRawDataset(b *testing.B, dir string, z, h, w int) {
	attrs := fmt.Sprintf(`{"dimensions":[%d,%d,%d],"blockSize":[%d,%d,1],"dataType":"uint16","compression":{"type":"raw"}}`, w, h, z, w, h)
	if err := os.MkdirAll(filepath.Join(dir, "0", "0"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, attributesFile), []byte(attrs), 0o644); err != nil {
		b.Fatal(err)
	}
	blk := make([]byte, 16+2*w*h)
	binary.BigEndian.PutUint16(blk[2:], 3)
	binary.BigEndian.PutUint32(blk[4:], uint32(w))
	binary.BigEndian.PutUint32(blk[8:], uint32(h))
	binary.BigEndian.PutUint32(blk[12:], 1)
	for i := 16; i < len(blk); i++ {
		blk[i] = byte(i)
	}
	for k := 0; k < z; k++ {
		if err := os.WriteFile(filepath.Join(dir, "0", "0", strconv.Itoa(k)), blk, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}
