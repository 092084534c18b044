package store

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"
)

// TestHTTPGetAtMost: a value over the bound is refused from its
// Content-Length without reading the body, or, without one, once the bound
// is passed; either way in one attempt.
func TestHTTPGetAtMost(t *testing.T) { synctest.Test(t, testHTTPGetAtMost) }

func testHTTPGetAtMost(t *testing.T) {
	s := newFaultServer(t)
	h := newStore(t, s, testOptions())
	want := s.put("zarr.json", 1000)
	ctx := context.Background()
	got, info, err := h.GetAtMost(ctx, "zarr.json", 1000)
	if err != nil || !bytes.Equal(got, want) || info.Size != 1000 {
		t.Fatalf("GetAtMost within the bound = %d bytes, %+v, %v", len(got), info, err)
	}
	before := h.Stats().Bytes
	_, _, err = h.GetAtMost(ctx, "zarr.json", 999)
	if !errors.Is(err, ErrTooLarge) || err.Error() != "GET "+h.String()+"zarr.json: value of 1000 bytes is over the 999-byte limit" {
		t.Errorf("over the bound: %v", err)
	}
	if n := h.Stats().Bytes - before; n != 0 {
		t.Errorf("read %d bytes of a body its Content-Length shows too large", n)
	}
	if n := s.attempts("zarr.json"); n != 2 {
		t.Errorf("%d requests for two reads; a value too large is not retried", n)
	}
	s.plan("zarr.json", chunked, chunked)
	before = h.Stats().Bytes
	_, _, err = h.GetAtMost(ctx, "zarr.json", 600)
	if !errors.Is(err, ErrTooLarge) || err.Error() != "GET "+h.String()+"zarr.json: value is over the 600-byte limit" {
		t.Errorf("over the bound, no Content-Length: %v", err)
	}
	if n := h.Stats().Bytes - before; n > 601 {
		t.Errorf("read %d bytes of a body of unknown length for a bound of 600", n)
	}
	if n := s.attempts("zarr.json"); n != 1 {
		t.Errorf("%d requests for a value too large; it is not retried", n)
	}
	if got, _, err := h.GetAtMost(ctx, "zarr.json", 1000); err != nil || !bytes.Equal(got, want) {
		t.Errorf("GetAtMost within the bound, no Content-Length = %d bytes, %v", len(got), err)
	}
	// A body of unknown length that breaks off right at the bound is a
	// broken read, not a value of the bound's size.
	s.plan("zarr.json", chunkedCut, chunkedCut, chunkedCut, chunkedCut)
	if got, _, err := h.GetAtMost(ctx, "zarr.json", 500); err == nil || errors.Is(err, ErrTooLarge) {
		t.Errorf("a body cut at the bound = %d bytes, %v; want a truncated read", len(got), err)
	}
}

func TestFolderGetAtMost(t *testing.T) {
	root := t.TempDir()
	want := bytes.Repeat([]byte("z"), 1000)
	writeFile(t, root, "0/.zattrs", want)
	mtime := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(root, "0", ".zattrs"), mtime, mtime); err != nil {
		t.Fatal(err)
	}
	f := NewFolder(root)
	ctx := context.Background()
	got, info, err := f.GetAtMost(ctx, "0/.zattrs", 1000)
	if err != nil || !bytes.Equal(got, want) || info.Size != 1000 || !info.Modified.Equal(mtime) {
		t.Fatalf("GetAtMost within the bound = %d bytes, %+v, %v", len(got), info, err)
	}
	_, _, err = f.GetAtMost(ctx, "0/.zattrs", 999)
	if !errors.Is(err, ErrTooLarge) || err.Error() != "0/.zattrs: value of 1000 bytes is over the 999-byte limit" {
		t.Errorf("over the bound: %v", err)
	}
	for _, key := range []string{"0/.zarray", "0"} {
		if _, _, err := f.GetAtMost(ctx, key, 10); !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: %v, want ErrNotFound", key, err)
		}
	}
}

// plain hides a store's GetAtMost.
type plain struct{ Store }

func TestGetAtMostFallback(t *testing.T) {
	root := t.TempDir()
	want := []byte(`{"zarr_format": 2}`)
	writeFile(t, root, ".zgroup", want)
	st := plain{NewFolder(root)}
	got, info, err := GetAtMost(context.Background(), st, ".zgroup", 18)
	if err != nil || !bytes.Equal(got, want) || info.Size != 18 {
		t.Errorf("within the bound = %q, %+v, %v", got, info, err)
	}
	_, _, err = GetAtMost(context.Background(), st, ".zgroup", 17)
	if !errors.Is(err, ErrTooLarge) || err.Error() != ".zgroup: value of 18 bytes is over the 17-byte limit" {
		t.Errorf("over the bound: %v", err)
	}
}
