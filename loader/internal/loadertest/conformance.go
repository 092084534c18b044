package loadertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"vastview/base/nd"
	"vastview/loader"
)

// How much of each level the conformance suite reads: chunks in grid order
// while they stay within both budgets, then every corner of the grid (where
// chunks are cut by the array's edge).
const (
	suiteBytes  = 1 << 24
	suiteChunks = 64
)

// Opener opens the source a conformance run checks, afresh on each call.
type Opener func(ctx context.Context) (loader.Source, error)

// ConformanceFile runs Conformance over the file (folder, pattern) at path,
// which may end in a series selector ("#2"), as the registered format
// called format reads it: the format must claim the path (Format.Claims)
// and open it.
func ConformanceFile(t *testing.T, format, path string) {
	t.Helper()
	var f *loader.Format
	for _, g := range loader.Formats() {
		if g.Name == format {
			f = &g
			break
		}
	}
	if f == nil {
		t.Fatalf("no registered format %q", format)
	}
	path, sel := loader.SplitSelector(path)
	head := Head(t, path)
	if !f.Claims(path, head) {
		t.Fatalf("format %q does not claim %s", format, path)
	}
	Conformance(t, format, func(ctx context.Context) (loader.Source, error) {
		src, err := f.Open(ctx, path)
		if err != nil {
			return nil, err
		}
		return loader.OpenSelected(ctx, src, sel)
	})
}

// ConformanceGlob runs ConformanceFile over each file that matches
// pattern, in a subtest named after it; there must be one.
func ConformanceGlob(t *testing.T, format, pattern string) {
	t.Helper()
	paths, _ := filepath.Glob(pattern)
	if len(paths) == 0 {
		t.Fatalf("no files %s", pattern)
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) { ConformanceFile(t, format, p) })
	}
}

// Conformance checks that the sources open returns keep the loader.Source
// contract, as every format must:
//
//   - Meta is valid; level 0 has Meta's shape, every level the same axes
//     and no more samples per axis than level 0;
//   - every chunk read (see suiteBytes) succeeds or is reported as not
//     stored; the samples beyond the array's edge are zero, and a second
//     read gives the same bytes;
//   - a context cancelled before the read, or after any number of the
//     reader's looks at it during the read, gives the context's error or
//     the right bytes, never another error or wrong bytes;
//   - reads from many goroutines at once give what reads one at a time do;
//   - a bad level, chunk index or buffer size is an error, not a panic;
//   - Close twice does not panic, and a read after Close is an error;
//   - for a file of several series, each series opens with the shape its
//     entry in Meta.Series gives, and two series open at once read as each
//     does alone, also after the source that opened them is closed.
//
// format names the format in the registry (or "demo"); the check that
// every registered format runs this suite looks for it.
func Conformance(t *testing.T, format string, open Opener) {
	t.Helper()
	ctx := context.Background()
	src, err := open(ctx)
	if err != nil {
		t.Fatalf("%s: open: %v", format, err)
	}
	defer src.Close()
	m := src.Meta()
	t.Run("meta", func(t *testing.T) { checkMeta(t, m) })
	if t.Failed() {
		return
	}
	ref := readRef(t, src, m)
	t.Run("again", func(t *testing.T) { checkAgain(t, src, m, ref) })
	t.Run("concurrent", func(t *testing.T) { checkConcurrent(t, src, m, ref) })
	t.Run("bad-index", func(t *testing.T) { checkBadIndex(t, src, m) })
	t.Run("cancel", func(t *testing.T) { checkCancel(t, open, m, ref) })
	t.Run("close", func(t *testing.T) { checkClose(t, open, m) })
	if len(m.Series) > 1 {
		t.Run("series", func(t *testing.T) {
			so, ok := src.(loader.SeriesOpener)
			if !ok {
				t.Fatalf("a %T lists %d series but cannot open them", src, len(m.Series))
			}
			checkSeries(t, so, open)
		})
	}
}

// chunkRef is one chunk read: where, and what it held (nil when not stored).
type chunkRef struct {
	level int
	idx   []int
	data  []byte
}

func (c chunkRef) String() string { return fmt.Sprintf("level %d chunk %v", c.level, c.idx) }

