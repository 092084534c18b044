package render

import (
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"vastview/levels"
	"vastview/loader"
)

// memSource is an in-memory loader.Source with one full C-order array per
// stored level. When gate is set, reads of level 0 wait until it is closed.
type memSource struct {
	meta   *loader.Meta
	arrays [][]byte
	gate   chan struct{}
}

func (s *memSource) Meta() *loader.Meta { return s.meta }
func (s *memSource) Close() error       { return nil }

func (s *memSource) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if level == 0 && s.gate != nil {
		select {
		case <-s.gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	l := &s.meta.Levels[level]
	es := s.meta.DType.Size()
	n := len(idx)
	clear(dst)
	// Copy row by row along the last axis: pos walks the chunk's rows.
	pos := make([]int, n)
	rows := l.ChunkSamples() / l.Chunk[n-1]
	x0 := idx[n-1] * l.Chunk[n-1]
	w := min(l.Chunk[n-1], l.Shape[n-1]-x0) * es
	for k := 0; k < rows; k++ {
		rem := k
		for i := n - 2; i >= 0; i-- {
			pos[i] = rem % l.Chunk[i]
			rem /= l.Chunk[i]
		}
		off, inside := 0, true
		for i := 0; i < n-1; i++ {
			p := idx[i]*l.Chunk[i] + pos[i]
			inside = inside && p < l.Shape[i]
			off = off*l.Shape[i] + p
		}
		if inside {
			off = (off*l.Shape[n-1] + x0) * es
			copy(dst[k*l.Chunk[n-1]*es:][:w], s.arrays[level][off:off+w])
		}
	}
	return nil
}

// makeArray fills an array of the given shape and type with f(position).
func makeArray(shape []int, dt loader.DType, f func(pos []int) float64) []byte {
	n := 1
	for _, s := range shape {
		n *= s
	}
	es := dt.Size()
	buf := make([]byte, n*es)
	pos := make([]int, len(shape))
	for k := 0; k < n; k++ {
		putSample(buf[k*es:], dt, f(pos))
		for i := len(shape) - 1; i >= 0; i-- { // the next position, C order
			if pos[i]++; pos[i] < shape[i] {
				break
			}
			pos[i] = 0
		}
	}
	return buf
}

func putSample(b []byte, dt loader.DType, v float64) {
	le := binary.LittleEndian
	switch dt {
	case loader.Uint8, loader.Int8:
		b[0] = byte(int64(v))
	case loader.Uint16, loader.Int16:
		le.PutUint16(b, uint16(int64(v)))
	case loader.Uint32, loader.Int32:
		le.PutUint32(b, uint32(int64(v)))
	case loader.Float32:
		le.PutUint32(b, math.Float32bits(float32(v)))
	case loader.Float64:
		le.PutUint64(b, math.Float64bits(v))
	}
}

// openPyramid opens a real pyramid over src and closes it when t ends.
func openPyramid(t testing.TB, src loader.Source, opt levels.Options) *levels.Pyramid {
	t.Helper()
	if opt.Workers == 0 {
		opt.Workers = 2
	}
	if opt.CacheBytes == 0 {
		opt.CacheBytes = 256 << 20
	}
	p, err := levels.Open(src, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// renderComplete renders v until the frame is complete, waiting for
// arrivals between tries. An arrival after the subscription is never
// missed: the channel holds it, or is full and so has others to wake on.
func renderComplete(t testing.TB, r *Renderer, v View, p *levels.Pyramid, gen uint64) (*image.RGBA, Info) {
	t.Helper()
	return untilComplete(t, p, func() (*image.RGBA, Info) { return r.Render(v, p, gen) })
}

// untilComplete draws with draw, from p, until the frame is complete.
func untilComplete(t testing.TB, p *levels.Pyramid, draw func() (*image.RGBA, Info)) (*image.RGBA, Info) {
	t.Helper()
	events, stop := p.Subscribe()
	defer stop()
	deadline := time.After(30 * time.Second)
	for {
		img, info := draw()
		if info.Complete {
			return img, info
		}
		select {
		case e := <-events:
			if e.Err != nil {
				t.Fatalf("load failed: %v", e.Err)
			}
		case <-deadline:
			t.Fatalf("frame never completed: %+v", info)
		}
	}
}

// waitArrival waits for the arrival of one chunk, failing on a failed load
// or after 30 s.
func waitArrival(t testing.TB, events <-chan levels.Event, level int, idx []int) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case e := <-events:
			if e.Err != nil {
				t.Fatalf("load failed: %v", e.Err)
			}
			if e.Level == level && slices.Equal(e.Idx, idx) {
				return
			}
		case <-deadline:
			t.Fatalf("level %d chunk %v never arrived", level, idx)
		}
	}
}

// fakeSource is a Source whose chunks are set by the test; it records
// requests.
type fakeSource struct {
	meta   *loader.Meta
	mu     sync.Mutex
	chunks map[string][]byte
	reqs   []request
}

type request struct {
	prio  levels.Priority
	gen   uint64
	level int
	idx   []int
}

