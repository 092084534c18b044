package oblique

import (
	"fmt"
	"math"
	"sync"
	"testing"

	"vastview/levels"
	"vastview/loader"
	"vastview/render"
)

// memSrc is a Source over full C-order arrays of each level, of which the
// chunks listed in cached are in memory.
type memSrc struct {
	meta   *loader.Meta
	arrays [][]byte
	cached map[string]bool // nil: every chunk
	chunks map[string][]byte
	reqs   [][]int
	gets   int
}

func key(level int, idx []int) string { return fmt.Sprint(level, idx) }

func (s *memSrc) Meta() *loader.Meta { return s.meta }

func (s *memSrc) Get(level int, idx []int) []byte {
	s.gets++
	k := key(level, idx)
	if s.cached != nil && !s.cached[k] {
		return nil
	}
	if d, ok := s.chunks[k]; ok {
		return d
	}
	d := s.chunk(level, idx)
	s.chunks[k] = d
	return d
}

// chunk cuts chunk idx of level out of its array, padded with zeros.
func (s *memSrc) chunk(level int, idx []int) []byte {
	l := &s.meta.Levels[level]
	es := s.meta.DType.Size()
	d := make([]byte, l.ChunkBytes(s.meta.DType))
	n := len(idx)
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
			copy(d[k*es:(k+1)*es], s.arrays[level][off*es:])
		}
	}
	return d
}

func (s *memSrc) Request(_ levels.Priority, _ uint64, level int, idxs ...[]int) {
	for _, idx := range idxs {
		s.reqs = append(s.reqs, append([]int{level}, idx...))
	}
}

func (s *memSrc) Failed(int, []int) error { return nil }

// volume is a ZYX uint16 volume with anisotropic spacing and a computed
// level 1 (halved on every axis), with values from a hash of the position.
func volume(dt loader.DType) *memSrc { return volumeIn(dt, []int{4, 8, 6}) }

// volumeIn is volume in chunks of the given shape.
func volumeIn(dt loader.DType, chunk []int) *memSrc {
	shape := []int{13, 37, 29}
	m := loader.NewMeta("mem", "ZYX", shape, dt, chunk, []float64{2.5, 1, 0.75}, nil)
	l0 := m.Levels[0]
	l1 := loader.Level{Shape: []int{7, 19, 15}, Chunk: chunk, Scale: make([]float64, 3), Translation: make([]float64, 3)}
	for i := range l1.Scale {
		l1.Scale[i] = 2 * l0.Scale[i]
		l1.Translation[i] = l0.Translation[i] + l0.Scale[i]/2
	}
	m.Levels = append(m.Levels, l1)
	s := &memSrc{meta: m, chunks: map[string][]byte{}}
	for k, l := range m.Levels {
		n := l.Shape[0] * l.Shape[1] * l.Shape[2]
		a := make([]byte, n*dt.Size())
		for i := 0; i < n; i++ {
			h := uint32(i*2654435761) ^ uint32(k*40503)
			dt.Put(a, i, float64(h%1000))
		}
		s.arrays = append(s.arrays, a)
	}
	return s
}

