package oblique

import (
	"encoding/binary"
	"math"
	"unsafe"

	"vastview/levels"
	"vastview/loader"
)

// Slab is a stack of planes parallel to a plane p, along its normal
// w = U × V: plane k lies at p.Center + k·Step·w, for k from A to B
// (inclusive); with Stride more than 1, only every Stride-th of them
// from A on (a coarse level's picture of the slab).
type Slab struct {
	A, B   int
	Step   float64
	Stride int
}

// LevelStride is the Stride that suits sampling slab planes parallel to
// p from level k of data m: the length one level-k sample spans along
// p's normal over the length a level-0 sample does, rounded down (1 at
// least).
func LevelStride(m *loader.Meta, p Plane, k int) int {
	w := p.U.Cross(p.V)
	g0, gk := geometry(m, 0), geometry(m, k)
	f0, fk := g0.footprint(w), gk.footprint(w)
	if !(f0 > 0) || !(fk > f0) {
		return 1
	}
	return max(1, int(fk/f0+1e-9))
}

// SlabAll is the slab of planes parallel to p, step apart, that reaches
// across data m's box (level-0 samples' cells, [−0.5, n−0.5]·spacing per
// axis): every plane of it that meets the data.
func SlabAll(m *loader.Meta, p Plane, step float64) Slab {
	sp, n := Spacing(m), Extent(m)
	w := p.U.Cross(p.V)
	lo, hi := math.Inf(1), math.Inf(-1)
	for c := 0; c < 8; c++ {
		var d float64
		for a := 0; a < 3; a++ {
			x := -0.5
			if c>>a&1 != 0 {
				x = float64(n[a]) - 0.5
			}
			d += (x*sp[a] - p.Center[a]) * w[a]
		}
		lo, hi = min(lo, d/step), max(hi, d/step)
	}
	return Slab{A: int(math.Floor(lo)), B: int(math.Ceil(hi)), Step: step}
}

// Projector projects slabs of planes through a multi-resolution volume
// along their normal: each output sample is the max, min or mean of the
// samples of the slab's planes at its place that lie in the data (see
// Sampler: outside the data there is no sample), 0 where none does.
// It is not safe for concurrent use; the zero value is ready to use.
type Projector struct {
	// S samples each plane of the slab; its NoFallback, FromRow and ToRow
	// apply (its Mask is the projector's own).
	S Sampler
	// Mask, when it holds at least W×H bytes, receives the state of each
	// output sample: Sampled where a plane of the slab had a sample in
	// the data there, Unfilled where one was not in memory at any level
	// (and none was), Outside elsewhere.
	Mask []uint8

	mask  []uint8
	nat   []byte
	flt   []float32
	acc   []float64
	cnt   []int32
	state []uint8
	miss  map[string]bool
	reqs  [][]int
	level int
}

// Native projects slab sl of plane p of src at level by op, by the
// nearest sample, into dst: W×H samples of the data's type (max, min),
// or float32 values (mean), little-endian, row-major.
func (pj *Projector) Native(dst []byte, p Plane, sl Slab, src Source, level int, op loader.Projection) Info {
	return pj.project(dst, nil, p, sl, src, level, Nearest, op)
}

// Float projects slab sl of plane p of src at level by op into dst (W×H
// float32 values, row-major), each plane sampled with interpolation in.
func (pj *Projector) Float(dst []float32, p Plane, sl Slab, src Source, level int, in Interp, op loader.Projection) Info {
	return pj.project(nil, dst, p, sl, src, level, in, op)
}

// Missing returns the chunks of the level last asked for that were not in
// memory for any plane of the slab. The slices are the Projector's, valid
// until its next call.
func (pj *Projector) Missing() (level int, idxs [][]int) { return pj.level, pj.reqs }

// Request asks src for the chunks Missing lists, at priority prio for the
// view generation gen.
func (pj *Projector) Request(src Source, prio levels.Priority, gen uint64) {
	if len(pj.reqs) > 0 {
		src.Request(prio, gen, pj.level, pj.reqs...)
	}
}

