package levels

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"vastview/loader"
)

// blockingSource's reads wait until their context ends; it notes a read
// still running, or starting, once it is closed.
type blockingSource struct {
	*hashSource
	entered  chan struct{}
	mu       sync.Mutex
	active   int
	closed   bool
	violated atomic.Bool
}

func (s *blockingSource) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	s.mu.Lock()
	if s.closed {
		s.violated.Store(true)
	}
	s.active++
	s.mu.Unlock()
	s.entered <- struct{}{}
	<-ctx.Done()
	s.mu.Lock()
	s.active--
	s.mu.Unlock()
	return ctx.Err()
}

func (s *blockingSource) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active > 0 {
		s.violated.Store(true)
	}
	s.closed = true
	return nil
}

// TestCloseStopsBuildsAndReadsBeforeClosingTheSource closes a pyramid while
// a build and a reader wait on the source: Close ends both, and only then
// closes the source.
func TestCloseStopsBuildsAndReadsBeforeClosingTheSource(t *testing.T) {
	src := &blockingSource{hashSource: newHash("ZYX", []int{8, 64, 64}, []int{1, 64, 64}), entered: make(chan struct{}, 64)}
	p, err := Open(src, Options{CacheBytes: 1 << 20, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	built, read := make(chan error, 1), make(chan error, 1)
	go func() { built <- p.Build(context.Background(), 1) }()
	go func() {
		read <- p.ReadChunk(context.Background(), 0, []int{7, 0, 0}, make([]byte, p.Levels()[0].ChunkBytes(loader.Uint16)))
	}()
	<-src.entered
	<-src.entered
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-built; err == nil {
		t.Error("the build of a closed pyramid succeeded")
	}
	if err := <-read; err == nil {
		t.Error("a read of a closed pyramid succeeded")
	}
	if src.violated.Load() {
		t.Error("the source was read while or after it was closed")
	}
	if err := p.Build(context.Background(), 1); err == nil {
		t.Error("a build after Close succeeded")
	}
}

// TestBytesReadSeparatesViewsFromBackgroundWork reads chunks for a view
// and builds the levels: each is counted on its own side, in bytes.
func TestBytesReadSeparatesViewsFromBackgroundWork(t *testing.T) {
	src := newHash("ZYX", []int{4, 512, 512}, []int{1, 512, 512})
	p, err := Open(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	chunk := int64(512 * 512 * 2)
	buf := make([]byte, chunk)
	if err := p.ReadChunk(context.Background(), 0, []int{1, 0, 0}, buf); err != nil {
		t.Fatal(err)
	}
	if view, bg := p.BytesRead(); view != chunk || bg != 0 {
		t.Fatalf("after one view read: view %d background %d, want %d and 0", view, bg, chunk)
	}
	if err := p.Build(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if view, bg := p.BytesRead(); view != chunk || bg < 3*chunk {
		t.Errorf("after the build: view %d background %d, want %d and at least %d", view, bg, chunk, 3*chunk)
	}
}

func TestSetCacheBytesEvictsDownToTheNewBudget(t *testing.T) {
	src := newHash("ZYX", []int{8, 64, 64}, []int{1, 64, 64})
	chunk := int64(64 * 64 * 2)
	p, err := Open(src, Options{CacheBytes: 8 * chunk})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for z := range 8 {
		p.Request(Visible, 1, 0, []int{z, 0, 0})
	}
	events, unsub := p.Subscribe()
	defer unsub()
	for p.CacheUsed() < 8*chunk {
		<-events
	}
	p.SetCacheBytes(3 * chunk)
	if used := p.CacheUsed(); used != 3*chunk {
		t.Errorf("%d bytes cached after a budget of %d", used, 3*chunk)
	}
}
