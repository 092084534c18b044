package zarr

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"vastview/base/nd"
	"vastview/loader"
)

// TestLiveStore follows an array that is still being written: a chunk (or
// an inner chunk, or a whole shard) that is missing reads as the fill
// value with ErrNotStored, and once written reads as its data on the next
// call, from a folder and over HTTP.
func TestLiveStore(t *testing.T) {
	for _, where := range []string{"folder", "http"} {
		t.Run(where, func(t *testing.T) {
			root := t.TempDir()
			plain := &v3Array{dtype: loader.Uint16, shape: []int{20, 30}, chunk: []int{8, 16}, fill: 77,
				codecs: []map[string]any{bytesCodec("little"), named("zstd")}, seed: 1}
			sharded := &v3Array{dtype: loader.Uint16, shape: []int{20, 30}, chunk: []int{16, 16}, inner: []int{8, 8}, fill: 77,
				codecs: []map[string]any{shardingCodec([]int{8, 8}, "end",
					[]map[string]any{bytesCodec("little"), named("gzip")},
					[]map[string]any{bytesCodec("little"), named("crc32c")})},
				empty: func(i []int) bool { return i[0] == 1 && i[1] == 1 }, seed: 2}
			plainDir, shardDir := filepath.Join(root, "plain.zarr"), filepath.Join(root, "sharded.zarr")
			plain.write(t, plainDir)
			sharded.write(t, shardDir)
			loc := func(dir string) string {
				if where == "http" {
					return fileServer(t, root) + "/" + filepath.Base(dir)
				}
				return dir
			}
			fill := binary.LittleEndian.AppendUint16(nil, 77)

			src := open(t, loc(plainDir))
			defer src.Close()
			chunk := filepath.Join(plainDir, "c", "2", "1") // the edge chunk: rows 16-19, columns 16-29
			want := readOK(t, src, []int{2, 1})
			hide(t, chunk)
			missingAs(t, src, []int{2, 1}, plain, fill)
			unhide(t, chunk)
			if got := readOK(t, src, []int{2, 1}); !bytes.Equal(got, want) {
				t.Error("the chunk written back reads differently")
			}

			ssrc := open(t, loc(shardDir))
			defer ssrc.Close()
			missingAs(t, ssrc, []int{1, 1}, sharded, fill) // an empty entry in the index
			sharded.empty = nil                            // the writer fills it in
			sharded.write(t, shardDir)
			got := readOK(t, ssrc, []int{1, 1})
			if !bytes.Equal(got, sharded.unitWithin([]int{1, 1})) {
				t.Error("the inner chunk written later reads wrong")
			}
			shard := filepath.Join(shardDir, "c", "1", "0")
			want = readOK(t, ssrc, []int{2, 0})
			hide(t, shard)
			missingAs(t, ssrc, []int{2, 0}, sharded, fill)
			unhide(t, shard)
			if got := readOK(t, ssrc, []int{2, 0}); !bytes.Equal(got, want) {
				t.Error("the shard written back reads differently")
			}
		})
	}
}

func open(t *testing.T, loc string) loader.Source {
	t.Helper()
	src, err := loader.Open(context.Background(), loc)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// readOK reads a chunk of level 0 that must be stored.
func readOK(t *testing.T, src loader.Source, idx []int) []byte {
	t.Helper()
	dst := make([]byte, src.Meta().Levels[0].ChunkBytes(src.Meta().DType))
	if err := src.ReadChunk(context.Background(), 0, idx, dst); err != nil {
		t.Fatalf("chunk %v: %v", idx, err)
	}
	return dst
}

// missingAs checks that chunk idx reads as not stored, filled with the
// fill value inside the array and zeros beyond.
func missingAs(t *testing.T, src loader.Source, idx []int, a *v3Array, fill []byte) {
	t.Helper()
	l := src.Meta().Levels[0]
	dst := bytes.Repeat([]byte{0xEE}, l.ChunkBytes(src.Meta().DType))
	err := src.ReadChunk(context.Background(), 0, idx, dst)
	if !loader.IsNotStored(err) {
		t.Fatalf("chunk %v: error %v, want ErrNotStored", idx, err)
	}
	es := len(fill)
	pos := make([]int, len(l.Chunk))
	for i := 0; i < len(dst)/es; i++ {
		in := true
		for k := range pos {
			in = in && idx[k]*l.Chunk[k]+pos[k] < a.shape[k]
		}
		want := fill
		if !in {
			want = make([]byte, es)
		}
		if !bytes.Equal(dst[i*es:(i+1)*es], want) {
			t.Fatalf("chunk %v at %v: %v, want %v", idx, pos, dst[i*es:(i+1)*es], want)
		}
		nd.Next(pos, l.Chunk)
	}
}

// unitWithin is read unit idx as the reader presents it: zeros beyond the
// array's edge.
func (a *v3Array) unitWithin(idx []int) []byte {
	unit := a.chunk
	if a.inner != nil {
		unit = a.inner
	}
	b := a.unit(idx, unit)
	ext := make([]int, len(idx))
	for i := range ext {
		ext[i] = a.shape[i] - idx[i]*unit[i]
	}
	zeroBeyond(b, unit, ext, a.dtype.Size())
	return b
}

func hide(t *testing.T, path string) {
	t.Helper()
	if err := os.Rename(path, path+".hidden"); err != nil {
		t.Fatal(err)
	}
}

func unhide(t *testing.T, path string) {
	t.Helper()
	if err := os.Rename(path+".hidden", path); err != nil {
		t.Fatal(err)
	}
}
