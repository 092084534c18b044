package demo

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"testing"

	"vastview/loader"
)

var ctx = context.Background()

func readChunk(t testing.TB, src loader.Source, idx ...int) []byte {
	t.Helper()
	dst := make([]byte, src.Meta().Levels[0].ChunkBytes(loader.Uint16))
	if err := src.ReadChunk(ctx, 0, idx, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestMeta(t *testing.T) {
	m := New().Meta()
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%s %s %v %v %v %v %v", m.Format, m.Axes, m.Shape, m.DType, m.Spacing, m.Units, m.Levels[0].Chunk)
	want := "demo TZYX [4 1024 2048 2048] uint16 [1 1 0.5 0.5] [second micrometer micrometer micrometer] [1 1 256 256]"
	if got != want {
		t.Fatalf("meta %s, want %s", got, want)
	}
}

// TestDeterministic reads chunks twice, from separate sources and
// goroutines, and expects the same bytes.
func TestDeterministic(t *testing.T) {
	a, b := New(), New()
	idxs := [][]int{{0, 0, 0, 0}, {1, 512, 3, 4}, {3, 1023, 7, 7}, {2, 300, 5, 1}}
	var wg sync.WaitGroup
	for _, idx := range idxs {
		wg.Go(func() {
			first := readChunk(t, a, idx...)
			if !bytes.Equal(first, readChunk(t, a, idx...)) || !bytes.Equal(first, readChunk(t, b, idx...)) {
				t.Errorf("chunk %v differs between reads", idx)
			}
		})
	}
	wg.Wait()
}

// TestTimeDiffers checks that the cells move: the same chunk at other time
// points differs, beyond the static texture.
func TestTimeDiffers(t *testing.T) {
	src := New()
	// A chunk near the middle of the volume, where cells are dense.
	prev := readChunk(t, src, 0, 512, 4, 4)
	for tp := 1; tp < 4; tp++ {
		cur := readChunk(t, src, tp, 512, 4, 4)
		changed := 0
		for i := 0; i < len(cur); i += 2 {
			a := int(binary.LittleEndian.Uint16(prev[i:]))
			b := int(binary.LittleEndian.Uint16(cur[i:]))
			if a-b > 2000 || b-a > 2000 {
				changed++
			}
		}
		if changed < len(cur)/2/100 {
			t.Errorf("t=%d: only %d samples changed by more than 2000 from t=%d", tp, changed, tp-1)
		}
		prev = cur
	}
}

// TestValueRange checks that slices span a good part of uint16 without
// saturating.
func TestValueRange(t *testing.T) {
	for _, p := range []loader.Plane{
		{Orientation: loader.XY, At: map[byte]int{'Z': 512}},
		{Orientation: loader.XY, At: map[byte]int{'Z': 300, 'T': 3}},
	} {
		valueRange(t, p)
	}
}

func valueRange(t *testing.T, p loader.Plane) {
	buf, w, h, err := loader.ReadPlane(ctx, New(), 0, p)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi, sat := 65535, 0, 0
	for i := 0; i < w*h; i++ {
		v := int(binary.LittleEndian.Uint16(buf[2*i:]))
		lo, hi = min(lo, v), max(hi, v)
		if v == 65535 || v == 0 {
			sat++
		}
	}
	if lo > 8000 || hi < 30000 || sat > 0 {
		t.Fatalf("plane %v: values %d..%d, %d at 0 or 65535", p, lo, hi, sat)
	}
}

// TestEdgeChunks checks the zero padding of chunks that cross the array's
// edge, and that the valid part equals the same samples of a larger array
// (the content is defined per sample, not per chunk).
func TestEdgeChunks(t *testing.T) {
	small := NewSized(2, 5, 300, 700)
	m := small.Meta()
	if c := m.Levels[0].Chunk; fmt.Sprint(c) != "[1 1 256 256]" {
		t.Fatalf("chunk %v", c)
	}
	if g := m.Levels[0].Grid(); fmt.Sprint(g) != "[2 5 2 3]" {
		t.Fatalf("grid %v", g)
	}
	edge := readChunk(t, small, 1, 4, 1, 2) // rows 256..299, columns 512..699
	for y := 0; y < 256; y++ {
		for x := 0; x < 256; x++ {
			v := binary.LittleEndian.Uint16(edge[2*(y*256+x):])
			if (y >= 44 || x >= 188) && v != 0 {
				t.Fatalf("sample (%d, %d) beyond the edge is %d", y, x, v)
			}
			if y < 44 && x < 188 && v == 0 {
				t.Fatalf("sample (%d, %d) inside the array is 0", y, x)
			}
		}
	}
	// A tiny array has one chunk the size of the array.
	tiny := NewSized(1, 1, 3, 5)
	if c := tiny.Meta().Levels[0].Chunk; fmt.Sprint(c) != "[1 1 3 5]" {
		t.Fatalf("tiny chunk %v", c)
	}
	if err := tiny.Meta().Validate(); err != nil {
		t.Fatal(err)
	}
	readChunk(t, tiny, 0, 0, 0, 0)
}

func TestReadChunkRejects(t *testing.T) {
	src := NewSized(2, 3, 300, 300)
	ok := make([]byte, 256*256*2)
	bad := []struct {
		level int
		idx   []int
		dst   []byte
	}{
		{1, []int{0, 0, 0, 0}, ok},
		{-1, []int{0, 0, 0, 0}, ok},
		{0, []int{0, 0, 0}, ok},
		{0, []int{0, 0, 0, 0, 0}, ok},
		{0, nil, ok},
		{0, []int{2, 0, 0, 0}, ok},
		{0, []int{0, 3, 0, 0}, ok},
		{0, []int{0, 0, 2, 0}, ok},
		{0, []int{0, 0, 0, 2}, ok},
		{0, []int{0, -1, 0, 0}, ok},
		{0, []int{0, 0, 0, 0}, ok[:len(ok)-1]},
		{0, []int{0, 0, 0, 0}, append(ok, 0)},
		{0, []int{0, 0, 0, 0}, nil},
	}
	for _, b := range bad {
		if err := src.ReadChunk(ctx, b.level, b.idx, b.dst); err == nil {
			t.Errorf("ReadChunk(%d, %v, %d bytes) succeeded", b.level, b.idx, len(b.dst))
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := src.ReadChunk(cctx, 0, []int{0, 0, 0, 0}, ok); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled read: %v", err)
	}
}

// BenchmarkReadChunk measures the throughput of computing chunks spread
// over the volume, on one goroutine.
func BenchmarkReadChunk(b *testing.B) {
	src := New()
	dst := make([]byte, src.Meta().Levels[0].ChunkBytes(loader.Uint16))
	b.SetBytes(int64(len(dst)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		idx := []int{i % 4, (i * 37) % 1024, (i / 8) % 8, i % 8}
		if err := src.ReadChunk(ctx, 0, idx, dst); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkCopy is the memory-bandwidth yardstick: copy() of a chunk-sized
// buffer.
func BenchmarkCopy(b *testing.B) {
	src := make([]byte, 256*256*2)
	dst := make([]byte, len(src))
	b.SetBytes(int64(len(dst)))
	for b.Loop() {
		copy(dst, src)
	}
}
