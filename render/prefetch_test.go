package render

import (
	"slices"
	"testing"

	"vastview/levels"
	"vastview/loader"
)

// TestPrefetchNextLayers: moving forward through Z, Prefetch asks for the
// viewport's chunks in the next three chunk layers that are not in memory,
// at Prefetch priority; backwards, only the layers that exist.
func TestPrefetchNextLayers(t *testing.T) {
	m := loader.NewMeta("mem", "ZYX", []int{20, 64, 64}, loader.Uint8, []int{4, 32, 32}, nil, nil)
	src := &memSource{meta: m, arrays: [][]byte{makeArray([]int{20, 64, 64}, loader.Uint8, hashByte)}}
	f := newFake(m)
	f.load(t, src, 0)
	for k := range f.chunks { // keep only layer 3 (planes 12..15)
		if k[:4] != "0 [3" {
			delete(f.chunks, k)
		}
	}
	var r Renderer
	// Columns 10..49 and rows 0..29: chunk columns 0 and 1, chunk row 0.
	v := View{Z: 5, Zoom: 1, Center: Point{30, 15}, Width: 40, Height: 30}
	if n := r.Prefetch(v, f, 3, 1, 0, levels.Prefetch); n != 4 {
		t.Errorf("forward: %d requests, want 4", n)
	}
	var got [][]int
	for _, q := range f.reqs {
		if q.prio != levels.Prefetch || q.gen != 3 || q.level != 0 {
			t.Errorf("request %+v", q)
		}
		got = append(got, q.idx)
	}
	want := [][]int{{2, 0, 0}, {2, 0, 1}, {4, 0, 0}, {4, 0, 1}}
	sortIdx(got)
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("forward: requested %v, want %v", got, want)
	}
	f.reqs = nil
	if n := r.Prefetch(v, f, 4, -1, 0, levels.Prefetch); n != 2 {
		t.Errorf("backward: %d requests, want 2 (layer 0)", n)
	}
	// A movie steps through time.
	mv := loader.NewMeta("mem", "TYX", []int{10, 8, 8}, loader.Uint8, []int{1, 8, 8}, nil, nil)
	g := newFake(mv)
	if n := r.Prefetch(View{T: 9, Zoom: 1, Center: Point{4, 4}, Width: 8, Height: 8}, g, 1, -2, 0, levels.Prefetch); n != 3 {
		t.Errorf("movie: %d requests, want 3", n)
	}
	if len(g.reqs) == 3 && (g.reqs[0].idx[0] != 7 || g.reqs[2].idx[0] != 3) {
		t.Errorf("movie: requested %v", g.reqs)
	}
}
