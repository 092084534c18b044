package zarr

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"vastview/base/nd"
	"vastview/loader"
)

// benchArray is a 1024 x 1024 uint16 array in 256 x 256 chunks.
func benchArray(codecs ...map[string]any) *v3Array {
	return &v3Array{dtype: loader.Uint16, shape: []int{1024, 1024}, chunk: []int{256, 256}, fill: 0,
		codecs: append([]map[string]any{bytesCodec("little")}, codecs...), seed: 3}
}

// benchRead reads the array's chunks round robin; bytes are the decoded
// chunk bytes.
func benchRead(b *testing.B, loc string) {
	src, err := loader.Open(context.Background(), loc)
	if err != nil {
		b.Fatal(err)
	}
	benchSource(b, src)
}

// benchSource reads src's chunks round robin.
func benchSource(b *testing.B, src loader.Source) {
	defer src.Close()
	l := src.Meta().Levels[0]
	dst := make([]byte, l.ChunkBytes(src.Meta().DType))
	grid := l.Grid()
	idx := make([]int, 2)
	ctx := context.Background()
	b.SetBytes(int64(len(dst)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := src.ReadChunk(ctx, 0, idx, dst); err != nil {
			b.Fatal(err)
		}
		if !nd.Next(idx, grid) {
			clear(idx)
		}
	}
}

// BenchmarkReadChunk reads 256 x 256 uint16 chunks, raw and zstd, from a
// folder, from a loopback HTTP server, and from memory without a copy
// (the reader's own cost); Copy is copy() of the same bytes.
func BenchmarkReadChunk(b *testing.B) {
	root := b.TempDir()
	benchArray().write(b, filepath.Join(root, "raw.zarr"))
	benchArray(named("zstd")).write(b, filepath.Join(root, "zstd.zarr"))
	base := fileServer(b, root)
	b.Run("Copy", func(b *testing.B) {
		src := make([]byte, 256*256*2)
		dst := make([]byte, len(src))
		b.SetBytes(int64(len(src)))
		b.ReportAllocs()
		for b.Loop() {
			copy(dst, src)
		}
	})
	b.Run("Folder/raw", func(b *testing.B) { benchRead(b, filepath.Join(root, "raw.zarr")) })
	b.Run("Folder/zstd", func(b *testing.B) { benchRead(b, filepath.Join(root, "zstd.zarr")) })
	b.Run("Memory/raw", func(b *testing.B) { benchSource(b, memSource(b, filepath.Join(root, "raw.zarr"))) })
	b.Run("Memory/zstd", func(b *testing.B) { benchSource(b, memSource(b, filepath.Join(root, "zstd.zarr"))) })
	b.Run("HTTP/raw", func(b *testing.B) { benchRead(b, base+"/raw.zarr") })
	b.Run("HTTP/zstd", func(b *testing.B) { benchRead(b, base+"/zstd.zarr") })
}

// memSource opens a copy of the folder's files held in memory, handed out
// without copying.
func memSource(b *testing.B, dir string) *Source {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	st := newMemStore(files)
	st.shared = true
	src, err := OpenStore(context.Background(), st)
	if err != nil {
		b.Fatal(err)
	}
	return src
}
