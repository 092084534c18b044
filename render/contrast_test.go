package render

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"vastview/levels"
	"vastview/loader"
)

// TestAutoContrastUsesCoarsestLevel: AutoContrast first asks for the
// coarsest level and says so; once it is in memory the window is the 0.1
// and 99.9 percentiles of that whole level, as percentiles finds them.
func TestAutoContrastUsesCoarsestLevel(t *testing.T) {
	shape := []int{12, 300, 280}
	for _, dt := range []loader.DType{loader.Uint16, loader.Int16, loader.Float32} {
		m := loader.NewMeta("mem", "ZYX", shape, dt, []int{4, 128, 128}, nil, nil)
		vals := func(p []int) float64 { return goldenValue(p) - 2500 + hashByte(p) }
		if dt == loader.Uint16 {
			vals = goldenValue
		}
		p := openPyramid(t, &memSource{meta: m, arrays: [][]byte{makeArray(shape, dt, vals)}}, levels.Options{})
		events, stop := p.Subscribe()
		if _, _, ok := AutoContrast(p); ok {
			t.Fatalf("%s: a window before any chunk was read", dt)
		}
		var lo, hi float64
		deadline := time.After(30 * time.Second)
		for ok := false; !ok; {
			select {
			case <-events:
			case <-deadline:
				t.Fatalf("%s: no window after 30 s", dt)
			}
			lo, hi, ok = AutoContrast(p)
		}
		stop()
		k := len(p.Meta().Levels) - 1
		all, err := loader.ReadAll(context.Background(), p, k, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		wlo, whi := percentiles(all, dt)
		if lo != wlo || hi != whi {
			t.Errorf("%s: AutoContrast = %g, %g; the coarsest level's percentiles are %g, %g", dt, lo, hi, wlo, whi)
		}
	}
}

// TestAutoContrastBoundsLongMovies: a coarsest level of many chunks (one
// per frame) is stood for by 64 of them.
func TestAutoContrastBoundsLongMovies(t *testing.T) {
	m := loader.NewMeta("mem", "TYX", []int{1000, 8, 8}, loader.Uint8, []int{1, 8, 8}, nil, nil)
	f := newFake(m)
	if _, _, ok := AutoContrast(f); ok {
		t.Fatal("a window with nothing in memory")
	}
	if len(f.reqs) != 64 {
		t.Fatalf("%d chunks requested, want 64", len(f.reqs))
	}
	for i, r := range f.reqs {
		if r.prio != levels.Background || !slices.Equal(r.idx, []int{i * 1000 / 64, 0, 0}) {
			t.Errorf("request %d: %+v, want frame %d at Background priority", i, r, i*1000/64)
		}
	}
}

// TestViewRangeIsWhatIsShown: with the whole plane on screen at one
// sample per pixel, ViewRange is percentiles of the plane.
func TestViewRangeIsWhatIsShown(t *testing.T) {
	shape := []int{3, 50, 70}
	data := makeArray(shape, loader.Int16, func(p []int) float64 { return hashByte(p)*37 - 4000 + float64(p[0]*1000) })
	m := loader.NewMeta("mem", "ZYX", shape, loader.Int16, []int{2, 16, 16}, nil, nil)
	f := newFake(m)
	var r Renderer
	v := View{Z: 1, Zoom: 1, Center: Point{35, 25}, Width: 70, Height: 50}
	if _, _, ok := r.ViewRange(v, f); ok {
		t.Fatal("a range with nothing in memory")
	}
	f.load(t, &memSource{meta: m, arrays: [][]byte{data}}, 0)
	lo, hi, ok := r.ViewRange(v, f)
	plane := data[1*50*70*2 : 2*50*70*2]
	wlo, whi := percentiles(plane, loader.Int16)
	if !ok || lo != wlo || hi != whi {
		t.Errorf("ViewRange = %g, %g, %v; the plane's percentiles are %g, %g", lo, hi, ok, wlo, whi)
	}
	if len(f.reqs) != 0 {
		t.Errorf("ViewRange requested %d chunks", len(f.reqs))
	}
}

// TestValueAtFinestInMemory: the hover value comes from the finest level
// in memory at that point.
func TestValueAtFinestInMemory(t *testing.T) {
	shape := []int{64, 96}
	data := bytesU16(makeArray(shape, loader.Uint16, func(p []int) float64 { return hashByte(p) * 100 }))
	lv, arrays := binLevels(shape, []int{16, 16}, []float64{0.5, 0.5}, data, 32)
	m := loader.NewMeta("mem", "YX", shape, loader.Uint16, []int{16, 16}, []float64{0.5, 0.5}, nil)
	m.Levels = lv
	src := &memSource{meta: m, arrays: arrays}
	f := newFake(m)
	v := View{Zoom: 2, Center: Point{48, 32}, Width: 100, Height: 80}
	// Screen (x, y) shows sample (column 23 + x/2, row 12 + y/2).
	if _, _, ok := ValueAt(f, v, 10, 30); ok {
		t.Error("a value with nothing in memory")
	}
	f.load(t, src, 2)
	l2 := bytesU16(arrays[2])
	val, k, ok := ValueAt(f, v, 10, 30) // column 28, row 27
	if want := l2[(27/4)*lv[2].Shape[1]+28/4]; !ok || k != 2 || val != float64(want) {
		t.Errorf("from level 2: %g, %d, %v; want %d", val, k, ok, want)
	}
	f.load(t, src, 0)
	val, k, ok = ValueAt(f, v, 10, 30)
	if want := data[27*96+28]; !ok || k != 0 || val != float64(want) {
		t.Errorf("from level 0: %g, %d, %v; want %d", val, k, ok, want)
	}
	if _, _, ok := ValueAt(f, v, 10, -30); ok {
		t.Error("a value above the data")
	}
}

// TestAutoContrastIgnoresChunkPadding: the zeros that fill chunks beyond
// the array's edge are not data.
func TestAutoContrastIgnoresChunkPadding(t *testing.T) {
	shape := []int{10, 13}
	m := loader.NewMeta("mem", "YX", shape, loader.Uint16, []int{8, 8}, nil, nil)
	data := makeArray(shape, loader.Uint16, func(p []int) float64 { return float64(1000 + 10*p[0] + p[1]) })
	f := newFake(m)
	f.load(t, &memSource{meta: m, arrays: [][]byte{data}}, 0)
	lo, hi, ok := AutoContrast(f)
	wlo, whi := percentiles(data, loader.Uint16)
	if !ok || lo != wlo || hi != whi {
		t.Errorf("AutoContrast = %g, %g, %v; want %g, %g", lo, hi, ok, wlo, whi)
	}
}

// percentiles returns the 0.1 and 99.9 percentiles of the finite samples
// in buf, at the ranks auto-contrast takes them (see histogram.quantiles),
// sorting them all: the reference the contrast windows are checked
// against. For an empty or constant buffer it returns a range of width 1.
func percentiles(buf []byte, dt loader.DType) (lo, hi float64) {
	n := len(buf) / dt.Size()
	vals := make([]float64, 0, n)
	for i := 0; i < n; i++ {
		v := Sample(buf, dt, i)
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return 0, 1
	}
	slices.Sort(vals)
	lo = vals[int(0.001*float64(len(vals)-1))]
	hi = vals[int(math.Ceil(0.999*float64(len(vals)-1)))]
	if hi <= lo {
		hi = lo + 1
	}
	return lo, hi
}
