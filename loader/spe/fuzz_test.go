package spe

import (
	"encoding/binary"
	"testing"

	"vastview/loader/internal/loadertest"
)

// FuzzOpen opens arbitrary bytes as an SPE file and reads every frame: no
// panic, no hang, and a Source that opens describes a valid array. Seeds:
// WinSpec's stack cut to one frame, and an SPE 3.0 file with a footer.
func FuzzOpen(f *testing.F) {
	if b, ok := loadertest.SharedSeed(f, "spe/spestack_test.spe"); ok {
		one := append([]byte(nil), b[:headerSize+128*128*2]...)
		binary.LittleEndian.PutUint32(one[offFrames:], 1)
		f.Add(one)
	}
	lf, _ := spe3(3, 8, 5, 0.5)
	f.Add(lf)
	loadertest.Fuzz(f, "f.spe", 64<<10, Match, Open)
}
