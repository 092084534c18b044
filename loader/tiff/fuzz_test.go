package tiff

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzOpen opens arbitrary bytes as a TIFF file and reads a few chunks: it
// must return errors, never panic, hang or allocate without bound.
func FuzzOpen(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*.tif"))
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		for _, n := range truncations(len(b)) {
			f.Add(b[:n])
		}
	}
	dir := f.TempDir()
	// Small bands, so that strips of a few kilobytes are read in bands
	// (see stream.go) as strips of hundreds of megabytes are.
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		tf, err := os.CreateTemp(dir, "fuzz*.tif")
		if err != nil {
			t.Fatal(err)
		}
		path := tf.Name()
		defer os.Remove(path)
		_, err = tf.Write(data)
		tf.Close()
		if err != nil {
			t.Fatal(err)
		}
		src, err := openBanded(path, banding{maxPlane: 2048, band: 256})
		if err != nil {
			return
		}
		defer src.Close()
		m := src.Meta()
		if err := m.Validate(); err != nil {
			return
		}
		l := &m.Levels[0]
		if l.ChunkBytes(m.DType) > 4<<20 {
			return
		}
		buf := make([]byte, l.ChunkBytes(m.DType))
		grid := l.Grid()
		last := make([]int, len(grid))
		for i, g := range grid {
			last[i] = g - 1
		}
		mid := make([]int, len(grid))
		for i, g := range grid {
			mid[i] = g / 2
		}
		for _, idx := range [][]int{make([]int, len(grid)), last, mid} {
			src.ReadChunk(context.Background(), 0, idx, buf)
		}
	})
}

// truncations returns lengths to cut a seed of n bytes to: inside the
// header and the first IFD, and at fractions of the file.
func truncations(n int) []int {
	cuts := []int{5, 12, 20, n / 4, n / 3, n / 2, 2 * n / 3, 9 * n / 10, n - 1}
	var out []int
	for _, c := range cuts {
		if c > 0 && c < n {
			out = append(out, c)
		}
	}
	return out
}

// The fuzz seeds are valid files that read without error.
func TestSeedsRead(t *testing.T) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*.tif"))
	if len(seeds) == 0 {
		t.Fatal("no seeds in testdata")
	}
	for _, s := range seeds {
		readAll(t, openTIFF(t, s))
	}
}

// FuzzIJMetadata reads arbitrary bytes as the IJMetadata and
// IJMetadataByteCounts tags of page 0, seeded from tags tifffile wrote
// (testdata/imagej_display*.tif): it must never panic, keep to the
// channels asked for and to bounded labels, and give windows only of
// finite numbers and a colour from each table it keeps.
func FuzzIJMetadata(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "imagej_display*.tif"))
	if len(seeds) == 0 {
		f.Fatal("no IJMetadata seeds in testdata")
	}
	for _, s := range seeds {
		b := readFile(f, s)
		tf, first, err := parseHeader(b)
		if err != nil {
			f.Fatal(err)
		}
		p0, err := tf.parsePage(first)
		if err != nil {
			f.Fatal(err)
		}
		m, c := p0.ijMeta, p0.ijCounts
		if m.tag == 0 || c.tag == 0 || c.typ != tLong {
			f.Fatalf("%s: no IJMetadata of LONG counts", s)
		}
		meta := b[m.pos : m.pos+int64(m.count)]
		counts := b[c.pos : c.pos+4*int64(c.count)]
		big := tf.bo == binary.BigEndian
		f.Add(meta, counts, big, uint8(2), uint16(2))
		f.Add(meta, counts, big, uint8(2), uint16(1))
		f.Add(meta, counts[:len(counts)-4], big, uint8(2), uint16(3))
	}
	// How the fuzzer's kind byte picks the type of the counts tag.
	countTypes := []uint16{tByte, tShort, tLong, tLong8, tASCII}
	f.Fuzz(func(t *testing.T, meta, counts []byte, big bool, kind uint8, n uint16) {
		if len(meta)+len(counts) > 1<<20 {
			return
		}
		var bo binary.ByteOrder = binary.LittleEndian
		if big {
			bo = binary.BigEndian
		}
		ctyp := countTypes[int(kind)%len(countTypes)]
		b := make([]byte, 8, 8+len(meta)+len(counts))
		b = append(append(b, meta...), counts...)
		tf := &file{b: b, bo: bo}
		p := &page{
			spp:      1,
			ijMeta:   entry{tag: tagIJMeta, typ: tByte, count: uint64(len(meta)), pos: 8},
			ijCounts: entry{tag: tagIJMetaCounts, typ: ctyp, count: uint64(len(counts)) / uint64(typeSize[ctyp]), pos: int64(8 + len(meta))},
		}
		chans := int(n%64) + 1
		md := tf.ijMeta(p, chans)
		if len(md.labels) > chans || len(md.ranges) > 2*chans || len(md.luts) > chans {
			t.Fatalf("%d labels, %d range values, %d tables for %d channels", len(md.labels), len(md.ranges), len(md.luts), chans)
		}
		for _, l := range md.labels {
			if !utf8.ValidString(l) || utf8.RuneCountInString(l) > maxLabel || strings.ContainsAny(l, "\n\r\x00") {
				t.Fatalf("label %q", l)
			}
		}
		ij := imagejInfo{images: chans, channels: chans, slices: 1, frames: 1}
		out := tf.imagejChannels(p, ij)
		if out != nil && len(out) != chans {
			t.Fatalf("%d channels for %d", len(out), chans)
		}
		for c, ch := range out {
			if ch.HasWindow && (!finite(ch.Lo) || !finite(ch.Hi)) {
				t.Fatalf("channel %d: window %g, %g", c, ch.Lo, ch.Hi)
			}
			if ch.LUT != nil && !slices.Contains(ch.LUT[:], ch.Color) {
				t.Fatalf("channel %d: colour %v not in its table", c, ch.Color)
			}
		}
	})
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
