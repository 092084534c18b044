package levels

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"testing"

	"vastview/base/nd"
	"vastview/loader"
)

// TestStreamHandsOnEveryChunkOnce streams sources of whole planes (Z
// stacks, time series, channels, odd sizes, a build bound that leaves the
// finer computed levels out of Build) and checks that every chunk of every
// level arrives once and equals the plain rule's. The function holds the
// chunks it gets and releases them late and out of order, as writers do.
func TestStreamHandsOnEveryChunkOnce(t *testing.T) {
	for _, c := range []struct {
		axes         string
		shape, chunk []int
		buildBytes   int64
	}{
		{"ZYX", []int{17, 301, 517}, []int{1, 301, 517}, 0},
		{"ZYX", []int{24, 600, 520}, []int{1, 600, 520}, 0},
		{"TYX", []int{3, 513, 300}, []int{1, 513, 300}, 0},
		{"CZYX", []int{2, 33, 260, 270}, []int{1, 1, 260, 270}, 0},
		{"ZYX", []int{24, 600, 520}, []int{1, 600, 520}, 1 << 20},
	} {
		t.Run(fmt.Sprint(c.axes, c.shape), func(t *testing.T) {
			p, err := Open(newHash(c.axes, c.shape, c.chunk), Options{CacheBytes: 64 << 20, BuildBytes: c.buildBytes})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if !Streams(newHash(c.axes, c.shape, c.chunk).Meta()) {
				t.Fatal("a source of whole planes does not stream")
			}
			if c.buildBytes > 0 && p.BuiltFrom() == p.Stored() {
				t.Fatal("the build bound leaves no level out")
			}
			ref := refLevels(c.shape, allValues(c.shape), p.reduce)
			var mu sync.Mutex
			seen := map[string]int{}
			var held []func()
			var mismatch []string
			from, err := p.StreamChunks(context.Background(), 3, func(k int, idx []int, data []byte, release func()) error {
				mu.Lock()
				defer mu.Unlock()
				seen[fmt.Sprint(k, idx)]++
				if msg := chunkDiffers(p.meta, k, idx, data, ref[k]); msg != "" {
					mismatch = append(mismatch, msg)
				}
				// Hold up to three chunks; release the oldest but one.
				held = append(held, release)
				if len(held) == 3 {
					held[1]()
					held = append(held[:1], held[2:]...)
				}
				return nil
			})
			for _, r := range held {
				r()
			}
			if err != nil {
				t.Fatal(err)
			}
			if from != 0 {
				t.Errorf("streamed from level %d, want 0", from)
			}
			for _, m := range mismatch[:min(len(mismatch), 5)] {
				t.Error(m)
			}
			for k := range p.meta.Levels {
				grid := p.meta.Levels[k].Grid()
				for idx := make([]int, len(grid)); ; {
					if n := seen[fmt.Sprint(k, idx)]; n != 1 {
						t.Errorf("level %d chunk %v arrived %d times", k, idx, n)
					}
					if !nd.Next(idx, grid) {
						break
					}
				}
			}
		})
	}
}

// chunkDiffers says how chunk idx of level k differs from the level's
// reference samples, or is "" when it does not (samples beyond the
// level's edge must be zero).
func chunkDiffers(m *loader.Meta, k int, idx []int, data []byte, ref []uint16) string {
	l := &m.Levels[k]
	n := len(idx)
	pos := make([]int, n)
	for s := 0; s < l.ChunkSamples(); s++ {
		rem := s
		for i := n - 1; i >= 0; i-- {
			pos[i] = rem % l.Chunk[i]
			rem /= l.Chunk[i]
		}
		off, inside := 0, true
		for i := range n {
			q := idx[i]*l.Chunk[i] + pos[i]
			inside = inside && q < l.Shape[i]
			off = off*l.Shape[i] + q
		}
		want := uint16(0)
		if inside {
			want = ref[off]
		}
		if got := binary.LittleEndian.Uint16(data[2*s:]); got != want {
			return fmt.Sprintf("level %d chunk %v sample %v: %d, want %d", k, idx, pos, got, want)
		}
	}
	return ""
}

// TestStreamEndsOnTheFirstError: an error from the function ends the
// stream with that error, and every chunk handed on can still be released.
func TestStreamEndsOnTheFirstError(t *testing.T) {
	p, err := Open(newHash("ZYX", []int{30, 200, 200}, []int{1, 200, 200}), Options{CacheBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	full := errors.New("disk full")
	calls := 0
	_, err = p.StreamChunks(context.Background(), 2, func(k int, idx []int, data []byte, release func()) error {
		release()
		calls++
		if calls == 7 {
			return full
		}
		return nil
	})
	if !errors.Is(err, full) {
		t.Errorf("stream: %v, want %v", err, full)
	}
	if calls != 7 {
		t.Errorf("%d calls after the error, want none", calls-7)
	}
}

// TestChunkedSourcesDoNotStream: chunks that are not whole planes are left
// to ReadChunk.
func TestChunkedSourcesDoNotStream(t *testing.T) {
	src := newHash("ZYX", []int{19, 600, 257}, []int{5, 64, 100})
	if Streams(src.Meta()) {
		t.Error("Streams says a chunked source streams")
	}
	p, err := Open(src, Options{CacheBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	from, err := p.StreamChunks(context.Background(), 2, func(int, []int, []byte, func()) error {
		t.Error("a chunk streamed")
		return nil
	})
	if err != nil || from != len(p.meta.Levels) {
		t.Errorf("from %d, %v; want %d, nil", from, err, len(p.meta.Levels))
	}
}
