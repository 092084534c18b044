package lif

import (
	"encoding/binary"
	"strings"
	"testing"

	"vastview/loader/internal/loadertest"
)

// fuzzMax bounds the inputs FuzzOpen opens.
const fuzzMax = 128 << 10

// FuzzOpen opens arbitrary bytes as a LIF file and reads every plane: no
// panic, no hang, and a Source that opens describes a valid array. Seeds:
// LAS X's XZ file cut after its XML header and the start of its first
// image's samples, and small files in both block framings.
func FuzzOpen(f *testing.F) {
	if b, ok := loadertest.SharedSeed(f, "lif/testdata_2channel_xz.lif"); ok {
		f.Add(b[:min(len(b), fuzzMax)])
		f.Add(shrunk(f, b))
	}
	for _, v := range []string{"1", "2"} {
		b, _, _ := synthetic(v)
		f.Add(b)
	}
	loadertest.Fuzz(f, "f.lif", fuzzMax, Match, Open)
}

// shrunk is the real file b with its XML header kept, but for the last
// image ("xz"), made 8×8 samples of 2 channels, whose samples follow; the
// other images' memory blocks are empty.
func shrunk(t testing.TB, b []byte) []byte {
	n := int(binary.LittleEndian.Uint32(b[9:]))
	x := decodeUTF16(b[xmlAt : xmlAt+2*n])
	i := strings.Index(x, `<Element Name="xz"`)
	if i < 0 {
		t.Fatal("no image xz")
	}
	r := strings.NewReplacer(`NumberOfElements="512"`, `NumberOfElements="8"`, `BytesInc="512"`, `BytesInc="8"`,
		`BytesInc="262144"`, `BytesInc="64"`, `Memory Size="524288"`, `Memory Size="128"`)
	x = x[:i] + r.Replace(x[i:])
	data := make([]byte, 128)
	for j := range data {
		data[j] = byte(j)
	}
	return lifBytes("2", x, []lifBlock{{"MemBlock_63", nil}, {"MemBlock_76", nil}, {"MemBlock_88", nil}, {"MemBlock_138", data}})
}
