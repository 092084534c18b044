package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// etagServer serves values with ETags and answers If-None-Match with 304.
type etagServer struct {
	mu       sync.Mutex
	values   map[string][]byte
	version  map[string]int
	full     int // 200 answers
	notMod   int // 304 answers
	lastCond string
}

func (s *etagServer) set(key string, v []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.values[key] = v
	s.version[key]++
}

func (s *etagServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := strings.TrimPrefix(r.URL.Path, "/base/")
	v, ok := s.values[key]
	if !ok {
		http.NotFound(w, r)
		return
	}
	tag := fmt.Sprintf(`"%s-%d"`, key, s.version[key])
	s.lastCond = r.Header.Get("If-None-Match")
	w.Header().Set("ETag", tag)
	if s.lastCond == tag {
		s.notMod++
		w.WriteHeader(http.StatusNotModified)
		return
	}
	s.full++
	w.Write(v)
}

func TestDiskCacheRevalidatesAndServesWhenServerIsGone(t *testing.T) {
	es := &etagServer{values: map[string][]byte{}, version: map[string]int{}}
	srv := httptest.NewServer(es)
	first := bytes.Repeat([]byte("chunk-one "), 100)
	es.set("0/0.0", first)
	c, err := OpenDiskCache(t.TempDir(), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	opt := testOptions()
	opt.Cache = c
	open := func() *HTTP {
		h, err := NewHTTP(srv.URL+"/base", opt)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		return h
	}
	ctx := context.Background()
	if got, err := open().Get(ctx, "0/0.0"); err != nil || !bytes.Equal(got, first) {
		t.Fatalf("first read: %v", err)
	}
	// A new store (as after a restart) asks conditionally; 304 serves the
	// kept bytes.
	if got, err := open().Get(ctx, "0/0.0"); err != nil || !bytes.Equal(got, first) {
		t.Fatalf("second read: %v", err)
	}
	if es.full != 1 || es.notMod != 1 || es.lastCond == "" {
		t.Errorf("server saw %d full and %d 304 answers (If-None-Match %q), want 1 and 1", es.full, es.notMod, es.lastCond)
	}
	// A changed value is read again.
	second := bytes.Repeat([]byte("chunk-two "), 100)
	es.set("0/0.0", second)
	if got, err := open().Get(ctx, "0/0.0"); err != nil || !bytes.Equal(got, second) {
		t.Fatalf("read after a change: %v %q", err, got[:min(20, len(got))])
	}
	if _, err := open().Get(ctx, "0/2.0"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing value: %v", err)
	}
	// The server gone, what was seen is served, a value seen missing is
	// missing; what was not seen fails.
	h := open()
	srv.Close()
	if _, err := h.Get(ctx, "0/2.0"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("read of a value seen missing, with the server gone: %v, want ErrNotFound", err)
	}
	if got, err := h.Get(ctx, "0/0.0"); err != nil || !bytes.Equal(got, second) {
		t.Fatalf("read with the server gone: %v", err)
	}
	if _, err := h.Get(ctx, "0/1.0"); err == nil || errors.Is(err, ErrNotFound) {
		t.Fatalf("read of an unseen value with the server gone: %v, want a failure", err)
	}
}

func TestDiskCacheStaysWithinItsLimit(t *testing.T) {
	dir := t.TempDir()
	const limit = 64 << 10
	c, err := OpenDiskCache(dir, limit)
	if err != nil {
		t.Fatal(err)
	}
	v := bytes.Repeat([]byte{7}, 10<<10)
	for i := range 40 {
		c.put(fmt.Sprintf("http://h/k%d#whole value", i), v, Info{Size: int64(len(v)), ETag: `"x"`})
	}
	var total int64
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		st, _ := e.Info()
		total += st.Size()
	}
	if total > limit {
		t.Errorf("cache holds %d bytes, over its %d-byte limit", total, limit)
	}
	if c.get("http://h/k39#whole value") == nil {
		t.Error("the newest value was evicted")
	}
	if c.get("http://h/k0#whole value") != nil {
		t.Error("the oldest value was kept")
	}
	// A damaged file is not served.
	p := c.path("http://h/k39#whole value")
	b, _ := os.ReadFile(p)
	b[len(b)-1] ^= 1
	os.WriteFile(p, b, 0o644)
	if c.get("http://h/k39#whole value") != nil {
		t.Error("a damaged file was served")
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.Base(p))); err == nil {
		t.Error("a damaged file was kept")
	}
}

func TestDeadlineBoundsADrippingServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100000")
		for range 100000 {
			if _, err := w.Write([]byte{1}); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}))
	defer srv.Close()
	opt := testOptions()
	opt.Deadline = 300 * time.Millisecond
	opt.MinRate = 1 // the pacer alone would allow this body
	opt.ReadTimeout = time.Hour
	opt.AttemptTimeout = time.Hour
	h, err := NewHTTP(srv.URL+"/base", opt)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	_, err = h.Get(context.Background(), "0/0")
	var he *HTTPError
	if !errors.Is(err, errDeadline) || !strings.Contains(err.Error(), "within 300ms") ||
		!errors.As(err, &he) || he.Attempts != 1 {
		t.Fatalf("dripping server: %v, want the deadline after one attempt", err)
	}
}

// FuzzDecodeCached checks that any cache file, damaged however, is either
// refused or gives back a value that, written again, reads back the same
// (the varints of a file need not be minimal, so its bytes may differ).
func FuzzDecodeCached(f *testing.F) {
	const key = "s3://b/img.zarr/0/0.0#whole value"
	v := []byte("some chunk bytes")
	f.Add(append(cacheHead(key, v, Info{ETag: `"e"`, Modified: time.Unix(1700000000, 0)}), v...))
	f.Add(append(cacheHead(key, nil, Info{ETag: "missing"}), nil...))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, ok := decodeCached(b, key)
		if !ok {
			return
		}
		again, ok := decodeCached(append(cacheHead(key, c.data, c.info), c.data...), key)
		if !ok || !bytes.Equal(again.data, c.data) || again.info.ETag != c.info.ETag ||
			!again.info.Modified.Equal(c.info.Modified) {
			t.Errorf("decoded %q (%+v) reads back differently", c.data, c.info)
		}
		if _, ok := decodeCached(b, key+"x"); ok {
			t.Error("a file was taken for another key")
		}
	})
}
