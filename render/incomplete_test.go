package render

import (
	"slices"
	"sync"
	"testing"

	"vastview/levels"
	"vastview/loader"
)

// recorder is a pyramid that records the requests made of it.
type recorder struct {
	*levels.Pyramid
	mu   sync.Mutex
	reqs []request
}

func (r *recorder) Request(prio levels.Priority, gen uint64, level int, idxs ...[]int) {
	r.mu.Lock()
	for _, idx := range idxs {
		r.reqs = append(r.reqs, request{prio, gen, level, append([]int(nil), idx...)})
	}
	r.mu.Unlock()
	r.Pyramid.Request(prio, gen, level, idxs...)
}

// TestIncompleteFrameRefines checks the coarse-to-fine contract on a
// pyramid whose stored levels are read independently: with only the
// coarsest level in memory, a full-resolution view draws the coarse data
// (not the background), says it is incomplete, and requests exactly the
// missing full-resolution chunks, nearest the centre first; when they
// arrive it becomes complete and identical to a direct full-resolution
// rendering of the plane.
func TestIncompleteFrameRefines(t *testing.T) {
	shape := []int{200, 260}
	data := bytesU16(makeArray(shape, loader.Uint16, func(p []int) float64 {
		return hashByte(p)*16 + float64(p[0]+p[1])
	}))
	lv, arrays := binLevels(shape, []int{32, 32}, nil, data, 70)
	if len(lv) != 3 {
		t.Fatalf("%d levels, want 3", len(lv))
	}
	m := loader.NewMeta("mem", "YX", shape, loader.Uint16, []int{32, 32}, nil, nil)
	m.Levels = lv
	gate := make(chan struct{})
	src := &memSource{meta: m, arrays: arrays, gate: gate}
	p := &recorder{Pyramid: openPyramid(t, src, levels.Options{})}
	gray, _ := ColormapNamed("gray")
	const lo, hi = 0, 5000
	var r Renderer

	// Before anything is in memory the whole data area is unfilled.
	coarse := View{Zoom: 0.25, Center: Point{130, 100}, Lo: lo, Hi: hi, Width: 65, Height: 50}
	if _, info := r.Render(coarse, p.Pyramid, 1); info.Unfilled != 65*50 {
		t.Fatalf("nothing in memory: %d pixels unfilled, want %d", info.Unfilled, 65*50)
	}
	// The coarsest level comes in first (its reads are not held back).
	if _, info := renderComplete(t, &r, coarse, p.Pyramid, 1); info.Level != 2 {
		t.Fatalf("coarse view drawn at level %d, want 2", info.Level)
	}

	// Screen (x, y) shows level-0 sample (37+x, 21+y).
	const w, h, c0, r0 = 90, 70, 37, 21
	v := View{Zoom: 1, Center: Point{c0 + w/2, r0 + h/2}, Lo: lo, Hi: hi, Width: w, Height: h}
	p.reqs = nil
	img, info := r.Render(v, p, 2)
	// Columns 37..126 lie in chunks 1..3, rows 21..90 in chunks 0..2.
	if info.Level != 0 || info.Complete || info.Missing != 9 || info.Unfilled != 0 {
		t.Fatalf("info %+v, want level 0, incomplete, 9 missing, nothing unfilled", info)
	}
	coarseImg := Plane(arrays[2], loader.Uint16, lv[2].Shape[1], lv[2].Shape[0], lo, hi, gray)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			want := pixel(coarseImg, (c0+x)/4, (r0+y)/4)
			if got := pixel(img, x, y); got != want {
				t.Fatalf("incomplete frame at (%d,%d) = %v, want the coarse level's %v", x, y, got, want)
			}
		}
	}
	var want [][]int
	for cy := 0; cy <= 2; cy++ {
		for cx := 1; cx <= 3; cx++ {
			want = append(want, []int{cy, cx})
		}
	}
	var got [][]int
	for _, q := range p.reqs {
		if q.prio != levels.Visible || q.gen != 2 || q.level != 0 {
			t.Errorf("request %+v, want Visible, generation 2, level 0", q)
		}
		got = append(got, q.idx)
	}
	if len(got) == 0 || !slices.Equal(got[0], []int{1, 2}) {
		t.Errorf("first request %v, want the chunk at the centre [1 2]", got)
	}
	sortIdx(got)
	sortIdx(want)
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("requested %v, want %v", got, want)
	}

	close(gate)
	img, info = renderComplete(t, &r, v, p.Pyramid, 2)
	if info.Level != 0 || info.Missing != 0 {
		t.Fatalf("info %+v", info)
	}
	full := Plane(arrays[0], loader.Uint16, shape[1], shape[0], lo, hi, gray)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if got, want := pixel(img, x, y), pixel(full, c0+x, r0+y); got != want {
				t.Fatalf("complete frame at (%d,%d) = %v, want %v", x, y, got, want)
			}
		}
	}
}

