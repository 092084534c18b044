package omezarr

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"vastview/base/nd"
	"vastview/loader"
)

// TestViewMatchesWrite: a View presents exactly what Write stores: the
// same metadata files, and each chunk's bytes (transposed from a Z, C
// order, compressed or not), a chunk Write leaves out (all zeros) being
// zeros.
func TestViewMatchesWrite(t *testing.T) {
	src := build(spec{axes: "ZCYX", dtype: loader.Uint16, shape: []int{5, 2, 20, 30}, chunk: []int{2, 1, 8, 16},
		levels: 2, sparse: true}, 4)
	for _, codec := range []string{"none", "zstd"} {
		out := filepath.Join(t.TempDir(), "img.ome.zarr")
		opts := Options{Codec: codec, Type: "mean"}
		if err := Write(context.Background(), out, src, opts); err != nil {
			t.Fatal(err)
		}
		opts.Name = "img"
		v, err := NewView(src, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer v.Close()
		for name, b := range v.Files() {
			disk, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(name)))
			if err != nil || !bytes.Equal(disk, b) {
				t.Fatalf("%s %s: view's differs from the file written (%v)", codec, name, err)
			}
		}
		var cb ChunkBuffers
		stored, zeros := 0, 0
		for k, l := range v.Levels() {
			grid := l.Grid()
			idx := make([]int, len(grid))
			for more := true; more; more = nd.Next(idx, grid) {
				got, err := v.Chunk(context.Background(), k, idx, &cb)
				if err != nil {
					t.Fatal(err)
				}
				disk, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(chunkKey(2, k, idx))))
				switch {
				case errors.Is(err, fs.ErrNotExist):
					raw, err := NewView(src, Options{Name: "img", Codec: "none"})
					if err != nil {
						t.Fatal(err)
					}
					var rb ChunkBuffers
					b, err := raw.Chunk(context.Background(), k, idx, &rb)
					if err != nil || !zero(b) {
						t.Fatalf("level %d chunk %v: not written but not zero (%v)", k, idx, err)
					}
					zeros++
				case err != nil:
					t.Fatal(err)
				case !bytes.Equal(got, disk):
					t.Fatalf("%s level %d chunk %v: view's differs from the file written", codec, k, idx)
				default:
					stored++
				}
			}
		}
		if stored == 0 || zeros == 0 {
			t.Fatalf("%d chunks compared, %d zero: the test checks nothing", stored, zeros)
		}
		if _, err := v.Chunk(context.Background(), 0, []int{9, 0, 0, 0}, &cb); err == nil {
			t.Fatal("a chunk outside the grid was read")
		}
	}
}
