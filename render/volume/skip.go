package volume

import (
	"math"
	"unsafe"

	"vastview/loader"
	"vastview/render/oblique"
)

// Empty-space skipping: a tile's slice whose samples all come from
// chunks whose values cannot change its rays (below every ray's running
// max for MIP, above its running min for MinIP, transparent for Alpha,
// below the threshold for Iso) is not sampled. Each chunk's min and max
// are worked out the first time it is met and kept while it stays in
// memory.

// brick is what a worker knows of one chunk of the level drawn in this
// frame: whether it was looked up, whether it is in memory, and its
// values' range.
type brick struct {
	gen    uint32
	ok     bool
	lo, hi float64
}

// statKey names a chunk of the source whose description is meta (the
// image's or a label layer's: their chunks may share indices); statVal
// is its range, valid while its data is at ptr.
type statKey struct {
	meta  *loader.Meta
	level int32
	idx   [5]int32
}

type statVal struct {
	ptr    unsafe.Pointer
	lo, hi float64
}

// maxGrid bounds the chunks of a level skipping keeps track of; a level
// of more is drawn without skipping.
const maxGrid = 1 << 22

// maxStats bounds the chunk ranges a worker remembers.
const maxStats = 1 << 16

// skipper is a worker's state for skipping.
type skipper struct {
	gen    uint32
	grid   []brick
	stats  map[statKey]statVal
	idx    []int
	fixed  []int // chunk index on each axis that is not Z, Y or X
	slot   [3]int
	gsize  [3]int
	chunk  [3]int
	n      [3]int
	scale  oblique.Vec
	offset oblique.Vec
	on     bool
	ranges int // chunk ranges worked out (not found in stats)
}

// prepare readies skipping for frame f.
func (sk *skipper) prepare(f *frame) {
	sk.on = !f.noSkip && f.o.Mode != Mean
	if !sk.on {
		return
	}
	m := f.meta
	l := &m.Levels[f.level]
	g := 1
	for a, c := range []byte("ZYX") {
		sk.slot[a] = m.AxisIndex(c)
		sk.gsize[a], sk.chunk[a], sk.n[a] = 1, 1, 1
		if i := sk.slot[a]; i >= 0 {
			sk.chunk[a], sk.n[a] = max(1, l.Chunk[i]), l.Shape[i]
			sk.gsize[a] = (l.Shape[i] + sk.chunk[a] - 1) / sk.chunk[a]
		}
		g *= sk.gsize[a]
	}
	if g > maxGrid {
		sk.on = false
		return
	}
	if cap(sk.grid) < g {
		sk.grid = make([]brick, g)
		sk.gen = 0
	}
	sk.grid = sk.grid[:g]
	sk.gen++
	if sk.gen == 0 { // wrapped: every entry is stale
		clear(sk.grid)
		sk.gen = 1
	}
	if sk.stats == nil {
		sk.stats = map[statKey]statVal{}
	}
	if cap(sk.idx) < len(m.Axes) {
		sk.idx, sk.fixed = make([]int, len(m.Axes)), make([]int, len(m.Axes))
	}
	sk.idx, sk.fixed = sk.idx[:len(m.Axes)], sk.fixed[:len(m.Axes)]
	for i := range sk.fixed {
		sk.fixed[i] = 0
		switch m.Axes[i] {
		case 'T':
			sk.fixed[i] = max(0, min(l.Shape[i]-1, f.p.T)) / max(1, l.Chunk[i])
		case 'C':
			sk.fixed[i] = max(0, min(l.Shape[i]-1, f.p.C)) / max(1, l.Chunk[i])
		}
	}
	sk.scale, sk.offset = oblique.LevelScale(m, f.level)
}

