// Package loadertest holds what the readers' tests share: the Source
// conformance suite, the body of their FuzzOpen targets and their seeds,
// opening a file as loader.Open would and reading a frame. It is for tests
// only.
package loadertest

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"vastview/base/nd"
	"vastview/base/testtool"
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
// or fail cleanly within 20 seconds (see Check).
//
// Each input is written over one file in FuzzDir, kept for the whole run:
// a folder and file made and removed per input cost milliseconds of
// file-system work, far more than reading the input.
func Fuzz(f *testing.F, name string, maxBytes int,
	match func(path string, head []byte) bool, open func(ctx context.Context, path string) (loader.Source, error)) {
	f.Helper()
	path := filepath.Join(FuzzDir(f), name)
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
		Check(t, path, b, match, open)
	})
}

// FuzzDir prepares a fuzz target: it sets -test.fuzzminimizetime to
// minimizeLimit unless the command line set it, and returns a folder for
// the inputs, removed when f ends: in memory (/dev/shm) when there is one.
func FuzzDir(f *testing.F) string {
	f.Helper()
	setDefaultMinimization()
	return memDir(f)
}

// SharedSeed returns the bytes of the shared test data file name (as
// testtool.LookSharedData finds it), for a fuzz target's seed, or false
// when the shared data is absent (the target then runs without it).
func SharedSeed(f *testing.F, name string) ([]byte, bool) {
	f.Helper()
	p, ok := testtool.LookSharedData(name)
	if !ok {
		return nil, false
	}
	return ReadFile(f, p), true
}