// reference samples plane p of level k of s straight from the arrays, by
// the definition of Nearest and Linear.
func reference(s *memSrc, p Plane, k int, in Interp) []float64 {
	m := s.meta
	g := geometry(m, k)
	l := &m.Levels[k]
	out := make([]float64, p.W*p.H)
	at := func(z, y, x int) float64 {
		return m.DType.At(s.arrays[k], (z*l.Shape[1]+y)*l.Shape[2]+x)
	}
	for i := 0; i < p.H; i++ {
		for j := 0; j < p.W; j++ {
			P := p.At(float64(i), float64(j))
			var q [3]float64
			for a := range q {
				q[a] = (P[a] + g.offset[a]) / g.scale[a]
			}
			v := 0.0
			if in == Nearest {
				var ix [3]int
				inside := true
				for a := range q {
					inside = inside && q[a] >= -0.5 && q[a] <= float64(g.n[a])-0.5
					ix[a] = min(g.n[a]-1, int(math.Floor(q[a]+0.5)))
				}
				if inside {
					v = at(ix[0], ix[1], ix[2])
				}
			} else {
				var i0, i1 [3]int
				var f [3]float64
				inside := true
				for a := range q {
					inside = inside && q[a] >= 0 && q[a] <= float64(g.n[a]-1)
					i0[a] = int(math.Floor(q[a]))
					f[a] = q[a] - float64(i0[a])
					i1[a] = min(i0[a]+1, g.n[a]-1)
				}
				if inside {
					for c := 0; c < 8; c++ {
						w := 1.0
						var ix [3]int
						for a := 0; a < 3; a++ {
							if c>>(2-a)&1 == 1 {
								w, ix[a] = w*f[a], i1[a]
							} else {
								w, ix[a] = w*(1-f[a]), i0[a]
							}
						}
						v += w * at(ix[0], ix[1], ix[2])
					}
				}
			}
			out[i*p.W+j] = v
		}
	}
	return out
}

func tilted(pixel float64) Plane {
	u, v, _ := Basis([]Turn{{'x', 31}, {'y', -17}, {'z', 12}})
	return Plane{Center: Vec{14, 17, 10.3}, U: u, V: v, Pixel: pixel, W: 41, H: 35}
}

// steep is a plane along which every axis moves by more than an eighth
// of a sample at level 0 (no axis is held, see linearRun).
func steep(pixel float64) Plane {
	u, v, _ := Basis([]Turn{{'x', 50}, {'y', 45}, {'z', 30}})
	return Plane{Center: Vec{14, 17, 10.3}, U: u, V: v, Pixel: pixel, W: 41, H: 35}
}

func TestSampleMatchesDefinition(t *testing.T) {
	for _, dt := range []loader.DType{loader.Uint16, loader.Float32, loader.Int8} {
		for _, k := range []int{0, 1} {
			for c, in := range []Interp{Nearest, Linear, Nearest, Linear} {
				s := volume(dt)
				p := tilted(0.6)
				if c >= 2 {
					p = steep(0.6)
				}
				ref := reference(s, p, k, in)
				var sm Sampler
				got := make([]float32, p.W*p.H)
				info := sm.Float(got, p, s, k, in)
				if !info.Complete || info.Unfilled != 0 {
					t.Fatalf("%v level %d %v: %+v", dt, k, in, info)
				}
				inside := 0
				for i := range ref {
					if math.Abs(float64(got[i])-ref[i]) > 1e-3*max(1, math.Abs(ref[i])) {
						t.Fatalf("%v level %d %v: sample %d = %v, want %v", dt, k, in, i, got[i], ref[i])
					}
					if ref[i] != 0 {
						inside++
					}
				}
				if inside < len(ref)/4 {
					t.Fatalf("only %d of %d samples inside the data", inside, len(ref))
				}
				if in == Nearest {
					nat := make([]byte, p.W*p.H*dt.Size())
					sm.Native(nat, p, s, k)
					for i := range ref {
						if dt.At(nat, i) != ref[i] {
							t.Fatalf("%v level %d native: sample %d = %v, want %v", dt, k, i, dt.At(nat, i), ref[i])
						}
					}
				}
			}
		}
	}
}

// TestAxisAligned: an unrotated plane through a sample's centre, one
// sample per pixel, gives the data's own plane.
func TestAxisAligned(t *testing.T) {
	s := volume(loader.Uint16)
	sp := Spacing(s.meta)
	u, v, _ := Basis(nil)
	p := Plane{Center: Vec{5 * sp[Z], 18 * sp[Y], 14 * sp[X]}, U: u, V: v, Pixel: sp[X], W: 29, H: 37}
	p.Pixel = 0.75
	p.V = p.V.Scale(1 / 0.75) // rows one Y sample apart
	var sm Sampler
	for _, in := range []Interp{Nearest, Linear} {
		got := make([]float32, p.W*p.H)
		sm.Float(got, p, s, 0, in)
		for i := 0; i < p.H; i++ {
			for j := 0; j < p.W; j++ {
				want := loader.Uint16.At(s.arrays[0], (5*37+i)*29+j)
				if float64(got[i*p.W+j]) != want {
					t.Fatalf("%v (%d,%d) = %v, want %v", in, i, j, got[i*p.W+j], want)
				}
			}
		}
	}
}

