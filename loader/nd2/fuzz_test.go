package nd2

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
	"vastview/loader/internal/loadertest"
)

// FuzzOpen opens arbitrary bytes as an ND2 file and reads every plane: no
// panic, no hang, and a Source that opens describes a valid array. Seeds:
// the real cluster.nd2 (when present) cut down to its metadata chunks and
// first frames, and small synthetic files (a multipoint experiment;
// compressed frames with padded rows).
func FuzzOpen(f *testing.F) {
	if p, ok := testtool.LookSharedData("nd2/cluster.nd2"); ok {
		f.Add(cutDown(f, p))
	}
	f.Add(synth{w: 3, h: 2, comps: 1, bits: 8, loops: []loop{{'T', 2}, {'P', 2}, {'Z', 2}},
		points: []string{"a", "b"}, channels: []string{"x"}, colors: []uint32{7}}.buildSmall())
	f.Add(synth{w: 4, h: 2, comps: 2, bits: 12, loops: []loop{{'Z', 2}}, compress: true, padRow: 2,
		channels: []string{"a", "b"}, colors: []uint32{1, 2}}.buildSmall())
	loadertest.Fuzz(f, "f.nd2", 1<<20, Match, Open)
}

// cutDown rewrites the ND2 file at path with the three metadata chunks
// the reader reads, frame 0 whole and the other frames cut to their time
// stamps, each chunk's name field cut to the name (NIS-Elements pads them
// so that data starts on a 4 KiB boundary), and a new chunk map: a seed of
// 44 KiB, not the file's 557 KiB.
func cutDown(t testing.TB, path string) []byte {
	f, err := loader.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := readChunkMap(f)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	var out, entries []byte
	put := func(off int64, keep int) {
		name, data, err := chunkAt(f, off)
		if err != nil {
			t.Fatal(err)
		}
		data = data[:min(len(data), keep)]
		name = append(append([]byte(nil), cName(name)...), 0)
		at := len(out)
		out = le.AppendUint32(out, chunkMagic)
		out = le.AppendUint32(out, uint32(len(name)))
		out = le.AppendUint64(out, uint64(len(data)))
		out = append(append(out, name...), data...)
		entries = append(entries, name[:len(name)-1]...)
		entries = le.AppendUint64(le.AppendUint64(entries, uint64(at)), uint64(len(out)-at))
	}
	for _, k := range []string{"ImageAttributesLV!", "ImageMetadataLV!", "ImageMetadataSeqLV|0!"} {
		off, ok := m.named[k]
		if !ok {
			t.Fatalf("no chunk %s", k)
		}
		put(off, math.MaxInt)
	}
	for n := range len(m.frames) {
		if off, ok := m.frames[n]; ok {
			keep := 8
			if n == 0 {
				keep = math.MaxInt
			}
			put(off, keep)
		}
	}
	mapAt := len(out)
	name := append(append([]byte(nil), filemapSignature...), 0)
	data := append(entries, mapSignature...)
	out = le.AppendUint32(out, chunkMagic)
	out = le.AppendUint32(out, uint32(len(name)))
	out = le.AppendUint64(out, uint64(len(data)))
	out = append(append(out, name...), data...)
	out = append(out, mapSignature...)
	return le.AppendUint64(out, uint64(mapAt))
}

// TestCutDownSeed checks that FuzzOpen's seed from cluster.nd2 opens as
// the file does and holds its first frame.
func TestCutDownSeed(t *testing.T) {
	path, _ := cluster(t)
	p := filepath.Join(t.TempDir(), "c.nd2")
	if err := os.WriteFile(p, cutDown(t, path), 0o644); err != nil {
		t.Fatal(err)
	}
	var frame0 [2][]byte
	var shape [2][]int
	for i, p := range []string{path, p} {
		src, err := Open(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		shape[i] = src.Meta().Shape
		frame0[i] = loadertest.Frame(t, src, 0)
	}
	if !slices.Equal(shape[0], shape[1]) || !bytes.Equal(frame0[0], frame0[1]) {
		t.Errorf("the seed is %v, its frame 0 equal %v; the file %v", shape[1], bytes.Equal(frame0[0], frame0[1]), shape[0])
	}
}
