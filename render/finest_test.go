package render

import (
	"testing"

	"vastview/levels"
	"vastview/loader"
)

// TestFirstViewDrawsFromItsOwnPlane checks RequestFinest: a view drawn at
// a computed level asks for its plane's full-resolution chunks first, and
// once they arrive the whole view is drawn from them, before the level
// exists.
func TestFirstViewDrawsFromItsOwnPlane(t *testing.T) {
	shape := []int{16, 600, 500}
	data := makeArray(shape, loader.Uint16, func(p []int) float64 { return hashByte(p) * 200 })
	m := loader.NewMeta("mem", "ZYX", shape, loader.Uint16, []int{1, 600, 500}, nil, nil)
	gate := make(chan struct{}, 64)
	src := &memSource{meta: m, arrays: [][]byte{data}, gate: gate}
	// One worker: the plane asked for first is read first.
	p := &recorder{Pyramid: openPyramid(t, src, levels.Options{Workers: 1})}
	v := View{Z: 9, Zoom: 0.4, Center: Point{250, 300}, Lo: 0, Hi: 50000, Width: 200, Height: 240}
	var r Renderer

	if n := r.RequestFinest(v, p, 1, 600*500*2-1); n != 0 {
		t.Errorf("requested %d chunks over the byte limit", n)
	}
	if n := r.RequestFinest(v, p, 1, 1<<20); n != 1 {
		t.Fatalf("requested %d chunks, want the one plane", n)
	}
	if got := p.reqs[0]; got.prio != levels.Visible || got.level != 0 || got.idx[0] != 9 {
		t.Errorf("request %+v, want level 0 plane 9 at Visible priority", got)
	}
	_, info := r.Render(v, p, 1)
	if info.Level == 0 {
		t.Fatalf("view drawn at level 0; the test needs a computed level")
	}
	events, stop := p.Subscribe()
	defer stop()
	gate <- struct{}{} // only the first read may pass: plane 9
	waitArrival(t, events, 0, []int{9, 0, 0})
	if p.Get(0, []int{9, 0, 0}) == nil {
		t.Fatal("plane 9 arrived but is not in memory")
	}
	if _, info := r.Render(v, p, 1); info.Unfilled != 0 || info.Complete {
		t.Errorf("with only its plane in memory: %+v, want nothing unfilled and incomplete", info)
	}
	if n := r.RequestFinest(View{Z: 9, Zoom: 1, Center: Point{250, 300}, Width: 100, Height: 100}, p, 2, 1<<30); n != 0 {
		t.Errorf("a full-resolution view requested %d chunks more", n)
	}
	close(gate)
}