func sortIdx(v [][]int) { slices.SortFunc(v, slices.Compare) }

// TestCoarseFillMixesLevels: where the finest level has some chunks, they
// are drawn; the rest comes from the coarser level; outside the data is
// background.
func TestCoarseFillMixesLevels(t *testing.T) {
	shape := []int{64, 64}
	data := bytesU16(makeArray(shape, loader.Uint16, func(p []int) float64 { return hashByte(p) }))
	lv, arrays := binLevels(shape, []int{32, 32}, nil, data, 32)
	m := loader.NewMeta("mem", "YX", shape, loader.Uint16, []int{32, 32}, nil, nil)
	m.Levels = lv
	src := &memSource{meta: m, arrays: arrays}
	f := newFake(m)
	f.load(t, src, 1)
	full := newFake(m)
	full.load(t, src, 0)
	f.chunks[chunkName(0, []int{0, 1})] = full.chunks[chunkName(0, []int{0, 1})]
	var r Renderer
	// The whole 64×64 plane at zoom 1 in a 70×66 viewport, with three
	// columns of background left and right and a row above and below.
	v := View{Zoom: 1, Center: Point{32, 32}, Lo: 0, Hi: 255, Width: 70, Height: 66}
	img, info := r.Render(v, f, 7)
	if info.Complete || info.Missing != 3 {
		t.Errorf("info %+v, want 3 missing", info)
	}
	gray, _ := ColormapNamed("gray")
	fine := Plane(arrays[0], loader.Uint16, 64, 64, 0, 255, gray)
	coarse := Plane(arrays[1], loader.Uint16, 32, 32, 0, 255, gray)
	for y := 0; y < 66; y++ {
		for x := 0; x < 70; x++ {
			c, r := x-3, y-1
			want := bgPixel
			switch {
			case c < 0 || r < 0 || c >= 64 || r >= 64:
			case r < 32 && c >= 32:
				want = pixel(fine, c, r)
			default:
				want = pixel(coarse, c/2, r/2)
			}
			if got := pixel(img, x, y); got != want {
				t.Fatalf("(%d,%d) = %v, want %v", x, y, got, want)
			}
		}
	}
}

// TestFinerLevelFillsWhenNoCoarserHasData: before the frame's level is
// computed, a finer level in memory (the pages read to compute it) is
// drawn instead of the background.
func TestFinerLevelFillsWhenNoCoarserHasData(t *testing.T) {
	shape := []int{64, 64}
	data := bytesU16(makeArray(shape, loader.Uint16, func(p []int) float64 { return hashByte(p) }))
	lv, arrays := binLevels(shape, []int{32, 32}, nil, data, 32)
	m := loader.NewMeta("mem", "YX", shape, loader.Uint16, []int{32, 32}, nil, nil)
	m.Levels = lv
	src := &memSource{meta: m, arrays: arrays}
	f := newFake(m)
	f.load(t, src, 0)
	var r Renderer
	// Zoom 0.5 calls for level 1, which is not in memory.
	v := View{Zoom: 0.5, Center: Point{32, 32}, Lo: 0, Hi: 255, Width: 32, Height: 32}
	img, info := r.Render(v, f, 1)
	if info.Level != 1 || info.Complete || info.Unfilled != 0 {
		t.Fatalf("info %+v, want level 1, incomplete, nothing unfilled", info)
	}
	gray, _ := ColormapNamed("gray")
	fine := Plane(arrays[0], loader.Uint16, 64, 64, 0, 255, gray)
	for y := 0; y < 32; y++ {
		for x := 0; x < 32; x++ {
			// Screen pixel x shows level-0 sample floor(32 + (x+0.5-16)*2).
			if got, want := pixel(img, x, y), pixel(fine, 2*x+1, 2*y+1); got != want {
				t.Fatalf("(%d,%d) = %v, want level 0's %v", x, y, got, want)
			}
		}
	}
}
