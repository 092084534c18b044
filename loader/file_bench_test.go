package loader

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkGuard measures what a guarded read of mapped bytes costs beyond
// the read: one byte read under File.Guard, against the same read bare.
func BenchmarkGuard(b *testing.B) {
	path := filepath.Join(b.TempDir(), "page.raw")
	if err := os.WriteFile(path, make([]byte, 4096), 0o644); err != nil {
		b.Fatal(err)
	}
	f, err := OpenFile(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	p, _ := f.Bytes(0, 4096)
	b.Run("bare", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			sink += p[i&4095]
		}
	})
	b.Run("guarded", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			guardedRead(f, p, i&4095)
		}
	})
}

var sink byte

// guardedRead adds p[i] to sink under f's guard.
func guardedRead(f *File, p []byte, i int) (err error) {
	defer f.Guard().Recover(&err)
	sink += p[i]
	return nil
}