// rangeOf returns the range of the values in the chunks holding the
// samples a plane q (W×H, one output sample a step of its pixel)
// may read, and the slices up to ext steps of d before and after it;
// ok is false when one of them is not in memory (or skipping is off).
func (sk *skipper) rangeOf(f *frame, q *oblique.Plane, d oblique.Vec, ext float64) (lo, hi float64, ok bool) {
	if !sk.on {
		return 0, 0, false
	}
	var qlo, qhi [3]float64
	for a := range qlo {
		qlo[a], qhi[a] = math.Inf(1), math.Inf(-1)
	}
	hw, hh := float64(q.W-1)/2*q.Pixel, float64(q.H-1)/2*q.Pixel
	for c := 0; c < 8; c++ {
		su, sv, sd := float64(c&1*2-1), float64(c>>1&1*2-1), float64(c>>2&1*2-1)
		for a := 0; a < 3; a++ {
			P := q.Center[a] + su*hw*q.U[a] + sv*hh*q.V[a] + sd*ext*d[a]
			x := (P + sk.offset[a]) / sk.scale[a]
			qlo[a], qhi[a] = min(qlo[a], x), max(qhi[a], x)
		}
	}
	var c0, c1 [3]int
	for a := 0; a < 3; a++ {
		// A sample within one of the points, for rounding and for the
		// second sample of linear interpolation.
		l, h := math.Floor(qlo[a])-1, math.Ceil(qhi[a])+1
		l, h = max(0, min(l, float64(sk.n[a]-1))), max(0, min(h, float64(sk.n[a]-1)))
		c0[a], c1[a] = int(l)/sk.chunk[a], int(h)/sk.chunk[a]
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for z := c0[0]; z <= c1[0]; z++ {
		for y := c0[1]; y <= c1[1]; y++ {
			for x := c0[2]; x <= c1[2]; x++ {
				b := sk.brick(f, z, y, x)
				if !b.ok {
					return 0, 0, false
				}
				lo, hi = min(lo, b.lo), max(hi, b.hi)
			}
		}
	}
	return lo, hi, true
}

// brick returns what is known this frame of chunk (z, y, x), looking it
// up the first time.
func (sk *skipper) brick(f *frame, z, y, x int) *brick {
	b := &sk.grid[(z*sk.gsize[1]+y)*sk.gsize[2]+x]
	if b.gen == sk.gen {
		return b
	}
	b.gen, b.ok = sk.gen, false
	copy(sk.idx, sk.fixed)
	key := statKey{meta: f.meta, level: int32(f.level)}
	for a, v := range [3]int{z, y, x} {
		if i := sk.slot[a]; i >= 0 {
			sk.idx[i] = v
		}
	}
	for i, v := range sk.idx {
		key.idx[i] = int32(v)
	}
	d := f.src.Get(f.level, sk.idx)
	if len(d) == 0 {
		return b
	}
	ptr := unsafe.Pointer(unsafe.SliceData(d))
	st, ok := sk.stats[key]
	if !ok || st.ptr != ptr {
		if len(sk.stats) >= maxStats {
			clear(sk.stats)
		}
		st.ptr = ptr
		st.lo, st.hi = valueRange(d, f.meta.DType)
		sk.stats[key] = st
		sk.ranges++
	}
	b.ok, b.lo, b.hi = true, st.lo, st.hi
	return b
}

// valueRange returns the smallest and largest value in d, samples of dt
// (NaN left out).
func valueRange(d []byte, dt loader.DType) (lo, hi float64) {
	switch dt {
	case loader.Uint8:
		return rangeOf[uint8](d)
	case loader.Int8:
		return rangeOf[int8](d)
	case loader.Uint16:
		return rangeOf[uint16](d)
	case loader.Int16:
		return rangeOf[int16](d)
	case loader.Uint32:
		return rangeOf[uint32](d)
	case loader.Int32:
		return rangeOf[int32](d)
	case loader.Uint64:
		return rangeOf[uint64](d)
	case loader.Int64:
		return rangeOf[int64](d)
	case loader.Float32:
		return rangeOf[float32](d)
	case loader.Float64:
		return rangeOf[float64](d)
	}
	return math.Inf(-1), math.Inf(1)
}

type number interface {
	~uint8 | ~int8 | ~uint16 | ~int16 | ~uint32 | ~int32 | ~uint64 | ~int64 | ~float32 | ~float64
}

func rangeOf[T number](d []byte) (lo, hi float64) {
	n := len(d) / int(unsafe.Sizeof(T(0)))
	if n == 0 {
		return math.Inf(1), math.Inf(-1)
	}
	v := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(d))), n)
	mn, mx := v[0], v[0]
	for _, x := range v {
		if x != x { // NaN
			continue
		}
		if x < mn || mn != mn {
			mn = x
		}
		if x > mx || mx != mx {
			mx = x
		}
	}
	return float64(mn), float64(mx)
}
