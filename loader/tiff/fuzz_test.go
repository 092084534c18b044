package tiff

import (
	"context"
	"os"
	"path/filepath"
	"testing"
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
		src, err := Open(context.Background(), path)
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