// TestFallback: samples whose chunks of the level asked for are not in
// memory come from the coarser level; the missing chunks are listed
// nearest the centre first, and the plane is complete once they are in.
func TestFallback(t *testing.T) {
	s := volume(loader.Uint16)
	p := tilted(0.6)
	full := reference(s, p, 0, Nearest)
	coarse := reference(s, p, 1, Nearest)
	s.cached = map[string]bool{}
	l1 := &s.meta.Levels[1]
	g := l1.Grid()
	for z := 0; z < g[0]; z++ {
		for y := 0; y < g[1]; y++ {
			for x := 0; x < g[2]; x++ {
				s.cached[key(1, []int{z, y, x})] = true
			}
		}
	}
	var sm Sampler
	sm.Mask = make([]uint8, p.W*p.H)
	got := make([]float32, p.W*p.H)
	info := sm.Float(got, p, s, 0, Nearest)
	if info.Complete || info.Missing == 0 || info.Unfilled != 0 {
		t.Fatalf("nothing of level 0 in memory: %+v", info)
	}
	for i := range got {
		want := coarse[i]
		if sm.Mask[i] == Outside { // outside level 0's samples, whatever level 1 covers
			want = 0
		}
		if float64(got[i]) != want {
			t.Fatalf("sample %d = %v, want level 1's %v", i, got[i], want)
		}
	}
	lv, idxs := sm.Missing()
	if lv != 0 || len(idxs) != info.Missing {
		t.Fatalf("Missing lists %d chunks of level %d, Info says %d", len(idxs), lv, info.Missing)
	}
	// Nearest the centre first: the first holds the centre's sample.
	c := p.At(float64(p.H-1)/2, float64(p.W-1)/2)
	sp := Spacing(s.meta)
	for a, ch := range s.meta.Levels[0].Chunk {
		if want := int(math.Floor(c[a]/sp[a]+0.5)) / ch; idxs[0][a] != want {
			t.Fatalf("first chunk %v does not hold the centre (axis %d: want %d)", idxs[0], a, want)
		}
	}
	sm.Request(s, levels.Visible, 1)
	for _, r := range s.reqs {
		s.cached[key(r[0], r[1:])] = true
	}
	info = sm.Float(got, p, s, 0, Nearest)
	if !info.Complete || info.Missing != 0 {
		t.Fatalf("after the requested chunks arrived: %+v", info)
	}
	for i := range got {
		if float64(got[i]) != full[i] {
			t.Fatalf("sample %d = %v, want %v", i, got[i], full[i])
		}
	}
	// Without fallback the missing samples stay unfilled.
	s.cached = map[string]bool{}
	sm.NoFallback = true
	sm.Forget()
	info = sm.Float(got, p, s, 0, Linear)
	if info.Unfilled == 0 || info.Unfilled+countState(sm.Mask, Outside) != p.W*p.H {
		t.Fatalf("no chunk in memory, no fallback: %+v", info)
	}
}

func countState(m []uint8, st uint8) int {
	n := 0
	for _, v := range m {
		if v == st {
			n++
		}
	}
	return n
}

// TestNoAllocations: sampling the same plane again allocates nothing.
func TestNoAllocations(t *testing.T) {
	s := volume(loader.Uint16)
	p := tilted(0.6)
	var sm Sampler
	got := make([]float32, p.W*p.H)
	for _, in := range []Interp{Nearest, Linear} {
		sm.Float(got, p, s, 0, in)
		if n := testing.AllocsPerRun(5, func() { sm.Float(got, p, s, 0, in) }); n != 0 {
			t.Fatalf("%v: %v allocations per plane", in, n)
		}
	}
}

