package tiff

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"vastview/loader"
	"vastview/loader/tiff/tiffwrite"
)

var (
	benchMu    sync.Mutex
	benchDir   string
	benchFiles = map[string]string{}
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// benchFile makes (once per run) a sparse stack written by make.
func benchFile(b *testing.B, name string, make func(path string) error) string {
	b.Helper()
	benchMu.Lock()
	defer benchMu.Unlock()
	if p, ok := benchFiles[name]; ok {
		return p
	}
	if benchDir == "" {
		d, err := os.MkdirTemp("", "vastview-tiff-bench")
		if err != nil {
			b.Fatal(err)
		}
		benchDir = d
	}
	p := filepath.Join(benchDir, name)
	if err := make(p); err != nil {
		b.Fatal(err)
	}
	benchFiles[name] = p
	return p
}

// benchOpenFirst measures opening path and reading its first chunk.
func benchOpenFirst(b *testing.B, path string, pages int) {
	src, err := Open(context.Background(), path)
	if err != nil {
		b.Fatal(err)
	}
	m := src.Meta()
	if m.Shape[0] != pages {
		b.Fatalf("%d pages, want %d", m.Shape[0], pages)
	}
	buf := make([]byte, m.Levels[0].ChunkBytes(m.DType))
	idx := make([]int, len(m.Axes))
	src.Close()
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		src, err := Open(context.Background(), path)
		if err != nil {
			b.Fatal(err)
		}
		if err := src.ReadChunk(context.Background(), 0, idx, buf); err != nil {
			b.Fatal(err)
		}
		src.Close()
	}
}

// BenchmarkOpen100kPages opens a 100,000-page 256x256 uint8 stack (6.5 GB,
// sparse) and reads its first plane.
func BenchmarkOpen100kPages(b *testing.B) {
	p := benchFile(b, "100k.tif", func(p string) error {
		return tiffwrite.Stack(p, 256, 256, 100000, loader.Uint8, nil)
	})
	benchOpenFirst(b, p, 100000)
}

// BenchmarkOpen2048x500Uint16 opens a 2048x2048x500 uint16 BigTIFF stack
// (4.2 GB, sparse) and reads its first plane.
func BenchmarkOpen2048x500Uint16(b *testing.B) {
	p := benchFile(b, "2048x500.tif", func(p string) error {
		return tiffwrite.Stack(p, 2048, 2048, 500, loader.Uint16, nil)
	})
	benchOpenFirst(b, p, 500)
}

// BenchmarkOpen100kPagesUneven opens a 100,000-page stack whose pages are
// not evenly spaced, so Open walks the IFD chain.
func BenchmarkOpen100kPagesUneven(b *testing.B) {
	p := benchFile(b, "100k-uneven.tif", func(p string) error {
		return tiffwrite.Uneven(p, 256, 256, 100000)
	})
	benchOpenFirst(b, p, 100000)
}

// BenchmarkReadPage64 reads the pages of a stack of 64x64 uint8 pages in
// turn: an IFD parsed from the mapping and a 4 KiB positioned read per
// page, so the per-read cost of guarding the mapping shows.
func BenchmarkReadPage64(b *testing.B) {
	p := benchFile(b, "64x64.tif", func(p string) error {
		return tiffwrite.Stack(p, 64, 64, 1000, loader.Uint8, nil)
	})
	src, err := Open(context.Background(), p)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	buf := make([]byte, 64*64)
	idx := []int{0, 0, 0}
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		idx[0] = (idx[0] + 1) % 1000
		if err := src.ReadChunk(context.Background(), 0, idx, buf); err != nil {
			b.Fatal(err)
		}
	}
}
