// Package loadertest holds what the readers' tests share: the body of
// their FuzzOpen targets and reading a frame. It is for tests only.
package loadertest

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"vastview/base/nd"
	"vastview/loader"
)

// What one fuzz input reads of each level: chunks in grid order while they
// stay within both budgets, then the grid's last chunk (the far corner,
// where offsets are largest and chunks are cut by the array's edge). A
// level whose single chunk is over readBytes is not read. A file of at most
// a fuzz target's maxBytes holds far less than readBytes of samples, so
// every chunk that a small input really stores is read.
const (
	readBytes  = 1 << 22
	readChunks = 1 << 10
)

// minimizeLimit is the -fuzzminimizetime Fuzz sets when the command line
// gives none: the engine's default, 60 s, is spent in full on every input
// that finds new coverage (its byte-by-byte passes try O(n²) candidates),
// which stopped fuzzing for minutes at a time. 200 runs cut a new input's
// unneeded tail; a crasher found is kept in testdata either way.
const minimizeLimit = "200x"

// Fuzz runs f over byte inputs as files called name (inputs over maxBytes
// are skipped) opened with match and open: no panic, no hang, and a Source
// that opens describes a valid array whose chunks (see readBytes) each read
// or fail cleanly within 20 seconds.
//
// Each input is written over one file, kept for the whole run in a
// memory-backed folder (/dev/shm) when there is one: a folder and file
// made and removed per input cost milliseconds of file-system work, far
// more than reading the input.
func Fuzz(f *testing.F, name string, maxBytes int,
	match func(path string, head []byte) bool, open func(ctx context.Context, path string) (loader.Source, error)) {
	f.Helper()
	setDefaultMinimization()
	dir := memDir(f)
	path := filepath.Join(dir, name)
	w, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { w.Close() })
	var mu sync.Mutex // one input in the file at a time
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxBytes {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if err := w.Truncate(0); err != nil {
			t.Fatal(err)
		}
		if _, err := w.WriteAt(b, 0); err != nil {
			t.Fatal(err)
		}
		check(t, path, b, match, open)
	})
}

// memDir is a new folder in /dev/shm removed when f ends, or f.TempDir().
func memDir(f *testing.F) string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "loadertest-"); err == nil {
			f.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
	}
	return f.TempDir()
}

// setDefaultMinimization sets -test.fuzzminimizetime to minimizeLimit
// unless the command line set it.
func setDefaultMinimization() {
	const name = "test.fuzzminimizetime"
	fl := flag.Lookup(name)
	if fl == nil {
		return
	}
	set := false
	flag.Visit(func(g *flag.Flag) { set = set || g.Name == name })
	if !set {
		fl.Value.Set(minimizeLimit)
	}
}

// check opens the file at path, which holds b, and reads its chunks.
func check(t *testing.T, path string, b []byte, match func(path string, head []byte) bool,
	open func(ctx context.Context, path string) (loader.Source, error)) {
	match(path, b)
	src, err := open(context.Background(), path)
	if err != nil {
		return
	}
	defer src.Close()
	m := src.Meta()
	if err := m.Validate(); err != nil {
		t.Fatalf("opened an invalid array: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err = readSome(ctx, src, m)
	if ctx.Err() != nil {
		t.Fatalf("reading hangs: %v", err)
	}
}

// readSome reads the chunks of each level of src that fit the budgets
// readBytes and readChunks, and the last chunk; a chunk may fail. It
// returns the error that ended it, if ctx did.
func readSome(ctx context.Context, src loader.Source, m *loader.Meta) error {
	for li := range m.Levels {
		l := &m.Levels[li]
		cb := l.ChunkBytes(m.DType)
		if cb > readBytes {
			continue
		}
		buf := make([]byte, cb)
		grid := l.Grid()
		idx := make([]int, len(grid))
		for n := 1; ; n++ {
			if err := src.ReadChunk(ctx, li, idx, buf); err != nil && ctx.Err() != nil {
				return err
			}
			if !nd.Next(idx, grid) {
				break
			}
			if n >= readChunks || (n+1)*cb > readBytes {
				for i := range idx {
					idx[i] = grid[i] - 1
				}
				if err := src.ReadChunk(ctx, li, idx, buf); err != nil && ctx.Err() != nil {
					return err
				}
				break
			}
		}
	}
	return nil
}

// Frame reads frame i (the position along T) of src's XY plane, failing
// t on error.
func Frame(t *testing.T, src loader.Source, i int) []byte {
	t.Helper()
	buf, _, _, err := loader.ReadPlane(context.Background(), src, 0, loader.Plane{Orientation: loader.XY, At: map[byte]int{'T': i}})
	if err != nil {
		t.Fatal(err)
	}
	return buf
}

// OpenFirstPlane is the body of the readers' open benchmarks: each
// iteration opens path with open, reads the first XY plane of level 0 and
// closes the source.
func OpenFirstPlane(b *testing.B, path string, open func(ctx context.Context, path string) (loader.Source, error)) {
	b.Helper()
	ctx := context.Background()
	for b.Loop() {
		src, err := open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, _, err := loader.ReadPlane(ctx, src, 0, loader.Plane{Orientation: loader.XY}); err != nil {
			b.Fatal(err)
		}
		src.Close()
	}
}

// ClearError checks that err, from opening or reading the bad file what,
// is what a user of a reader is told: one line, saying want, typed as a
// loader.FormatError or loader.UnsupportedError. It reports whether it
// was, failing t (without stopping it) if not.
func ClearError(t testing.TB, what string, err error, want string) bool {
	t.Helper()
	var fe *loader.FormatError
	var ue *loader.UnsupportedError
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") ||
		!errors.As(err, &fe) && !errors.As(err, &ue) {
		t.Errorf("%s: %v, want one line saying %q", what, err, want)
		return false
	}
	return true
}