// Seeds adds each file of testdata matching pattern as a seed of f,
// failing f when there is none.
func Seeds(f *testing.F, pattern string) {
	f.Helper()
	seeds, _ := filepath.Glob(filepath.Join("testdata", pattern))
	if len(seeds) == 0 {
		f.Fatalf("no seed files testdata/%s", pattern)
	}
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
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

// Check is the body of a fuzz target: it asks match about the file (or
// folder) at path, whose first bytes are head, opens it with open and, if
// that succeeds, checks the metadata and reads its chunks (see readBytes):
// each may fail, but all within 20 seconds.
func Check(t *testing.T, path string, head []byte, match func(path string, head []byte) bool,
	open func(ctx context.Context, path string) (loader.Source, error)) {
	t.Helper()
	match(path, head)
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

// Head returns the first bytes of the file at path, as loader.Open hands
// them to the formats' claims (up to loader.HeadSize), or nil for a
// folder, a glob pattern or a URL.
func Head(t testing.TB, path string) []byte {
	t.Helper()
	if loader.IsPattern(path) || loader.IsURL(path) {
		return nil
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.IsDir() {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	head := make([]byte, loader.HeadSize)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF {
		t.Fatal(err)
	}
	return head[:n]
}

// OpenMatched checks that match claims the file at path and opens it with
// open, failing t otherwise; the source is closed when t ends.
func OpenMatched(t testing.TB, path string, match func(path string, head []byte) bool,
	open func(ctx context.Context, path string) (loader.Source, error)) loader.Source {
	t.Helper()
	if !match(path, Head(t, path)) {
		t.Fatalf("%s: not matched", path)
	}
	src, err := open(context.Background(), path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	t.Cleanup(func() { src.Close() })
	return src
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

// BadFile opens the damaged file at path with open and, when it opens and
// readToo is set, reads all of level 0 (encoded data is checked as it is
// decoded): one of the two must fail, with an error that ClearError
// accepts for want, an UnsupportedError when unsupp is set (else a
// FormatError), which does not name path's folder.
func BadFile(t *testing.T, path string, open func(ctx context.Context, path string) (loader.Source, error),
	readToo, unsupp bool, want string) {
	t.Helper()
	ctx := context.Background()
	src, err := open(ctx, path)
	if err == nil {
		if !readToo {
			src.Close()
			t.Fatal("opened a damaged file")
		}
		_, err = loader.ReadAll(ctx, src, 0, 1<<30)
		src.Close()
		if err == nil {
			t.Fatal("read a damaged file")
		}
	}
	var ue *loader.UnsupportedError
	if errors.As(err, &ue) != unsupp {
		t.Errorf("error %T %v: unsupported is %v, want %v", err, err, !unsupp, unsupp)
	}
	if ClearError(t, filepath.Base(path), err, want) && strings.Contains(err.Error(), filepath.Dir(path)) {
		t.Errorf("error %q names the folder", err)
	}
}

// ReadFile returns the bytes of the file at path, failing t on error.
func ReadFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// WriteFile writes b to the file at path, failing t on error.
func WriteFile(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Want is what a reader's test expects of a file: its metadata (nil
// Spacing, Units and Translation stand for the defaults: 1, "" and 0 on
// every axis) and the samples of level 0, as loader.ReadAll gives them.
type Want struct {
	Format, Axes string
	Shape        []int
	DType        loader.DType
	Spacing      []float64
	Units        []string
	Translation  []float64
	DataFiles    []string // Meta.DataFiles
	Samples      []byte
}

// Expect opens the file at path with loader.Open and checks its metadata
// and every sample of level 0 against w.
func Expect(t *testing.T, path string, w Want) {
	t.Helper()
	src, err := loader.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	m := src.Meta()
	if m.Format != w.Format || m.Axes != w.Axes || !slices.Equal(m.Shape, w.Shape) || m.DType != w.DType {
		t.Fatalf("meta %s %q %v %v, want %s %q %v %v", m.Format, m.Axes, m.Shape, m.DType, w.Format, w.Axes, w.Shape, w.DType)
	}
	n := len(w.Axes)
	spacing, units, trans := w.Spacing, w.Units, w.Translation
	if spacing == nil {
		spacing = slices.Repeat([]float64{1}, n)
	}
	if units == nil {
		units = make([]string, n)
	}
	if trans == nil {
		trans = make([]float64, n)
	}
	if !slices.Equal(m.Spacing, spacing) || !slices.Equal(m.Units, units) || !slices.Equal(m.Levels[0].Translation, trans) {
		t.Errorf("spacing %v units %q translation %v, want %v %q %v", m.Spacing, m.Units, m.Levels[0].Translation, spacing, units, trans)
	}
	if !slices.Equal(m.DataFiles, w.DataFiles) {
		t.Errorf("data files %q, want %q", m.DataFiles, w.DataFiles)
	}
	got, err := loader.ReadAll(context.Background(), src, 0, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, w.Samples) {
		t.Fatalf("samples differ from the reference (%d vs %d bytes)", len(got), len(w.Samples))
	}
}

// numpyScript makes a random array with numpy of the JSON spec's dtype and
// shape (the presented axes, slowest first), transposes it by "perm" into
// the file's storage order, and writes its bytes in the spec's byte order
// ("endian"), after "pad" zero bytes, in the spec's encoding (raw, zlib,
// gzip, bzip2, ascii or hex) to argv[2]/data.bin, and the array in
// presented C order, little-endian, to argv[2]/expected.bin.
const numpyScript = `
import sys, json, zlib, gzip, bz2, numpy as np
spec = json.loads(sys.argv[1]); out = sys.argv[2]
dt = np.dtype(spec["dtype"])
rng = np.random.default_rng(3)
shape = spec["shape"]
if dt.kind == "f":
    arr = (rng.standard_normal(shape) * 100).astype(dt)
else:
    info = np.iinfo(dt)
    arr = rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dt)
open(out + "/expected.bin", "wb").write(arr.astype(dt.newbyteorder("<")).tobytes())
stored = np.ascontiguousarray(arr.transpose(spec.get("perm", list(range(len(shape))))))
raw = stored.astype(dt.newbyteorder(spec.get("endian", "<"))).tobytes()
raw = bytes(spec.get("pad", 0)) + raw
enc = spec.get("encoding", "raw")
if enc == "zlib":
    data = zlib.compress(raw)
elif enc == "gzip":
    data = gzip.compress(raw)
elif enc == "bzip2":
    data = bz2.compress(raw)
elif enc == "ascii":
    vals = [str(v) for v in stored.ravel()]
    data = "\n".join(" ".join(vals[i:i + 7]) for i in range(0, len(vals), 7)).encode() + b"\n"
elif enc == "hex":
    h = raw.hex()
    data = "\n".join(h[i:i + 60] for i in range(0, len(h), 60)).encode()
else:
    data = raw
open(out + "/data.bin", "wb").write(data)
`

// NumpyData makes a random array with numpy as the JSON spec says (see
// numpyScript) in dir, and returns the bytes a file stores (data) and the
// array a reader should present (want: C order, little-endian).
func NumpyData(t *testing.T, spec, dir string) (data, want []byte) {
	t.Helper()
	testtool.RequirePython(t, "numpy")
	testtool.RunPython(t, numpyScript, spec, dir)
	return ReadFile(t, filepath.Join(dir, "data.bin")), ReadFile(t, filepath.Join(dir, "expected.bin"))
}