// chunksOf lists the chunks of m the suite reads: per level, those in grid
// order within the budgets, then the grid's corners.
func chunksOf(m *loader.Meta) []chunkRef {
	var out []chunkRef
	for li := range m.Levels {
		l := &m.Levels[li]
		cb := l.ChunkBytes(m.DType)
		if cb > suiteBytes {
			continue
		}
		grid := l.Grid()
		seen := map[string]bool{}
		add := func(idx []int) {
			k := fmt.Sprint(idx)
			if !seen[k] {
				seen[k] = true
				out = append(out, chunkRef{level: li, idx: append([]int(nil), idx...)})
			}
		}
		idx := make([]int, len(grid))
		for n := 1; ; n++ {
			add(idx)
			if !nd.Next(idx, grid) || n >= suiteChunks || (n+1)*cb > suiteBytes {
				break
			}
		}
		// Every corner: each axis at its first or last chunk.
		for c := 0; c < 1<<len(grid); c++ {
			for i := range idx {
				idx[i] = 0
				if c>>i&1 == 1 {
					idx[i] = grid[i] - 1
				}
			}
			add(idx)
		}
	}
	return out
}

// checkMeta checks m against itself.
func checkMeta(t *testing.T, m *loader.Meta) {
	if err := m.Validate(); err != nil {
		t.Fatalf("invalid metadata: %v", err)
	}
	l0 := &m.Levels[0]
	for i := range m.Shape {
		if l0.Shape[i] != m.Shape[i] {
			t.Errorf("level 0 shape %v, meta shape %v", l0.Shape, m.Shape)
			break
		}
	}
	for li := range m.Levels {
		l := &m.Levels[li]
		for i := range l.Shape {
			if l.Shape[i] > m.Shape[i] {
				t.Errorf("level %d shape %v exceeds level 0's %v", li, l.Shape, m.Shape)
				break
			}
		}
	}
	if len(m.Series) > 0 {
		s := m.Series[m.SeriesIndex]
		if s.Axes != m.Axes || fmt.Sprint(s.Shape) != fmt.Sprint(m.Shape) || s.DType != m.DType {
			t.Errorf("series entry %d says %s %v %v, the source is %s %v %v",
				m.SeriesIndex, s.Axes, s.Shape, s.DType, m.Axes, m.Shape, m.DType)
		}
	}
}

