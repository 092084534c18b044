package cine

import (
	"encoding/binary"
	"os"
	"testing"

	"vastview/base/testtool"
	"vastview/loader/internal/loadertest"
)

// FuzzOpen opens arbitrary bytes as a cine and reads every frame: no
// panic, no hang, and a Source that opens describes a valid array. Seed:
// the Phantom cine cut to its first two frames.
func FuzzOpen(f *testing.F) {
	b, err := os.ReadFile(testtool.SharedData(f, "cine/cine_legacy.cine"))
	if err != nil {
		f.Fatal(err)
	}
	le := binary.LittleEndian
	offs := int(le.Uint32(b[offOffsets:]))
	second := int(le.Uint64(b[offs+8:]))
	seed := append([]byte(nil), b[:second+8+128*128*2]...)
	le.PutUint32(seed[offImageCount:], 2)
	f.Add(seed)
	loadertest.Fuzz(f, "f.cine", 128<<10, Match, Open)
}