func TestChooseLevel(t *testing.T) {
	m := volume(loader.Uint16).meta
	u, v, _ := Basis(nil)
	// Level 0's samples are 0.75 (X) by 1 (Y); level 1's 1.5 by 2.
	for _, c := range []struct {
		pixel float64
		want  int
	}{{0.5, 0}, {1, 0}, {1.9, 0}, {2, 1}, {10, 1}} {
		if got := ChooseLevel(m, Plane{U: u, V: v, Pixel: c.pixel}); got != c.want {
			t.Errorf("pixel %v: level %d, want %d", c.pixel, got, c.want)
		}
	}
	// Turned to show Z (spacing 2.5) down the rows: level 1's 5 along Z.
	u, v, _ = Basis([]Turn{{'x', 90}})
	for _, c := range []struct {
		pixel float64
		want  int
	}{{2, 0}, {4.9, 0}, {5, 1}} {
		if got := ChooseLevel(m, Plane{U: u, V: v, Pixel: c.pixel}); got != c.want {
			t.Errorf("xz, pixel %v: level %d, want %d", c.pixel, got, c.want)
		}
	}
}

func TestBasis(t *testing.T) {
	u, v, w := Basis([]Turn{{'z', 90}})
	if u != (Vec{0, 1, 0}) || v != (Vec{0, 0, -1}) || w != (Vec{1, 0, 0}) {
		t.Fatalf("z:90 gives u %v v %v w %v", u, v, w)
	}
	u, v, w = Basis([]Turn{{'x', 90}})
	if u != (Vec{0, 0, 1}) || v != (Vec{1, 0, 0}) || w != (Vec{0, -1, 0}) {
		t.Fatalf("x:90 gives u %v v %v w %v", u, v, w)
	}
	if _, err := ParseRotate("q:3"); err == nil {
		t.Fatal("axis q accepted")
	}
	if ts, err := ParseRotate("x:30, Y:-12.5"); err != nil || len(ts) != 2 || ts[1] != (Turn{'y', -12.5}) {
		t.Fatalf("ParseRotate: %v %v", ts, err)
	}
}

// TestTurnAbout: turning about the view's axes with render.Turn gives the
// basis plane --rotate gives for the same turns in reverse order.
func TestTurnAbout(t *testing.T) {
	var tr render.Turn
	tr = tr.About(Vec{0, 0, 1}, 30)            // about the screen's x (X)
	tr = tr.About(tr.Apply(Vec{0, 1, 0}), -20) // then about its y, as turned
	u, v, _ := Basis([]Turn{{'y', -20}, {'x', 30}})
	gu, gv := tr.Apply(Vec{0, 0, 1}), tr.Apply(Vec{0, 1, 0})
	for a := 0; a < 3; a++ {
		if math.Abs(gu[a]-u[a]) > 1e-12 || math.Abs(gv[a]-v[a]) > 1e-12 {
			t.Fatalf("u %v v %v, --rotate gives %v %v", gu, gv, u, v)
		}
	}
}

// TestNearlyAligned: planes turned a little, so that along a row one axis
// moves by a small fraction of a sample (up or down), match the
// definition of both interpolations.
func TestNearlyAligned(t *testing.T) {
	s := volume(loader.Uint16)
	for _, turns := range [][]Turn{{{'y', 4}}, {{'y', 30}, {'z', 4}}, {{'y', -35}, {'z', -3}}, {{'x', 3}, {'z', 2}}, {{'z', -5}, {'x', -2}},
		{{'z', 87}, {'x', 25}}} { // the last holds X
		u, v, _ := Basis(turns)
		p := Plane{Center: Vec{15, 18, 10.5}, U: u, V: v, Pixel: 0.5, W: 45, H: 70}
		for _, in := range []Interp{Nearest, Linear} {
			ref := reference(s, p, 0, in)
			var sm Sampler
			got := make([]float32, p.W*p.H)
			sm.Float(got, p, s, 0, in)
			inside := 0
			for i := range ref {
				if math.Abs(float64(got[i])-ref[i]) > 1e-3*max(1, math.Abs(ref[i])) {
					t.Fatalf("%v %v: sample %d = %v, want %v", turns, in, i, got[i], ref[i])
				}
				if ref[i] != 0 {
					inside++
				}
			}
			if inside < len(ref)/2 {
				t.Fatalf("%v: only %d of %d samples inside the data", turns, inside, len(ref))
			}
		}
	}
}