// readRef reads the suite's chunks of src one at a time, checking that
// samples beyond the array's edge are zero.
func readRef(t *testing.T, src loader.Source, m *loader.Meta) []chunkRef {
	t.Helper()
	ctx := context.Background()
	ref := chunksOf(m)
	for i := range ref {
		c := &ref[i]
		l := &m.Levels[c.level]
		buf := make([]byte, l.ChunkBytes(m.DType))
		fill(buf, 0xA5)
		err := src.ReadChunk(ctx, c.level, c.idx, buf)
		if loader.IsNotStored(err) {
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		if at := beyondEdge(m, c.level, c.idx, buf); at >= 0 {
			t.Errorf("%v: byte %d, beyond the array's edge, is %#x, want 0", c, at, buf[at])
		}
		c.data = buf
	}
	return ref
}

// beyondEdge returns the offset of the first nonzero byte of chunk idx of
// level li, read into buf, that lies beyond the array's edge, or -1.
func beyondEdge(m *loader.Meta, li int, idx []int, buf []byte) int {
	l := &m.Levels[li]
	ext := make([]int, len(idx))
	cut := false
	for i := range idx {
		ext[i] = min(l.Chunk[i], l.Shape[i]-idx[i]*l.Chunk[i])
		cut = cut || ext[i] < l.Chunk[i]
	}
	if !cut {
		return -1
	}
	es := m.DType.Size()
	pos := make([]int, len(idx))
	for n := 0; ; n++ {
		inside := true
		for i := range pos {
			inside = inside && pos[i] < ext[i]
		}
		if !inside {
			for b := n * es; b < (n+1)*es; b++ {
				if buf[b] != 0 {
					return b
				}
			}
		}
		if !nd.Next(pos, l.Chunk) {
			return -1
		}
	}
}

func fill(b []byte, v byte) {
	for i := range b {
		b[i] = v
	}
}

// readCheck reads c from src into a buffer filled with v and compares it
// with c.data, returning what differs.
func readCheck(ctx context.Context, src loader.Source, m *loader.Meta, c chunkRef, v byte) error {
	buf := make([]byte, m.Levels[c.level].ChunkBytes(m.DType))
	fill(buf, v)
	err := src.ReadChunk(ctx, c.level, c.idx, buf)
	if c.data == nil {
		if !loader.IsNotStored(err) {
			return fmt.Errorf("%v: %v, first read said not stored", c, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("%v: %w", c, err)
	}
	if !bytes.Equal(buf, c.data) {
		return fmt.Errorf("%v: differs from the first read", c)
	}
	return nil
}

// checkAgain reads every chunk again, into a buffer of other bytes.
func checkAgain(t *testing.T, src loader.Source, m *loader.Meta, ref []chunkRef) {
	for i := len(ref) - 1; i >= 0; i-- {
		if err := readCheck(context.Background(), src, m, ref[i], 0x5A); err != nil {
			t.Error(err)
		}
	}
}

// checkConcurrent reads every chunk from many goroutines at once, each
// starting at another place in the list.
func checkConcurrent(t *testing.T, src loader.Source, m *loader.Meta, ref []chunkRef) {
	const workers = 8
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range ref {
				c := ref[(k+w*len(ref)/workers)%len(ref)]
				if err := readCheck(context.Background(), src, m, c, byte(w)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// checkBadIndex reads outside the levels and grids, and into buffers of
// the wrong size: each must be an error.
func checkBadIndex(t *testing.T, src loader.Source, m *loader.Meta) {
	l := &m.Levels[0]
	n := len(l.Shape)
	good := make([]int, n)
	buf := make([]byte, l.ChunkBytes(m.DType))
	try := func(what string, level int, idx []int, dst []byte) {
		t.Helper()
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s: panic: %v", what, p)
				}
			}()
			if err := src.ReadChunk(context.Background(), level, idx, dst); err == nil {
				t.Errorf("%s: no error", what)
			}
		}()
	}
	try("level -1", -1, good, buf)
	try("level past the last", len(m.Levels), good, buf)
	try("index with an axis too few", 0, good[:n-1], buf)
	try("index with an axis too many", 0, append(append([]int(nil), good...), 0), buf)
	grid := l.Grid()
	for i := range n {
		idx := append([]int(nil), good...)
		idx[i] = -1
		try(fmt.Sprintf("index -1 on axis %c", m.Axes[i]), 0, idx, buf)
		idx[i] = grid[i]
		try(fmt.Sprintf("index past the grid on axis %c", m.Axes[i]), 0, idx, buf)
	}
	try("buffer a byte short", 0, good, buf[:len(buf)-1])
	try("buffer a byte long", 0, good, append(buf, 0))
	try("nil buffer", 0, good, nil)
}

// countdownCtx is a context that ends (as cancelled) at the n-th time the
// reader looks at it (Done or Err): a cancellation at that point of the
// read, found without timing.
type countdownCtx struct {
	context.Context
	left atomic.Int64
	once sync.Once
	done chan struct{}
}

func newCountdown(n int) *countdownCtx {
	c := &countdownCtx{Context: context.Background(), done: make(chan struct{})}
	c.left.Store(int64(n))
	return c
}

func (c *countdownCtx) look() {
	if c.left.Add(-1) < 0 {
		c.end()
	}
}

func (c *countdownCtx) end() { c.once.Do(func() { close(c.done) }) }

// Done implements context.Context.
func (c *countdownCtx) Done() <-chan struct{} { c.look(); return c.done }

// Err implements context.Context.
func (c *countdownCtx) Err() error {
	c.look()
	select {
	case <-c.done:
		return context.Canceled
	default:
		return nil
	}
}

// checkCancel reads the last chunk of level 0 (or the last the suite
// reads) from a newly opened source, with a context that ends at its n-th
// look, for n = 0, 1, ... until a read ends before the context does. Each
// read must give context.Canceled or the right bytes. A read whose
// context has ended must also end: a reader that waits on something else
// hangs the test.
func checkCancel(t *testing.T, open Opener, m *loader.Meta, ref []chunkRef) {
	var c chunkRef
	for _, r := range ref {
		if r.data != nil && (c.data == nil || r.level == 0) {
			c = r
		}
	}
	if c.data == nil {
		t.Skip("no chunk stored")
	}
	src, err := open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	buf := make([]byte, len(c.data))
	if err := src.ReadChunk(ended, c.level, c.idx, buf); !errors.Is(err, context.Canceled) {
		t.Errorf("%v: context ended before the read: %v, want context.Canceled", c, err)
	}
	src.Close()
	const maxLooks = 200
	for n := 1; n < maxLooks; n++ {
		src, err := open(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ctx := newCountdown(n)
		clear(buf)
		err = src.ReadChunk(ctx, c.level, c.idx, buf)
		ctx.end() // frees any goroutine a derived context started
		src.Close()
		switch {
		case err == nil:
			if !bytes.Equal(buf, c.data) {
				t.Fatalf("%v: context ended at look %d: no error, but other bytes", c, n)
			}
			if ctx.left.Load() >= 0 {
				return // the read ended before the context did
			}
		case !errors.Is(err, context.Canceled):
			t.Fatalf("%v: context ended at look %d: %v, want context.Canceled", c, n, err)
		}
	}
}

// checkClose closes a source twice, then reads from it.
func checkClose(t *testing.T, open Opener, m *loader.Meta) {
	src, err := open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	l := &m.Levels[0]
	buf := make([]byte, l.ChunkBytes(m.DType))
	idx := make([]int, len(l.Shape))
	noPanic(t, "first Close", func() { src.Close() })
	noPanic(t, "second Close", func() { src.Close() })
	noPanic(t, "read after Close", func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := src.ReadChunk(ctx, 0, idx, buf); err == nil {
			t.Errorf("read after Close: no error")
		} else if ctx.Err() != nil {
			t.Errorf("read after Close hangs")
		}
	})
	noPanic(t, "Meta after Close", func() { src.Meta() })
}

func noPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Errorf("%s: panic: %v", what, p)
		}
	}()
	f()
}

