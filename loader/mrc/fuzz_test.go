package mrc

import (
	"encoding/binary"
	"testing"

	"vastview/loader/internal/loadertest"
)

// FuzzOpen opens arbitrary bytes as an MRC file and reads its planes: no
// panic, no hang, and a Source that opens describes a valid array. Seeds:
// small files of every mode read, in both byte orders, an image stack, a
// stack of volumes and a file with an extended header.
func FuzzOpen(f *testing.F) {
	le, be := binary.LittleEndian, binary.BigEndian
	f.Add(synth(le, 0, 5, 4, 3, 1, 3, 0))
	f.Add(synth(be, 1, 4, 3, 2, 0, 1, 0))
	f.Add(synth(le, 2, 3, 3, 4, 401, 2, 64))
	f.Add(synth(be, 6, 6, 2, 1, 0, 1, 0))
	f.Add(synth(le, 12, 4, 4, 2, 1, 2, 0))
	f.Add(synth(be, 12, 3, 2, 2, 1, 2, 0))
	f.Add(synth(le, 101, 5, 3, 2, 1, 2, 8))
	loadertest.Fuzz(f, "f.mrc", 64<<10, Match, Open)
}