func newFake(m *loader.Meta) *fakeSource {
	return &fakeSource{meta: m, chunks: map[string][]byte{}}
}

func chunkName(level int, idx []int) string { return fmt.Sprint(level, idx) }

func (f *fakeSource) Meta() *loader.Meta { return f.meta }

func (f *fakeSource) Get(level int, idx []int) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.chunks[chunkName(level, idx)]
}

func (f *fakeSource) Request(prio levels.Priority, gen uint64, level int, idxs ...[]int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, idx := range idxs {
		f.reqs = append(f.reqs, request{prio, gen, level, append([]int(nil), idx...)})
	}
}

// Failed says that every chunk of f can be read.
func (f *fakeSource) Failed(int, []int) error { return nil }

// Stored says that f reads level 0 only.
func (f *fakeSource) Stored() int { return 1 }

// Thumbnails says that f has built no level in the background.
func (f *fakeSource) Thumbnails() int { return len(f.meta.Levels) }

// load puts every chunk of level k of src into f.
func (f *fakeSource) load(t testing.TB, src loader.Source, k int) {
	f.loadWhere(t, src, k, func([]int) bool { return true })
}

// requested returns the requests made so far.
func (f *fakeSource) requested() []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]request(nil), f.reqs...)
}

// loadWhere puts the chunks of level k of src for which keep is true
// into f.
func (f *fakeSource) loadWhere(t testing.TB, src loader.Source, k int, keep func(idx []int) bool) {
	l := &f.meta.Levels[k]
	grid := l.Grid()
	total := 1
	for _, g := range grid {
		total *= g
	}
	for i := 0; i < total; i++ {
		idx := unravel(i, grid)
		if !keep(idx) {
			continue
		}
		buf := make([]byte, l.ChunkBytes(f.meta.DType))
		if err := src.ReadChunk(context.Background(), k, idx, buf); err != nil {
			t.Fatal(err)
		}
		f.mu.Lock()
		f.chunks[chunkName(k, idx)] = buf
		f.mu.Unlock()
	}
}

// binLevels returns stored levels of a YX-ending array binned 2×2 in Y
// and X by the mean (rounded half up) until both are at most minSide,
// with NGFF scales and translations for level-0 spacing (nil: 1); arrays[0]
// is data.
func binLevels(shape, chunk []int, spacing []float64, data []uint16, minSide int) ([]loader.Level, [][]byte) {
	n := len(shape)
	scale := make([]float64, n)
	for i := range scale {
		scale[i] = 1
		if spacing != nil {
			scale[i] = spacing[i]
		}
	}
	lv := []loader.Level{{Shape: shape, Chunk: chunk, Scale: scale, Translation: make([]float64, n)}}
	arrays := [][]byte{u16bytes(data)}
	f := 1.0
	for shape[n-1] > minSide || shape[n-2] > minSide {
		next := append([]int(nil), shape...)
		next[n-2], next[n-1] = (shape[n-2]+1)/2, (shape[n-1]+1)/2
		outer := 1
		for _, s := range shape[:n-2] {
			outer *= s
		}
		res := make([]uint16, outer*next[n-2]*next[n-1])
		for o := 0; o < outer; o++ {
			for y := 0; y < next[n-2]; y++ {
				for x := 0; x < next[n-1]; x++ {
					var sum, cnt int
					for dy := 0; dy < 2; dy++ {
						for dx := 0; dx < 2; dx++ {
							yy, xx := 2*y+dy, 2*x+dx
							if yy < shape[n-2] && xx < shape[n-1] {
								sum += int(data[(o*shape[n-2]+yy)*shape[n-1]+xx])
								cnt++
							}
						}
					}
					res[(o*next[n-2]+y)*next[n-1]+x] = uint16((2*sum + cnt) / (2 * cnt))
				}
			}
		}
		f *= 2
		sc := append([]float64(nil), scale...)
		tr := make([]float64, n)
		sc[n-2], sc[n-1] = f*scale[n-2], f*scale[n-1]
		tr[n-2], tr[n-1] = (f-1)/2*scale[n-2], (f-1)/2*scale[n-1]
		ch := append([]int(nil), chunk...)
		ch[n-2], ch[n-1] = min(chunk[n-2], next[n-2]), min(chunk[n-1], next[n-1])
		lv = append(lv, loader.Level{Shape: next, Chunk: ch, Scale: sc, Translation: tr})
		arrays = append(arrays, u16bytes(res))
		data, shape = res, next
	}
	return lv, arrays
}

func u16bytes(v []uint16) []byte {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], x)
	}
	return b
}

func bytesU16(b []byte) []uint16 {
	v := make([]uint16, len(b)/2)
	for i := range v {
		v[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return v
}

// pixel returns the RGBA pixel at (x, y) as a packed colour.
func pixel(img *image.RGBA, x, y int) [4]uint8 {
	o := img.PixOffset(x, y)
	return [4]uint8(img.Pix[o : o+4])
}

var bgPixel = [4]uint8{background[0], background[1], background[2], 255}