func (pj *Projector) project(nat []byte, flt []float32, p Plane, sl Slab, src Source, level int, in Interp,
	op loader.Projection) Info {
	m := src.Meta()
	n := p.W * p.H
	if n <= 0 {
		return Info{Level: level, Complete: true}
	}
	dt := m.DType
	native := nat != nil && op != loader.ProjectMean
	pj.mask = growBytes(pj.mask, n)
	pj.state = growBytes(pj.state, n)
	if cap(pj.acc) < n {
		pj.acc, pj.cnt = make([]float64, n), make([]int32, n)
	}
	pj.acc, pj.cnt = pj.acc[:n], pj.cnt[:n]
	clear(pj.cnt)
	clear(pj.state)
	if in == Nearest {
		pj.nat = growBytes(pj.nat, n*dt.Size())
	} else {
		if cap(pj.flt) < n {
			pj.flt = make([]float32, n)
		}
		pj.flt = pj.flt[:n]
	}
	if pj.miss == nil {
		pj.miss = map[string]bool{}
	}
	clear(pj.miss)
	pj.reqs = pj.reqs[:0]
	from, to := 0, p.H
	if pj.S.ToRow > pj.S.FromRow {
		from, to = max(0, pj.S.FromRow), min(p.H, pj.S.ToRow)
	}
	es := dt.Size()
	w := p.U.Cross(p.V)
	out := Info{Level: level, Complete: true}
	pj.S.Mask = pj.mask
	for k := sl.A; k <= sl.B; k += max(1, sl.Stride) {
		q := p
		q.Center = p.Center.Add(w.Scale(float64(k) * sl.Step))
		var info Info
		if in == Nearest {
			info = pj.S.Native(pj.nat, q, src, level)
		} else {
			info = pj.S.Float(pj.flt, q, src, level, in)
		}
		out.Level = info.Level
		out.Complete = out.Complete && info.Complete
		out.Failed += info.Failed
		if info.Err != nil && out.Err == nil {
			out.Err = info.Err
		}
		var idxs [][]int
		pj.level, idxs = pj.S.Missing()
		for _, idx := range idxs {
			key := string(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(idx))), len(idx)*int(unsafe.Sizeof(0))))
			if !pj.miss[key] {
				pj.miss[key] = true
				pj.reqs = append(pj.reqs, append([]int(nil), idx...))
			}
		}
		vals := pj.nat
		if in != Nearest {
			vals = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(pj.flt))), 4*len(pj.flt))
		}
		pj.reduce(dt, in, nat, vals, op, native, from*p.W, to*p.W)
	}
	out.Missing = len(pj.reqs)
	for i := from * p.W; i < to*p.W; i++ {
		c := pj.cnt[i]
		if pj.state[i] == Unfilled {
			out.Unfilled++
		}
		switch {
		case native:
			if c == 0 {
				clear(nat[i*es : i*es+es])
			}
		case nat != nil: // mean, as float32
			v := float32(0)
			if c > 0 {
				v = float32(pj.acc[i] / float64(c))
			}
			binary.LittleEndian.PutUint32(nat[4*i:], math.Float32bits(v))
		default:
			v := 0.0
			if c > 0 {
				v = pj.acc[i]
				if op == loader.ProjectMean {
					v /= float64(c)
				}
			}
			flt[i] = float32(v)
		}
	}
	if len(pj.Mask) >= n {
		copy(pj.Mask[from*p.W:to*p.W], pj.state[from*p.W:to*p.W])
	}
	return out
}

// reduce folds the samples src of one plane (of type dt for nearest,
// float32 otherwise) into the projection of samples lo up to hi: into
// nat, of type dt, for native max and min, else into the float64
// accumulators.
func (pj *Projector) reduce(dt loader.DType, in Interp, nat, src []byte, op loader.Projection, native bool, lo, hi int) {
	if in != Nearest {
		reduceAs[float32](pj, nat, src, op, native, lo, hi)
		return
	}
	switch dt {
	case loader.Uint8:
		reduceAs[uint8](pj, nat, src, op, native, lo, hi)
	case loader.Int8:
		reduceAs[int8](pj, nat, src, op, native, lo, hi)
	case loader.Uint16:
		reduceAs[uint16](pj, nat, src, op, native, lo, hi)
	case loader.Int16:
		reduceAs[int16](pj, nat, src, op, native, lo, hi)
	case loader.Uint32:
		reduceAs[uint32](pj, nat, src, op, native, lo, hi)
	case loader.Int32:
		reduceAs[int32](pj, nat, src, op, native, lo, hi)
	case loader.Uint64:
		reduceAs[uint64](pj, nat, src, op, native, lo, hi)
	case loader.Int64:
		reduceAs[int64](pj, nat, src, op, native, lo, hi)
	case loader.Float32:
		reduceAs[float32](pj, nat, src, op, native, lo, hi)
	case loader.Float64:
		reduceAs[float64](pj, nat, src, op, native, lo, hi)
	}
}

func reduceAs[T number](pj *Projector, nat, src []byte, op loader.Projection, native bool, lo, hi int) {
	size := int(unsafe.Sizeof(T(0)))
	vals := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(src))), len(src)/size)
	var dst []T
	if native {
		dst = unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(nat))), len(nat)/size)
	}
	mask, state, cnt, acc := pj.mask, pj.state, pj.cnt, pj.acc
	for i := lo; i < hi; i++ {
		switch mask[i] {
		case Outside:
			continue
		case Unfilled:
			if state[i] == Outside {
				state[i] = Unfilled
			}
			continue
		}
		state[i] = Sampled
		v := vals[i]
		c := cnt[i]
		cnt[i]++
		switch {
		case op == loader.ProjectMean:
			if c == 0 {
				acc[i] = 0
			}
			acc[i] += float64(v)
		case native:
			if c == 0 || op == loader.ProjectMax && v > dst[i] || op == loader.ProjectMin && v < dst[i] {
				dst[i] = v
			}
		default:
			if f := float64(v); c == 0 || op == loader.ProjectMax && f > acc[i] || op == loader.ProjectMin && f < acc[i] {
				acc[i] = f
			}
		}
	}
}

func growBytes(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}
