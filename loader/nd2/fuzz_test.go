package nd2

import (
	"os"
	"path/filepath"
	"testing"

	"vastview/loader/internal/loadertest"
)

// FuzzOpen opens arbitrary bytes as an ND2 file and reads every plane: no
// panic, no hang, and a Source that opens describes a valid array. Seeds:
// the real cluster.nd2 (when present) and small synthetic files (a
// multipoint experiment; compressed frames with padded rows).
func FuzzOpen(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join(shared, "cluster.nd2")); err == nil {
		f.Add(b)
	}
	f.Add(synth{w: 3, h: 2, comps: 1, bits: 8, loops: []loop{{'T', 2}, {'P', 2}, {'Z', 2}},
		points: []string{"a", "b"}, channels: []string{"x"}, colors: []uint32{7}}.buildSmall())
	f.Add(synth{w: 4, h: 2, comps: 2, bits: 12, loops: []loop{{'Z', 2}}, compress: true, padRow: 2,
		channels: []string{"a", "b"}, colors: []uint32{1, 2}}.buildSmall())
	loadertest.Fuzz(f, "f.nd2", 1<<20, Match, Open)
}