// checkSeries opens the series of a file that holds several: each as its
// entry says, and two at once reading independently of each other and of
// the source that opened them.
func checkSeries(t *testing.T, so loader.SeriesOpener, open Opener) {
	ctx := context.Background()
	list := so.Meta().Series
	const most = 4
	refs := make([][]chunkRef, min(len(list), most))
	for i := range refs {
		s, err := so.OpenSeries(ctx, i)
		if err != nil {
			t.Fatalf("series %d: %v", i, err)
		}
		sm := s.Meta()
		e := list[i]
		if sm.SeriesIndex != i || sm.Axes != e.Axes || fmt.Sprint(sm.Shape) != fmt.Sprint(e.Shape) || sm.DType != e.DType {
			t.Errorf("series %d opens as #%d %s %v %v, its entry says %s %v %v",
				i, sm.SeriesIndex, sm.Axes, sm.Shape, sm.DType, e.Axes, e.Shape, e.DType)
		}
		checkMeta(t, sm)
		if t.Failed() {
			s.Close()
			return
		}
		refs[i] = readRef(t, s, sm)
		s.Close()
	}
	// Two at once, opened from a source closed before they read.
	base, err := open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bo, ok := base.(loader.SeriesOpener)
	if !ok {
		base.Close()
		t.Fatalf("reopened source is not a SeriesOpener")
	}
	a, b := len(refs)-1, len(refs)-2
	sa, err := bo.OpenSeries(ctx, a)
	if err != nil {
		t.Fatalf("series %d: %v", a, err)
	}
	defer sa.Close()
	sb, err := bo.OpenSeries(ctx, b)
	if err != nil {
		t.Fatalf("series %d: %v", b, err)
	}
	base.Close()
	ma, mb := sa.Meta(), sb.Meta()
	ra, rb := refs[a], refs[b]
	for k := 0; k < max(len(ra), len(rb)); k++ {
		if k < len(ra) {
			if err := readCheck(ctx, sa, ma, ra[k], 1); err != nil {
				t.Errorf("series %d beside %d: %v", a, b, err)
			}
		}
		if k < len(rb) {
			if err := readCheck(ctx, sb, mb, rb[k], 2); err != nil {
				t.Errorf("series %d beside %d: %v", b, a, err)
			}
		}
	}
	// One closed, the other reads on.
	sb.Close()
	for _, c := range ra {
		if err := readCheck(ctx, sa, ma, c, 3); err != nil {
			t.Errorf("series %d after %d closed: %v", a, b, err)
		}
	}
}
