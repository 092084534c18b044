package store

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
)

// writeFile writes b to root/key, making folders.
func writeFile(t *testing.T, root, key string, b []byte) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFolder(t *testing.T) {
	root := t.TempDir()
	meta := []byte(`{"zarr_format": 2}`)
	chunk := bytes.Repeat([]byte{1, 2, 3}, 1000)
	writeFile(t, root, "0/.zarray", meta)
	writeFile(t, root, "s0/c/0/0/1", chunk)
	writeFile(t, root, "odd key %/x", []byte("odd"))
	f := NewFolder(root)
	ctx := context.Background()
	for key, want := range map[string][]byte{"0/.zarray": meta, "s0/c/0/0/1": chunk, "odd key %/x": []byte("odd")} {
		got, err := f.Get(ctx, key)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("Get(%q) = %d bytes, %v; want %d bytes", key, len(got), err, len(want))
		}
	}
	for _, key := range []string{
		"0/0.0",        // missing file
		"1/.zarray",    // missing folder
		"0/.zarray/x",  // a file where a folder should be
		"s0/c/0",       // a folder
		"s0/c/0/0/1/2", // below a file
	} {
		_, err := f.Get(ctx, key)
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(%q): %v, want ErrNotFound", key, err)
		} else if strings.Contains(err.Error(), root) || !strings.Contains(err.Error(), key) {
			t.Errorf("Get(%q): %q should name the key but not the folder", key, err)
		}
		if _, err := f.GetRange(ctx, key, 0, 1); !errors.Is(err, ErrNotFound) {
			t.Errorf("GetRange(%q): %v, want ErrNotFound", key, err)
		}
	}
	if f.String() != root {
		t.Errorf("String() = %q", f.String())
	}
}

func TestFolderGetRange(t *testing.T) {
	root := t.TempDir()
	value := make([]byte, 1000)
	for i := range value {
		value[i] = byte(i * 7)
	}
	writeFile(t, root, "s0/c/0/0", value)
	checkRanges(t, NewFolder(root), "s0/c/0/0", value)
}

func TestFolderCloseAndCancel(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "k", []byte("v"))
	f := NewFolder(root)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.Get(ctx, "k"); err != context.Canceled {
		t.Errorf("Get with a cancelled context: %v", err)
	}
	f.Close()
	if _, err := f.Get(context.Background(), "k"); err != ErrClosed {
		t.Errorf("Get after Close: %v", err)
	}
	if _, err := f.GetRange(context.Background(), "k", 0, 1); err != ErrClosed {
		t.Errorf("GetRange after Close: %v", err)
	}
}

var badKeys = []string{"", "/a", "a/", "a//b", "..", "../x", "a/../b", "a/..", "./a", "a/./b", `a\b`, `..\x`, "a\x00b"}

func TestInvalidKeys(t *testing.T) { synctest.Test(t, testInvalidKeys) }

func testInvalidKeys(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "inside/k", []byte("v"))
	writeFile(t, filepath.Dir(root), "outside", []byte("secret"))
	s := newFaultServer(t)
	h := newStore(t, s, testOptions())
	for _, st := range []Store{NewFolder(filepath.Join(root, "inside")), h} {
		for _, key := range append(badKeys, "../outside", "../../outside") {
			if _, err := st.Get(context.Background(), key); !errors.Is(err, ErrInvalidKey) {
				t.Errorf("%T Get(%q): %v, want ErrInvalidKey", st, key, err)
			}
			if _, err := st.GetRange(context.Background(), key, 0, 1); !errors.Is(err, ErrInvalidKey) {
				t.Errorf("%T GetRange(%q): %v, want ErrInvalidKey", st, key, err)
			}
		}
	}
	if len(s.ranges) != 0 {
		t.Errorf("%d requests for invalid keys", len(s.ranges))
	}
	for _, key := range []string{"a", "0/.zarray", "s0/c/0/0/1", ".zattrs", "a..b/c", "...", "a b/%20"} {
		if err := checkKey(key); err != nil {
			t.Errorf("checkKey(%q): %v", key, err)
		}
	}
}

func TestOpen(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "a.zarr/.zgroup", []byte("{}"))
	dir := filepath.Join(root, "a.zarr")
	for _, loc := range []string{dir, "file://" + filepath.ToSlash(dir)} {
		st, err := Open(loc)
		if err != nil {
			t.Fatalf("Open(%q): %v", loc, err)
		}
		if b, err := st.Get(context.Background(), ".zgroup"); err != nil || string(b) != "{}" {
			t.Errorf("Open(%q).Get = %q, %v", loc, b, err)
		}
		st.Close()
	}
	for _, loc := range []string{filepath.Join(root, "missing"), filepath.Join(dir, ".zgroup")} {
		st, err := Open(loc)
		if err == nil {
			st.Close()
			t.Errorf("Open(%q) succeeded", loc)
		} else if strings.Contains(err.Error(), root) {
			t.Errorf("Open(%q): %q repeats the path", loc, err)
		}
	}
	st, err := Open("HTTPS://user:pw@example.org/data/a.zarr?X-Amz-Signature=abc#frag")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, ok := st.(*HTTP); !ok || st.String() != "https://example.org/data/a.zarr/" {
		t.Errorf("Open of a URL: %T %q", st, st.String())
	}
	for _, bad := range []string{"http://", "http:///a", "https://[::1", "ftp://example.org/a"} {
		if _, err := NewHTTP(bad, HTTPOptions{}); err == nil {
			t.Errorf("NewHTTP(%q) succeeded", bad)
		}
	}
}
