package levels

import (
	"context"
	"encoding/binary"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"vastview/loader"
)

// liveSource is a hashSource whose listed chunks are not stored yet, as in
// a Zarr store another program is still writing.
type liveSource struct {
	*hashSource
	mu     sync.Mutex
	absent map[string]bool
}

const liveFill = 7

func (s *liveSource) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	s.mu.Lock()
	missing := s.absent[IdxKey(idx)]
	s.mu.Unlock()
	if !missing {
		return s.hashSource.ReadChunk(ctx, level, idx, dst)
	}
	for i := 0; i+1 < len(dst); i += 2 {
		binary.LittleEndian.PutUint16(dst[i:], liveFill)
	}
	return loader.ErrNotStored
}

func (s *liveSource) store(idx []int) {
	s.mu.Lock()
	delete(s.absent, IdxKey(idx))
	s.mu.Unlock()
}

// openLive opens a pyramid over a hash volume whose listed chunks are not
// stored yet, with a disk cache of its own.
func openLive(t *testing.T, shape, chunk []int, absent ...string) (*Pyramid, *liveSource) {
	t.Helper()
	src := &liveSource{hashSource: newHash("ZYX", shape, chunk), absent: map[string]bool{}}
	for _, a := range absent {
		src.absent[a] = true
	}
	d, _ := OpenDisk(t.TempDir(), 1<<30)
	p, err := Open(src, Options{CacheBytes: 64 << 20, Disk: d, Identity: loader.Identity{Path: "/live.zarr", Size: 1, MTime: 1}})
	if err != nil || p.DiskError() != nil {
		t.Fatal(err, p.DiskError())
	}
	t.Cleanup(func() { p.Close() })
	return p, src
}

func TestChunksNotStoredYetAreReadAgain(t *testing.T) {
	shape := []int{4, 512, 512}
	p, src := openLive(t, shape, []int{1, 256, 256}, "0,0,0")
	ctx := context.Background()
	ref := refLevels(shape, allValues(shape), p.reduce)
	c1 := []int{0, 0, 0}
	buf := make([]byte, p.Levels()[1].ChunkBytes(loader.Uint16))

	// The level-1 chunk over the missing tile is computed from its fill
	// value, shown, and kept out of the disk cache.
	if err := p.ReadChunk(ctx, 1, c1, buf); !loader.IsNotStored(err) {
		t.Fatalf("level 1 over a missing chunk: err %v, want ErrNotStored", err)
	}
	if p.Get(1, c1) == nil || p.Get(0, c1) == nil {
		t.Fatal("placeholders are not shown")
	}
	if p.disk.Load().has(1, c1) {
		t.Error("a chunk computed from a placeholder went to the disk cache")
	}
	if n := p.NotStored(); n != 2 {
		t.Errorf("NotStored = %d, want 2 (the tile and the chunk over it)", n)
	}

	// The tile is written; Refresh makes the next read pick it up.
	src.store(c1)
	if n := p.Refresh(); n != 2 {
		t.Errorf("Refresh forgot %d chunks, want 2", n)
	}
	if p.Get(1, c1) != nil {
		t.Error("a refreshed placeholder is still served")
	}
	if err := p.ReadChunk(ctx, 1, c1, buf); err != nil {
		t.Fatal(err)
	}
	got, err := loader.ReadAll(ctx, p, 1, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range ref[1] {
		if binary.LittleEndian.Uint16(got[2*i:]) != w {
			t.Fatalf("level 1 sample %d = %d after the tile arrived, want %d", i, binary.LittleEndian.Uint16(got[2*i:]), w)
		}
	}
	if !p.disk.Load().has(1, c1) {
		t.Error("the real chunk did not reach the disk cache")
	}
}

// TestPlaceholdersExpireSoARevisitReadsAgain runs in a synctest bubble,
// whose fake clock moves only when the test sleeps and everything else is
// blocked: the placeholder's age is exactly the time slept.
func TestPlaceholdersExpireSoARevisitReadsAgain(t *testing.T) {
	synctest.Test(t, testPlaceholdersExpire)
}

func testPlaceholdersExpire(t *testing.T) {
	hs := newHash("ZYX", []int{2, 256, 256}, []int{1, 256, 256})
	src := &liveSource{hashSource: hs, absent: map[string]bool{"1,0,0": true}}
	const ttl = 5 * time.Second
	p, err := Open(src, Options{PlaceholderTTL: ttl})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	idx := []int{1, 0, 0}
	ch, stop := p.Subscribe()
	defer stop()
	p.Request(Visible, 1, 0, idx)
	<-ch
	if b := p.Get(0, idx); b == nil || binary.LittleEndian.Uint16(b) != liveFill {
		t.Fatal("the placeholder is not served")
	}
	src.store(idx)
	time.Sleep(ttl * 3 / 4)
	if b := p.Get(0, idx); b == nil || binary.LittleEndian.Uint16(b) != liveFill {
		t.Fatal("the placeholder expired before its time")
	}
	time.Sleep(ttl / 2)
	if p.Get(0, idx) != nil {
		t.Fatal("an expired placeholder is still served")
	}
	p.Request(Visible, 2, 0, idx)
	<-ch
	want := make([]byte, len(p.Get(0, idx)))
	hs.ReadChunk(context.Background(), 0, idx, want)
	if !slices.Equal(p.Get(0, idx), want) {
		t.Error("the revisit did not read the chunk that appeared")
	}
	if p.NotStored() != 0 {
		t.Errorf("NotStored = %d after the chunk arrived", p.NotStored())
	}
}

func TestBuildOverAStoreStillBeingWrittenKeepsPlaceholdersOffDisk(t *testing.T) {
	shape := []int{24, 300, 280}
	p, _ := openLive(t, shape, []int{1, 300, 280}, "5,0,0") // whole planes: the streaming build
	if err := p.Build(context.Background(), 2); err != nil {
		t.Fatalf("build over a missing plane: %v", err)
	}
	for _, lp := range p.Progress() {
		if lp.Done != lp.Total {
			t.Errorf("level %d: %d of %d chunks counted", lp.Level, lp.Done, lp.Total)
		}
	}
	over := []int{0, 0, 0} // level 1 chunks hold 4 planes: 8 of level 0
	if p.disk.Load().has(1, over) {
		t.Error("a chunk computed over the missing plane went to the disk cache")
	}
	if !p.disk.Load().has(1, []int{1, 0, 0}) {
		t.Error("chunks over stored planes are not in the disk cache")
	}
}
