package omezarr

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"vastview/loader"
)

func small(seed uint64) *memSource {
	return build(spec{axes: "ZYX", dtype: loader.Uint16, shape: []int{6, 20, 30},
		chunk: []int{2, 8, 8}, levels: 2}, seed)
}

// listDir returns the names in dir.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func readJSON(t *testing.T, p string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return decodeJSON(t, b)
}

func TestRefusesExistingOutput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "a.ome.zarr")
	if err := Write(context.Background(), out, small(1), Options{}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(out, ".zattrs"))
	err := Write(context.Background(), out, small(2), Options{Name: "other"})
	if !errors.Is(err, ErrExists) {
		t.Fatalf("err = %v, want ErrExists", err)
	}
	after, _ := os.ReadFile(filepath.Join(out, ".zattrs"))
	if string(before) != string(after) {
		t.Error("existing output changed")
	}
	if names := listDir(t, dir); !reflect.DeepEqual(names, []string{"a.ome.zarr"}) {
		t.Errorf("folder holds %v", names)
	}
}

func TestOverwriteReplacesZarr(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "a.zarr")
	if err := Write(context.Background(), out, small(1), Options{}); err != nil {
		t.Fatal(err)
	}
	src := build(spec{axes: "YX", dtype: loader.Uint8, shape: []int{9, 7}, chunk: []int{4, 4}, levels: 1}, 3)
	if err := Write(context.Background(), out, src, Options{Version: 3, Overwrite: true}); err != nil {
		t.Fatal(err)
	}
	if names := listDir(t, dir); !reflect.DeepEqual(names, []string{"a.zarr"}) {
		t.Errorf("folder holds %v", names)
	}
	if names := listDir(t, out); !reflect.DeepEqual(names, []string{"0", "zarr.json"}) {
		t.Errorf("output holds %v, want only the new image", names)
	}
	if got := readJSON(t, filepath.Join(out, "0", "zarr.json"))["shape"]; !reflect.DeepEqual(got, ints(src.meta.Shape)) {
		t.Errorf("shape %v", got)
	}
}

func TestOverwriteRefusesOtherThings(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes")
	if err := os.MkdirAll(notes, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(notes, "a.txt"), []byte("keep"), 0o644)
	file := filepath.Join(dir, "file.zarr")
	os.WriteFile(file, []byte("keep"), 0o644)
	for _, out := range []string{notes, file} {
		err := Write(context.Background(), out, small(1), Options{Overwrite: true})
		if err == nil || !strings.Contains(err.Error(), "not replacing it") {
			t.Errorf("%s: err = %v", filepath.Base(out), err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(notes, "a.txt")); string(b) != "keep" {
		t.Error("folder content lost")
	}
	if names := listDir(t, dir); !reflect.DeepEqual(names, []string{"file.zarr", "notes"}) {
		t.Errorf("folder holds %v", names)
	}
	// An empty folder may be replaced.
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	if err := Write(context.Background(), empty, small(1), Options{Overwrite: true}); err != nil {
		t.Errorf("empty folder: %v", err)
	}
}

func TestCancelLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "c.ome.zarr")
	src := small(1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	reads := 0
	src.before = func(c context.Context, level int, idx []int) error {
		mu.Lock()
		reads++
		n := reads
		mu.Unlock()
		if n == 5 {
			cancel()
		}
		if n >= 5 {
			<-c.Done()
			return c.Err()
		}
		return nil
	}
	err := Write(ctx, out, src, Options{Workers: 3})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if names := listDir(t, dir); len(names) != 0 {
		t.Errorf("cancelled write left %v", names)
	}
	if reads > 5+3 {
		t.Errorf("%d chunks read after cancelling", reads-5)
	}
}

func TestReadErrorLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	src := small(1)
	src.before = func(_ context.Context, level int, idx []int) error {
		if level == 1 && reflect.DeepEqual(idx, []int{1, 0, 1}) {
			return errors.New("disk on fire")
		}
		return nil
	}
	err := Write(context.Background(), filepath.Join(dir, "e.zarr"), src, Options{Workers: 2})
	if err == nil || err.Error() != "reading level 1 chunk [1 0 1]: disk on fire" {
		t.Fatalf("err = %v", err)
	}
	if se := (*SourceError)(nil); !errors.As(err, &se) {
		t.Errorf("a read error is not a SourceError: %T", err)
	}
	if names := listDir(t, dir); len(names) != 0 {
		t.Errorf("failed write left %v", names)
	}
}

// TestProgressAndWorkerBound runs in a synctest bubble. Every read waits for
// a token; whenever every goroutine is blocked, exactly min(3, reads left)
// reads are in flight with 3 workers: no more, and no fewer.
func TestProgressAndWorkerBound(t *testing.T) {
	synctest.Test(t, testProgressAndWorkerBound)
}