// TestRoundedIsTheNearestValue: trilinear samples in the data's own type
// are the definition's values rounded to the nearest (halves up), for
// unsigned and signed types, on planes with and without a held axis, in
// small chunks and in one chunk (runs along a row as long as the plane).
func TestRoundedIsTheNearestValue(t *testing.T) {
	for c, dt := range []loader.DType{loader.Uint8, loader.Int8, loader.Uint16, loader.Int16, loader.Uint16, loader.Int16} {
		s := volume(dt)
		if c >= 4 {
			s = volumeIn(dt, []int{13, 37, 29}) // one chunk: long runs
		}
		if dt.Signed() {
			// Values on both sides of 0 (int8's are 127 at most).
			shift := map[loader.DType]float64{loader.Int8: 60, loader.Int16: 500}[dt]
			for _, a := range s.arrays {
				for i := 0; i < len(a)/dt.Size(); i++ {
					dt.Put(a, i, dt.At(a, i)-shift)
				}
			}
		}
		for _, p := range []Plane{tilted(0.6), steep(0.6)} {
			ref := reference(s, p, 0, Linear)
			var sm Sampler
			got := make([]byte, p.W*p.H*dt.Size())
			if info := sm.Rounded(got, p, s, 0); !info.Complete {
				t.Fatalf("%v: %+v", dt, info)
			}
			negative := 0
			for i, r := range ref {
				if math.Abs(r-math.Floor(r)-0.5) < 1e-6 {
					continue // a half, up to rounding
				}
				if want := math.Floor(r + 0.5); dt.At(got, i) != want {
					t.Fatalf("%v: sample %d = %v, want %v (%v rounded)", dt, i, dt.At(got, i), want, r)
				}
				if r < -0.5 {
					negative++
				}
			}
			if dt.Signed() && negative == 0 {
				t.Fatalf("%v: no negative values tried", dt)
			}
		}
	}
}

// lockedSrc is a memSrc safe for concurrent use, of whose chunks those in
// failed failed to load.
type lockedSrc struct {
	mu     sync.Mutex
	s      *memSrc
	failed map[string]bool
}

func (l *lockedSrc) Meta() *loader.Meta { return l.s.meta }

func (l *lockedSrc) Get(level int, idx []int) []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.s.Get(level, idx)
}

func (l *lockedSrc) Request(prio levels.Priority, gen uint64, level int, idxs ...[]int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.s.Request(prio, gen, level, idxs...)
}

func (l *lockedSrc) Failed(level int, idx []int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failed[key(level, idx)] {
		return fmt.Errorf("chunk %v of level %d: unreadable", idx, level)
	}
	return nil
}

