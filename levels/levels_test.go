package levels

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"vastview/base/nd"
	"vastview/base/testtool"
	"vastview/loader"
)

// hashSource is a uint16 array whose samples are a hash of their position,
// the same in every process; reads can be held at a gate and are counted.
type hashSource struct {
	meta  *loader.Meta
	reads atomic.Int64
	gate  chan struct{} // when set, every read waits for a token
}

// Its Z step is a quarter of the others', so that its levels halve Z
// (alone while Z is the finer) even where Y and X fit in a chunk.
func newHash(axes string, shape, chunk []int) *hashSource {
	spacing := make([]float64, len(axes))
	for i := range spacing {
		spacing[i] = 1
		if axes[i] == 'Z' {
			spacing[i] = 0.25
		}
	}
	return &hashSource{meta: loader.NewMeta("hash", axes, shape, loader.Uint16, chunk, spacing, nil)}
}

func value(off int) uint16 {
	x := uint32(off)*2654435761 + 12345
	x ^= x >> 15
	return uint16(x)
}

func (s *hashSource) Meta() *loader.Meta { return s.meta }
func (s *hashSource) Close() error       { return nil }
func (s *hashSource) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if s.gate != nil {
		select {
		case <-s.gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	s.reads.Add(1)
	l := s.meta.Levels[0]
	n := len(idx)
	clear(dst)
	pos := make([]int, n)
	for k := 0; k < l.ChunkSamples(); k++ {
		rem := k
		for i := n - 1; i >= 0; i-- {
			pos[i] = rem % l.Chunk[i]
			rem /= l.Chunk[i]
		}
		off, inside := 0, true
		for i := 0; i < n; i++ {
			p := idx[i]*l.Chunk[i] + pos[i]
			inside = inside && p < l.Shape[i]
			off = off*l.Shape[i] + p
		}
		if inside {
			binary.LittleEndian.PutUint16(dst[2*k:], value(off))
		}
	}
	return nil
}

// refLevels computes every level by the plain rule: each output sample is
// the rounded-half-up mean of the input samples of its block that exist.
func refLevels(shape []int, data []uint16, reduce [][]bool) [][]uint16 {
	out := [][]uint16{data}
	for _, red := range reduce {
		n := len(shape)
		next := make([]int, n)
		for i := range shape {
			next[i] = shape[i]
			if red[i] {
				next[i] = (shape[i] + 1) / 2
			}
		}
		res := make([]uint16, nd.Product(next))
		pos := make([]int, n)
		for o := range res {
			rem := o
			for i := n - 1; i >= 0; i-- {
				pos[i] = rem % next[i]
				rem /= next[i]
			}
			var sum, cnt uint64
			var walk func(d, off int)
			walk = func(d, off int) {
				if d == n {
					sum += uint64(data[off])
					cnt++
					return
				}
				f := 1
				if red[d] {
					f = 2
				}
				for j := 0; j < f; j++ {
					if p := pos[d]*f + j; p < shape[d] {
						walk(d+1, off*shape[d]+p)
					}
				}
			}
			walk(0, 0)
			res[o] = uint16((2*sum + cnt) / (2 * cnt))
		}
		out = append(out, res)
		data, shape = res, next
	}
	return out
}

func allValues(shape []int) []uint16 {
	d := make([]uint16, nd.Product(shape))
	for i := range d {
		d[i] = value(i)
	}
	return d
}

func checkLevels(t *testing.T, p *Pyramid, ref [][]uint16) {
	t.Helper()
	for k, want := range ref {
		got, err := loader.ReadAll(context.Background(), p, k, 1<<30)
		if err != nil {
			t.Fatalf("level %d: %v", k, err)
		}
		if len(got) != 2*len(want) {
			t.Fatalf("level %d: %d bytes, want %d", k, len(got), 2*len(want))
		}
		for i, w := range want {
			if g := binary.LittleEndian.Uint16(got[2*i:]); g != w {
				t.Fatalf("level %d sample %d: %d, want %d", k, i, g, w)
			}
		}
	}
}

func TestGeometryFollowsNGFF(t *testing.T) {
	m := loader.NewMeta("x", "ZYX", []int{500, 2048, 2048}, loader.Uint16, []int{1, 2048, 2048},
		[]float64{2, 0.5, 0.5}, []string{"micrometer", "micrometer", "micrometer"})
	m.Levels[0].Translation = []float64{10, 0, 0}
	lv, red := planLevels(m)
	if len(lv) != 4 || len(red) != 3 {
		t.Fatalf("%d levels, want 4", len(lv))
	}
	// Level 3: factors Z 2, Y 8, X 8.
	if l := lv[3]; !slices.Equal(l.Scale, []float64{4, 4, 4}) || !slices.Equal(l.Translation, []float64{10 + (2-1)/2.0*2, 1.75, 1.75}) {
		t.Errorf("level 3 scale %v translation %v", l.Scale, l.Translation)
	}
	if l := lv[1]; !slices.Equal(l.Translation, []float64{10, 0.25, 0.25}) {
		t.Errorf("level 1 translation %v", l.Translation)
	}
}

// TestLevelsMoveTowardCubicSamples checks the levels planned over stacks
// whose steps differ between axes: the finest axes are halved first, none
// is halved where that leaves the samples less cubic, except to give a
// long axis an overview; movies never reduce T.
func TestLevelsMoveTowardCubicSamples(t *testing.T) {
	um := []string{"micrometer", "micrometer", "micrometer"}
	for _, c := range []struct {
		name    string
		axes    string
		shape   []int
		spacing []float64
		units   []string
		shapes  [][]int // of every level
		scales  [][]float64
	}{
		{"fine XY within a chunk", "ZYX", []int{20, 256, 256}, []float64{2, 0.5, 0.5}, um,
			[][]int{{20, 256, 256}}, [][]float64{{2, 0.5, 0.5}}},
		{"fine XY", "ZYX", []int{20, 2048, 2048}, []float64{2, 0.5, 0.5}, um,
			[][]int{{20, 2048, 2048}, {20, 1024, 1024}, {20, 512, 512}, {10, 256, 256}},
			[][]float64{{2, 0.5, 0.5}, {2, 1, 1}, {2, 2, 2}, {4, 4, 4}}},
		{"Z in millimetres", "ZYX", []int{20, 2048, 2048}, []float64{0.002, 0.5, 0.5},
			[]string{"millimeter", "micrometer", "micrometer"},
			[][]int{{20, 2048, 2048}, {20, 1024, 1024}, {20, 512, 512}, {10, 256, 256}},
			[][]float64{{0.002, 0.5, 0.5}, {0.002, 1, 1}, {0.002, 2, 2}, {0.004, 4, 4}}},
		{"isotropic", "ZYX", []int{500, 2048, 2048}, nil, nil,
			[][]int{{500, 2048, 2048}, {250, 1024, 1024}, {125, 512, 512}, {63, 256, 256}},
			[][]float64{{1, 1, 1}, {2, 2, 2}, {4, 4, 4}, {8, 8, 8}}},
		{"fine Z", "ZYX", []int{300, 1024, 1024}, []float64{0.25, 1, 1}, um,
			[][]int{{300, 1024, 1024}, {150, 1024, 1024}, {75, 1024, 1024}, {38, 512, 512}, {19, 256, 256}},
			[][]float64{{0.25, 1, 1}, {0.5, 1, 1}, {1, 1, 1}, {2, 2, 2}, {4, 4, 4}}},
		{"tall stack of small planes", "ZYX", []int{10000, 256, 256}, []float64{2, 0.5, 0.5}, um,
			[][]int{{10000, 256, 256}, {5000, 256, 256}, {2500, 256, 256}, {1250, 256, 256}, {625, 256, 256}, {313, 256, 256}},
			[][]float64{{2, 0.5, 0.5}, {4, 0.5, 0.5}, {8, 0.5, 0.5}, {16, 0.5, 0.5}, {32, 0.5, 0.5}, {64, 0.5, 0.5}}},
		{"movie", "TYX", []int{100000, 600, 300}, nil, nil,
			[][]int{{100000, 600, 300}, {100000, 300, 150}}, [][]float64{{1, 1, 1}, {1, 2, 2}}},
		{"4-D", "TCZYX", []int{3, 2, 40, 600, 600}, []float64{5, 1, 0.5, 1, 1}, []string{"second", "", "micrometer", "micrometer", "micrometer"},
			[][]int{{3, 2, 40, 600, 600}, {3, 2, 20, 600, 600}, {3, 2, 10, 300, 300}, {3, 2, 5, 150, 150}},
			[][]float64{{5, 1, 0.5, 1, 1}, {5, 1, 1, 1, 1}, {5, 1, 2, 2, 2}, {5, 1, 4, 4, 4}}},
	} {
		m := loader.NewMeta("x", c.axes, c.shape, loader.Uint16, c.shape, c.spacing, c.units)
		lv, red := planLevels(m)
		var shapes [][]int
		var scales [][]float64
		for _, l := range lv {
			shapes, scales = append(shapes, l.Shape), append(scales, l.Scale)
		}
		if !slices.EqualFunc(shapes, c.shapes, slices.Equal) || !slices.EqualFunc(scales, c.scales, slices.Equal) || len(red) != len(lv)-1 {
			t.Errorf("%s: shapes %v scales %v, want %v %v", c.name, shapes, scales, c.shapes, c.scales)
		}
	}
	// A long strip keeps an overview along its long axis.
	strip := loader.NewMeta("x", "YX", []int{100, 1000000}, loader.Uint8, []int{100, 1000000}, nil, nil)
	lv, _ := planLevels(strip)
	if last := lv[len(lv)-1].Shape; last[0] != 100 || last[1] > chunkXY || len(lv) != 13 {
		t.Errorf("strip: %d levels, the last %v", len(lv), last)
	}
}

func TestComputedLevelsEqualThePlainRule(t *testing.T) {
	for _, c := range []struct {
		axes         string
		shape, chunk []int
	}{
		{"ZYX", []int{37, 301, 517}, []int{1, 301, 517}},
		{"ZYX", []int{19, 600, 257}, []int{5, 64, 100}},
		{"TYX", []int{3, 513, 300}, []int{1, 513, 300}},
		{"CZYX", []int{2, 33, 260, 270}, []int{1, 7, 100, 100}},
		{"CZYX", []int{2, 33, 260, 270}, []int{1, 1, 260, 270}},
	} {
		// On demand, chunk by chunk; then by a background build first.
		for _, build := range []bool{false, true} {
			src := newHash(c.axes, c.shape, c.chunk)
			p, err := Open(src, Options{CacheBytes: 64 << 20})
			if err != nil {
				t.Fatal(err)
			}
			if build {
				if err := p.Build(context.Background(), 2); err != nil {
					t.Fatal(err)
				}
			}
			checkLevels(t, p, refLevels(c.shape, allValues(c.shape), p.reduce))
			p.Close()
		}
	}
}

// TestCacheStaysWithinBudgetAndLoadsOnce runs in a synctest bubble, so that
// the eight loads are known to overlap: the first read is held at the gate
// until every load waits.
func TestCacheStaysWithinBudgetAndLoadsOnce(t *testing.T) {
	synctest.Test(t, testCacheStaysWithinBudgetAndLoadsOnce)
}

func testCacheStaysWithinBudgetAndLoadsOnce(t *testing.T) {
	src := newHash("ZYX", []int{40, 300, 300}, []int{1, 300, 300})
	src.gate = make(chan struct{})
	budget := int64(2 << 20)
	p, err := Open(src, Options{CacheBytes: budget})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var wg sync.WaitGroup
	buf := make([][]byte, 8)
	for i := range buf {
		buf[i] = make([]byte, p.Levels()[0].ChunkBytes(loader.Uint16))
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := p.load(context.Background(), 0, []int{3, 0, 0})
			if err != nil {
				t.Error(err)
			}
			buf[i] = b.data
		}()
	}
	synctest.Wait() // one read waits at the gate, every load waits for it
	close(src.gate)
	wg.Wait()
	if n := src.reads.Load(); n != 1 {
		t.Errorf("8 concurrent reads of one chunk read the source %d times", n)
	}
	if err := p.Build(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if used := p.CacheUsed(); used > budget {
		t.Errorf("cache holds %d bytes, budget %d", used, budget)
	}
	for _, lp := range p.Progress() {
		if lp.Done != lp.Total || lp.Total == 0 {
			t.Errorf("progress %+v", lp)
		}
	}
}

// TestRequestsArriveAndStaleOnesAreDropped runs in a synctest bubble, where
// synctest.Wait returns once every worker is blocked: on the gate, on an
// empty queue, or on the test.
func TestRequestsArriveAndStaleOnesAreDropped(t *testing.T) {
	synctest.Test(t, testRequestsArriveAndStaleOnesAreDropped)
}

func testRequestsArriveAndStaleOnesAreDropped(t *testing.T) {
	src := newHash("ZYX", []int{50, 64, 64}, []int{1, 64, 64})
	src.gate = make(chan struct{})
	p, err := Open(src, Options{CacheBytes: 64 << 20, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	events, cancel := p.Subscribe()
	defer cancel()
	// Generation 1 asks for planes 0..9; once the first read waits at the
	// gate, generation 2 asks for plane 40 and a background request comes.
	for z := 0; z < 10; z++ {
		p.Request(Visible, 1, 0, []int{z, 0, 0})
	}
	synctest.Wait()
	if n := p.Pending(); n != 10 {
		t.Fatalf("%d requests pending with one read at the gate, want 10", n)
	}
	p.Request(Visible, 2, 0, []int{40, 0, 0})
	p.Request(Background, 1, 0, []int{45, 0, 0})
	go func() {
		for range 2 {
			src.gate <- struct{}{}
		}
	}()
	var got []int
	for len(got) < 2 {
		select {
		case e := <-events:
			if e.Err != nil {
				t.Fatal(e.Err)
			}
			got = append(got, e.Idx[0])
		case <-time.After(10 * time.Second):
			t.Fatalf("arrivals so far %v", got)
		}
	}
	// The read running for gen 1 is cancelled and planes 1..9 of gen 1
	// are dropped: gen 2's plane comes first, then the background request.
	if got[0] != 40 || got[1] != 45 {
		t.Errorf("arrival order %v, want [40, 45]", got)
	}
	if p.Get(0, []int{40, 0, 0}) == nil || p.Get(0, []int{0, 0, 0}) != nil || p.Get(0, []int{5, 0, 0}) != nil {
		t.Error("Get does not reflect what was loaded")
	}
	synctest.Wait() // the worker has finished and waits for work
	if n := p.Pending(); n != 0 {
		t.Errorf("%d requests still pending", n)
	}
	if n := src.reads.Load(); n != 2 {
		t.Errorf("%d chunks read, want 2 (planes 40 and 45)", n)
	}
}

func TestDiskCacheReopensEveryLevel(t *testing.T) {
	root := t.TempDir()
	shape := []int{20, 300, 280}
	id := loader.Identity{Path: "/data/x.tif", Size: 1, MTime: 1}
	open := func() (*Pyramid, *hashSource) {
		src := newHash("ZYX", shape, []int{1, 300, 280})
		d, _ := OpenDisk(root, 1<<30)
		p, err := Open(src, Options{CacheBytes: 32 << 20, Disk: d, Identity: id})
		if err != nil || p.DiskError() != nil {
			t.Fatal(err, p.DiskError())
		}
		return p, src
	}
	p, _ := open()
	if err := p.Build(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	_, built := p.Counts()
	p.Close()
	p, src := open()
	defer p.Close()
	ref := refLevels(shape, allValues(shape), p.reduce)
	for k := 1; k < len(ref); k++ {
		got, err := loader.ReadAll(context.Background(), p, k, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range ref[k] {
			if binary.LittleEndian.Uint16(got[2*i:]) != w {
				t.Fatalf("level %d sample %d differs after reopening", k, i)
			}
		}
	}
	if _, computed := p.Counts(); computed != 0 || src.reads.Load() != 0 || built == 0 {
		t.Errorf("reopened pyramid computed %d chunks and read %d from the source (first build: %d)", computed, src.reads.Load(), built)
	}
	// A damaged chunk is detected and computed again.
	e := p.disk.Load()
	name, off, _ := e.locate(1, []int{0, 0, 0})
	f, err := os.OpenFile(filepath.Join(e.dir, name), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	var b [1]byte
	f.ReadAt(b[:], off+10)
	b[0] ^= 0xff
	f.WriteAt(b[:], off+10)
	f.Close()
	buf := make([]byte, p.Levels()[1].ChunkBytes(loader.Uint16))
	if e.get(1, []int{0, 0, 0}, buf) {
		t.Error("a damaged chunk file was accepted")
	}
	// Another identity gets its own entry; a small limit evicts the old
	// once it is no longer in use.
	p.Close()
	d, _ := OpenDisk(root, 1)
	p2, _ := Open(newHash("ZYX", shape, []int{1, 300, 280}), Options{Disk: d, Identity: loader.Identity{Path: "/data/y.tif", Size: 1, MTime: 1}})
	defer p2.Close()
	e2 := p2.disk.Load()
	if e2 == nil {
		t.Fatal(p2.DiskError())
	}
	if _, err := os.Stat(e.dir); !os.IsNotExist(err) || e2.dir == e.dir {
		t.Errorf("old entry not evicted beyond the limit (%v)", err)
	}
}

// TestKilledBuildResumes kills a child process in the middle of a build and
// checks that a new build keeps the chunks the child finished. The child's
// source holds the second half of the planes back, so its build cannot end;
// it reports every chunk it has put in the disk cache, and is killed once
// it has reported a few.
// TestDiskEntryOfOtherFactorsIsNotUsed plants, under a source's identity,
// an entry of the levels that halve every axis longer than its chunk (Z
// with Y and X) whose chunks hold other values: the pyramid over a stack
// whose Y and X are finer, whose levels halve them first, does not take
// them for its own.
func TestDiskEntryOfOtherFactorsIsNotUsed(t *testing.T) {
	root := t.TempDir()
	shape, chunk := []int{20, 600, 530}, []int{1, 600, 530}
	id := loader.Identity{Path: "/data/aniso.tif", Size: 1, MTime: 1}
	src := &hashSource{meta: loader.NewMeta("hash", "ZYX", shape, loader.Uint16, chunk, []float64{2, 0.5, 0.5}, nil)}
	d, err := OpenDisk(root, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	// Every spatial axis longer than its chunk halved at each level.
	old := *src.meta
	old.Levels = []loader.Level{src.meta.Levels[0]}
	f := []float64{1, 1, 1}
	for {
		prev := old.Levels[len(old.Levels)-1]
		next := loader.Level{Shape: slices.Clone(prev.Shape), Chunk: []int{chunkZ, chunkXY, chunkXY},
			Scale: make([]float64, 3), Translation: make([]float64, 3)}
		for i, s := range []float64{2, 0.5, 0.5} {
			if prev.Shape[i] > next.Chunk[i] {
				next.Shape[i] = (prev.Shape[i] + 1) / 2
				f[i] *= 2
			}
			next.Chunk[i] = min(next.Chunk[i], next.Shape[i])
			next.Scale[i], next.Translation[i] = s*f[i], (f[i]-1)/2*s
		}
		if slices.Equal(next.Shape, prev.Shape) {
			break
		}
		old.Levels = append(old.Levels, next)
	}
	e, err := d.entry(id, &Pyramid{meta: &old, stored: 1})
	if err != nil {
		t.Fatal(err)
	}
	for k := 1; k < len(old.Levels); k++ {
		l := &old.Levels[k]
		junk := make([]byte, l.ChunkBytes(loader.Uint16))
		for i := range junk {
			junk[i] = 0xab
		}
		grid := l.Grid()
		for idx := make([]int, 3); ; {
			if err := e.put(k, idx, junk); err != nil {
				t.Fatal(err)
			}
			if !nd.Next(idx, grid) {
				break
			}
		}
	}
	e.close()
	p, err := Open(src, Options{CacheBytes: 64 << 20, Disk: d, Identity: id})
	if err != nil || p.DiskError() != nil {
		t.Fatal(err, p.DiskError())
	}
	defer p.Close()
	if len(p.Levels()) < 2 {
		t.Fatalf("%d levels", len(p.Levels()))
	}
	checkLevels(t, p, refLevels(shape, allValues(shape), p.reduce))
}

func TestKilledBuildResumes(t *testing.T) {
	if root := os.Getenv("VASTVIEW_LEVELS_CHILD"); root != "" {
		buildForever(root)
		return
	}
	root := t.TempDir()
	child := testtool.StartChild(t, "^TestKilledBuildResumes$", "VASTVIEW_LEVELS_CHILD="+root)
	reported := 0
	for sc := bufio.NewScanner(child.Out); reported < 5 && sc.Scan(); {
		if strings.HasPrefix(sc.Text(), childBuilt) {
			reported++
		}
	}
	child.Cmd.Process.Kill()
	child.Wait()
	if reported < 5 {
		t.Fatalf("the child reported %d chunks before it ended", reported)
	}
	p, _, err := openKillFixture(root)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	kept := countChunks(p.disk.Load())
	if err := p.Build(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, lp := range p.Progress() {
		total += lp.Total
	}
	_, computed := p.Counts()
	if kept < reported || int64(kept) >= total || computed != total-int64(kept) {
		t.Errorf("child reported %d and kept %d of %d chunks; the resumed build computed %d", reported, kept, total, computed)
	}
	checkLevels(t, p, refLevels(killShape, allValues(killShape), p.reduce))
}

var killShape = []int{256, 300, 300}

// childBuilt starts the line the child writes for each chunk it has put in
// the disk cache.
const childBuilt = "built "

func openKillFixture(root string) (*Pyramid, *hashSource, error) {
	src := newHash("ZYX", killShape, []int{1, 300, 300})
	d, err := OpenDisk(root, 1<<30)
	if err != nil {
		return nil, nil, err
	}
	p, err := Open(src, Options{CacheBytes: 256 << 20, Disk: d, Identity: loader.Identity{Path: "/kill", Size: 1, MTime: 1}})
	if err == nil {
		err = p.DiskError()
	}
	return p, src, err
}

// buildForever builds the kill fixture's levels from the first half of its
// planes only (the rest wait at the gate) and reports each computed chunk
// on stdout; it exits when stdin closes.
func buildForever(root string) {
	go func() {
		io.Copy(io.Discard, os.Stdin)
		os.Exit(3)
	}()
	p, src, err := openKillFixture(root)
	if err != nil {
		os.Exit(2)
	}
	src.gate = make(chan struct{})
	go func() {
		for range killShape[0] / 2 {
			src.gate <- struct{}{}
		}
	}()
	events, _ := p.Subscribe()
	go func() {
		for e := range events {
			if e.Level >= p.Stored() && e.Err == nil {
				fmt.Printf("%s%d %v\n", childBuilt, e.Level, e.Idx)
			}
		}
	}()
	p.Build(context.Background(), 2)
	os.Exit(0)
}

func countChunks(e *diskEntry) int {
	n := 0
	for k := range e.levels {
		grid := e.levels[k].Grid()
		for idx := make([]int, len(grid)); ; {
			if e.has(k, idx) {
				n++
			}
			if !nd.Next(idx, grid) {
				break
			}
		}
	}
	return n
}

// A load shared by two callers survives the first one giving up. The test
// runs in a synctest bubble: synctest.Wait returns once A's read waits at
// the gate, and then once B waits for the same load.
func TestSharedLoadOutlivesACancelledCaller(t *testing.T) {
	synctest.Test(t, testSharedLoadOutlivesACancelledCaller)
}

func testSharedLoadOutlivesACancelledCaller(t *testing.T) {
	src := newHash("ZYX", []int{4, 32, 32}, []int{1, 32, 32})
	src.gate = make(chan struct{})
	p, err := Open(src, Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctxA, cancelA := context.WithCancel(context.Background())
	errA := make(chan error, 1)
	go func() { _, err := p.load(ctxA, 0, []int{2, 0, 0}); errA <- err }()
	synctest.Wait() // A's read waits at the gate
	type result struct {
		b   []byte
		err error
	}
	resB := make(chan result, 1)
	go func() {
		b, err := p.load(context.Background(), 0, []int{2, 0, 0})
		resB <- result{b.data, err}
	}()
	synctest.Wait() // B waits for A's load
	cancelA()
	if err := <-errA; err != context.Canceled {
		t.Fatalf("cancelled caller got %v", err)
	}
	var b result
	select {
	case src.gate <- struct{}{}: // B's own read
		b = <-resB
	case b = <-resB:
	}
	if b.err != nil {
		t.Fatalf("the second caller got %v", b.err)
	}
	if want := value(2 * 32 * 32); binary.LittleEndian.Uint16(b.b) != want {
		t.Errorf("B got %d, want %d", binary.LittleEndian.Uint16(b.b), want)
	}
}
