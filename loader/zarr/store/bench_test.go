package store

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkGet1MiB reads a 1 MiB value over loopback HTTP, from a local
// file, and copies it in memory, in the same run.
func BenchmarkGet1MiB(b *testing.B) {
	value := make([]byte, 1<<20)
	for i := range value {
		value[i] = byte(i * 31)
	}
	b.Run("http", func(b *testing.B) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "1048576")
			w.Write(value)
		}))
		defer srv.Close()
		h, err := NewHTTP(srv.URL, HTTPOptions{})
		if err != nil {
			b.Fatal(err)
		}
		defer h.Close()
		b.SetBytes(int64(len(value)))
		b.ReportAllocs()
		for b.Loop() {
			if got, err := h.Get(context.Background(), "0/0.0"); err != nil || len(got) != len(value) {
				b.Fatal(len(got), err)
			}
		}
	})
	b.Run("http-range", func(b *testing.B) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "1048576")
			w.Header().Set("Content-Range", "bytes 1048576-2097151/4194304")
			w.WriteHeader(http.StatusPartialContent)
			w.Write(value)
		}))
		defer srv.Close()
		h, err := NewHTTP(srv.URL, HTTPOptions{})
		if err != nil {
			b.Fatal(err)
		}
		defer h.Close()
		b.SetBytes(int64(len(value)))
		b.ReportAllocs()
		for b.Loop() {
			if got, err := h.GetRange(context.Background(), "0/0.0", 1<<20, 1<<20); err != nil || len(got) != len(value) {
				b.Fatal(len(got), err)
			}
		}
	})
	b.Run("folder", func(b *testing.B) {
		dir := b.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "0"), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "0", "0.0"), value, 0o644); err != nil {
			b.Fatal(err)
		}
		f := NewFolder(dir)
		b.SetBytes(int64(len(value)))
		b.ReportAllocs()
		for b.Loop() {
			if got, err := f.Get(context.Background(), "0/0.0"); err != nil || len(got) != len(value) {
				b.Fatal(len(got), err)
			}
		}
	})
	b.Run("readfile", func(b *testing.B) {
		p := filepath.Join(b.TempDir(), "v")
		if err := os.WriteFile(p, value, 0o644); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(value)))
		b.ReportAllocs()
		for b.Loop() {
			if got, err := os.ReadFile(p); err != nil || len(got) != len(value) {
				b.Fatal(len(got), err)
			}
		}
	})
	b.Run("copy", func(b *testing.B) {
		dst := make([]byte, len(value))
		b.SetBytes(int64(len(value)))
		b.ReportAllocs()
		for b.Loop() {
			copy(dst, value)
		}
	})
}