// TestWorkersSampleWhatOneDoes: a plane sampled in bands of rows by
// several workers has the values, states and Info of the plane sampled by
// one, and lists the same missing chunks in the same order (nearest the
// centre first over the whole plane): with every chunk in memory, with
// part of level 0 (the rest from level 1), with failed chunks, and within
// FromRow and ToRow.
func TestWorkersSampleWhatOneDoes(t *testing.T) {
	u, v, _ := Basis([]Turn{{'x', 31}, {'y', -17}, {'z', 12}})
	p := Plane{Center: Vec{14, 17, 10.3}, U: u, V: v, Pixel: 0.2, W: 57, H: 230}
	partial := func(s *memSrc) map[string]bool {
		c := map[string]bool{}
		for k, l := range s.meta.Levels {
			g := l.Grid()
			for z := 0; z < g[0]; z++ {
				for y := 0; y < g[1]; y++ {
					for x := 0; x < g[2]; x++ {
						c[key(k, []int{z, y, x})] = k == 1 || (z+y+x)%3 != 0
					}
				}
			}
		}
		return c
	}
	for _, c := range []struct {
		name     string
		cached   bool
		failed   bool
		from, to int
	}{{"all in memory", false, false, 0, 0}, {"part of level 0", true, false, 0, 0},
		{"failed chunks", true, true, 0, 0}, {"rows 20 to 210", true, false, 20, 210}} {
		for _, in := range []Interp{Nearest, Linear} {
			type result struct {
				nat   []byte
				flt   []float32
				mask  []uint8
				info  [2]Info
				reqs  [][]int
				level int
			}
			var want, got result
			for w, res := range []*result{&want, &got} {
				ms := volume(loader.Uint16)
				src := &lockedSrc{s: ms}
				if c.cached {
					ms.cached = partial(ms)
				}
				if c.failed {
					src.failed = map[string]bool{key(0, []int{1, 1, 1}): true, key(0, []int{1, 2, 3}): true}
				}
				sm := Sampler{Workers: 1 + 2*w, FromRow: c.from, ToRow: c.to}
				n := p.W * p.H
				res.mask = make([]uint8, n)
				sm.Mask = res.mask
				res.nat = make([]byte, 2*n)
				res.flt = make([]float32, n)
				if in == Nearest {
					res.info[0] = sm.Native(res.nat, p, src, 0)
				} else {
					res.info[0] = sm.Rounded(res.nat, p, src, 0)
				}
				res.info[1] = sm.Float(res.flt, p, src, 0, in)
				var idxs [][]int
				res.level, idxs = sm.Missing()
				for _, idx := range idxs {
					res.reqs = append(res.reqs, append([]int(nil), idx...))
				}
			}
			name := fmt.Sprintf("%s, %v", c.name, in)
			if fmt.Sprint(got.info) != fmt.Sprint(want.info) {
				t.Fatalf("%s: Info %+v with 3 workers, %+v with one", name, got.info, want.info)
			}
			if c.cached && want.info[1].Missing == 0 || c.failed && want.info[1].Failed != 2 {
				t.Fatalf("%s: the case misses no chunk: %+v", name, want.info[1])
			}
			if fmt.Sprint(got.reqs) != fmt.Sprint(want.reqs) || got.level != want.level {
				t.Fatalf("%s: missing %v of level %d with 3 workers, %v of %d with one", name, got.reqs, got.level,
					want.reqs, want.level)
			}
			for i := range want.mask {
				if got.mask[i] != want.mask[i] || got.flt[i] != want.flt[i] || got.nat[2*i] != want.nat[2*i] ||
					got.nat[2*i+1] != want.nat[2*i+1] {
					t.Fatalf("%s: sample %d (row %d): %v %v %v with 3 workers, %v %v %v with one", name, i, i/p.W,
						got.mask[i], got.flt[i], got.nat[2*i:2*i+2], want.mask[i], want.flt[i], want.nat[2*i:2*i+2])
				}
			}
			if c.to > 0 && (want.mask[0] != 0 || want.mask[len(want.mask)-1] != 0) {
				t.Fatalf("%s: rows outside FromRow and ToRow were sampled", name)
			}
		}
	}
}

// TestWorkersAllocateNothing: sampling the same plane again in bands
// allocates nothing either.
func TestWorkersAllocateNothing(t *testing.T) {
	u, v, _ := Basis([]Turn{{'x', 31}, {'y', -17}, {'z', 12}})
	p := Plane{Center: Vec{14, 17, 10.3}, U: u, V: v, Pixel: 0.2, W: 57, H: 230}
	src := &lockedSrc{s: volume(loader.Uint16)}
	sm := Sampler{Workers: 2}
	got := make([]float32, p.W*p.H)
	for _, in := range []Interp{Nearest, Linear} {
		sm.Float(got, p, src, 0, in)
		if n := testing.AllocsPerRun(5, func() { sm.Float(got, p, src, 0, in) }); n != 0 {
			t.Fatalf("%v: %v allocations per plane", in, n)
		}
	}
}