func testProgressAndWorkerBound(t *testing.T) {
	src := small(1)
	tokens := make(chan struct{})
	src.before = func(ctx context.Context, _ int, _ []int) error {
		select {
		case <-tokens:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	total := 0
	for _, l := range src.meta.Levels {
		total += count(l.Grid())
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "p.zarr")
	var calls [][2]int
	var during []string
	opts := Options{Workers: 3, Progress: func(done, tot int) {
		calls = append(calls, [2]int{done, tot})
		if done == 1 {
			during = listDir(t, dir)
		}
	}}
	errc := make(chan error, 1)
	go func() { errc <- Write(t.Context(), out, src, opts) }()
	for left := total; left > 0; left-- {
		synctest.Wait()
		if n := src.inFlight.Load(); n != int64(min(3, left)) {
			t.Fatalf("%d chunks read at once with 3 workers and %d reads left", n, left)
		}
		tokens <- struct{}{}
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	// The image appears under its name only when complete, with the
	// permissions of an ordinary new folder.
	if len(during) != 1 || !strings.HasPrefix(during[0], "p.zarr.partial-") {
		t.Errorf("while writing the folder holds %v", during)
	}
	os.Mkdir(filepath.Join(dir, "plain"), 0o755)
	st, _ := os.Stat(out)
	plain, _ := os.Stat(filepath.Join(dir, "plain"))
	if st.Mode().Perm() != plain.Mode().Perm() {
		t.Errorf("output mode %v, want %v", st.Mode().Perm(), plain.Mode().Perm())
	}
	if len(calls) != total {
		t.Fatalf("%d progress calls, want %d", len(calls), total)
	}
	for i, c := range calls {
		if c != [2]int{i + 1, total} {
			t.Fatalf("call %d = %v, want [%d %d]", i, c, i+1, total)
		}
	}
	if n := src.maxInFlight.Load(); n > 3 {
		t.Errorf("%d chunks read at once with 3 workers", n)
	}
}

func TestBadRequests(t *testing.T) {
	bad := small(1)
	bad.meta.Levels[1].Scale[2] = math.NaN()
	noAxes := small(1)
	noAxes.meta.Axes = "YZX"
	cases := []struct {
		name string
		src  *memSource
		opts Options
		want string
	}{
		{"version", small(1), Options{Version: 4}, "zarr version 4: want 2 or 3"},
		{"codec", small(1), Options{Codec: "lz4"}, `codec "lz4": want zstd, gzip or none`},
		{"zstd level", small(1), Options{Level: 23}, "zstd level 23: want 1 to 22"},
		{"gzip level", small(1), Options{Codec: "gzip", Level: 10}, "gzip level 10: want 1 to 9"},
		{"nan scale", bad, Options{}, "source level 1: scale or translation of axis X is not a finite number"},
		{"axes", noAxes, Options{}, `source: axes "YZX" must end in YX`},
	}
	dir := t.TempDir()
	for _, c := range cases {
		err := Write(context.Background(), filepath.Join(dir, "x.zarr"), c.src, c.opts)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	if names := listDir(t, dir); len(names) != 0 {
		t.Errorf("refused writes left %v", names)
	}
	err := Write(context.Background(), filepath.Join(dir, "no", "such", "x.zarr"), small(1), Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "cannot create the output: ") || strings.Contains(err.Error(), dir) {
		t.Errorf("missing parent: err = %v", err)
	}
}

func TestDefaultName(t *testing.T) {
	for in, want := range map[string]string{
		"/a/b/cells.ome.zarr": "cells", "cells.zarr": "cells", "x/cells.OME.ZARR/": "cells",
		"cells": "cells", ".zarr": ".zarr",
	} {
		if got := defaultName(in); got != want {
			t.Errorf("defaultName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNewEncoderIsWritesEncoder: the encoder benchmarks time is the one
// Write uses, byte for byte; "none" has none, and bad requests are refused.
func TestNewEncoderIsWritesEncoder(t *testing.T) {
	src := small(3)
	out := filepath.Join(t.TempDir(), "a.ome.zarr")
	if err := Write(context.Background(), out, src, Options{}); err != nil {
		t.Fatal(err)
	}
	l := &src.meta.Levels[0]
	raw := make([]byte, l.ChunkBytes(src.meta.DType))
	idx := make([]int, len(l.Shape))
	if err := src.ReadChunk(context.Background(), 0, idx, raw); err != nil {
		t.Fatal(err)
	}
	key := "0"
	for range l.Shape {
		key += "/0"
	}
	want, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(key)))
	if err != nil {
		t.Fatal(err)
	}
	encode, release, err := NewEncoder("zstd", 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	got, err := encode(raw, nil)
	if err != nil || string(got) != string(want) {
		t.Errorf("encoder gives %d bytes (%v), Write stored %d", len(got), err, len(want))
	}
	if enc, _, err := NewEncoder("none", 0, 1); enc != nil || err != nil {
		t.Errorf("none: encoder %v, %v", enc != nil, err)
	}
	if _, _, err := NewEncoder("zstd", 40, 1); err == nil {
		t.Error("zstd level 40 accepted")
	}
}
