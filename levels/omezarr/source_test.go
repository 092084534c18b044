package omezarr

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"

	"vastview/base/nd"
	"vastview/loader"
)

// memSource is an in-memory loader.Source with several levels, each stored
// whole in C order. Hooks let tests fail or watch reads.
type memSource struct {
	meta *loader.Meta
	data [][]byte // per level

	inFlight, maxInFlight atomic.Int64
	// before, when set, runs at the start of each ReadChunk; an error it
	// returns is returned by ReadChunk.
	before func(ctx context.Context, level int, idx []int) error
}

func (s *memSource) Meta() *loader.Meta { return s.meta }
func (s *memSource) Close() error       { return nil }

func (s *memSource) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		m := s.maxInFlight.Load()
		if n <= m || s.maxInFlight.CompareAndSwap(m, n) {
			break
		}
	}
	if s.before != nil {
		if err := s.before(ctx, level, idx); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if level < 0 || level >= len(s.meta.Levels) {
		return fmt.Errorf("no level %d", level)
	}
	l := &s.meta.Levels[level]
	es := s.meta.DType.Size()
	if len(idx) != len(l.Shape) || len(dst) != l.ChunkBytes(s.meta.DType) {
		return fmt.Errorf("bad chunk request")
	}
	clear(dst)
	forEach(l.Chunk, func(p []int) {
		off, in := 0, true
		for i := range p {
			g := idx[i]*l.Chunk[i] + p[i]
			in = in && g < l.Shape[i]
			off = off*l.Shape[i] + g
		}
		if in {
			co := 0
			for i := range p {
				co = co*l.Chunk[i] + p[i]
			}
			copy(dst[co*es:(co+1)*es], s.data[level][off*es:(off+1)*es])
		}
	})
	return nil
}

// forEach calls fn with every index of shape in C order (fn must not keep p).
func forEach(shape []int, fn func(p []int)) {
	for _, s := range shape {
		if s == 0 {
			return
		}
	}
	p := make([]int, len(shape))
	for {
		fn(p)
		if !nd.Next(p, shape) {
			return
		}
	}
}

// get and set read and write sample i of a little-endian buffer of type d.
func get(d loader.DType, b []byte, i int) float64 {
	switch d {
	case loader.Uint8:
		return float64(b[i])
	case loader.Int8:
		return float64(int8(b[i]))
	case loader.Uint16:
		return float64(binary.LittleEndian.Uint16(b[2*i:]))
	case loader.Int16:
		return float64(int16(binary.LittleEndian.Uint16(b[2*i:])))
	case loader.Uint32:
		return float64(binary.LittleEndian.Uint32(b[4*i:]))
	case loader.Int32:
		return float64(int32(binary.LittleEndian.Uint32(b[4*i:])))
	case loader.Float32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
	case loader.Float64:
		return math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	panic("bad dtype")
}

func set(d loader.DType, b []byte, i int, v float64) {
	switch d {
	case loader.Uint8, loader.Int8:
		b[i] = byte(int64(v))
	case loader.Uint16, loader.Int16:
		binary.LittleEndian.PutUint16(b[2*i:], uint16(int64(v)))
	case loader.Uint32, loader.Int32:
		binary.LittleEndian.PutUint32(b[4*i:], uint32(int64(v)))
	case loader.Float32:
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(v)))
	case loader.Float64:
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
}

// ranges are the sample ranges test data spans per type.
var ranges = map[loader.DType][2]float64{
	loader.Uint8: {0, 255}, loader.Int8: {-128, 127},
	loader.Uint16: {0, 65535}, loader.Int16: {-32768, 32767},
	loader.Uint32: {0, 1<<32 - 1}, loader.Int32: {-1 << 31, 1<<31 - 1},
	loader.Float32: {-1e3, 1e3}, loader.Float64: {-1e6, 1e6},
}

// random fills n samples of type d with values spread over the type's range
// (fractions for floats), a tenth of them zero.
func random(d loader.DType, n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n*d.Size())
	lo, hi := ranges[d][0], ranges[d][1]
	for i := 0; i < n; i++ {
		v := 0.0
		if r.IntN(10) > 0 {
			v = lo + r.Float64()*(hi-lo)
			if !d.Float() {
				v = math.Floor(v)
			}
		}
		set(d, b, i, v)
	}
	return b
}

// spec describes a test image: axes, level-0 shape and chunk, sample type,
// number of levels, spacing, origin and units.
type spec struct {
	axes    string
	shape   []int
	chunk   []int
	dtype   loader.DType
	levels  int
	spacing []float64
	origin  []float64
	units   []string
	sparse  bool // level 0's first half (in C order) is zero
}

// build makes a memSource of sp: random level-0 samples and each further
// level the 2x mean of the previous one along every spatial axis still
// larger than its chunk (a partial edge block is the mean of the samples it
// has; integers round half up), with OME-NGFF scale and translation.
func build(sp spec, seed uint64) *memSource {
	n := len(sp.axes)
	m := loader.NewMeta("memory", sp.axes, sp.shape, sp.dtype, sp.chunk, sp.spacing, sp.units)
	if sp.origin != nil {
		m.Levels[0].Translation = append([]float64(nil), sp.origin...)
	}
	src := &memSource{meta: m, data: [][]byte{random(sp.dtype, count(sp.shape), seed)}}
	if sp.sparse {
		clear(src.data[0][:len(src.data[0])/2])
	}
	f := make([]float64, n)
	for i := range f {
		f[i] = 1
	}
	for k := 1; k < sp.levels; k++ {
		prev := m.Levels[k-1]
		fac := make([]int, n)
		shape := make([]int, n)
		for i := 0; i < n; i++ {
			fac[i], shape[i] = 1, prev.Shape[i]
			if strings.IndexByte("ZYX", sp.axes[i]) >= 0 && prev.Shape[i] > prev.Chunk[i] {
				fac[i], shape[i] = 2, (prev.Shape[i]+1)/2
				f[i] *= 2
			}
		}
		l := loader.Level{Shape: shape, Chunk: append([]int(nil), sp.chunk...),
			Scale: make([]float64, n), Translation: make([]float64, n)}
		for i := 0; i < n; i++ {
			s0 := m.Levels[0].Scale[i]
			l.Scale[i] = s0 * f[i]
			l.Translation[i] = m.Levels[0].Translation[i] + (f[i]-1)/2*s0
		}
		m.Levels = append(m.Levels, l)
		src.data = append(src.data, meanDown(sp.dtype, src.data[k-1], prev.Shape, shape, fac))
	}
	if err := m.Validate(); err != nil {
		panic(err)
	}
	return src
}

// meanDown is the reference block mean of in (shape) by factors fac.
func meanDown(d loader.DType, in []byte, shape, out, fac []int) []byte {
	res := make([]byte, count(out)*d.Size())
	o := 0
	forEach(out, func(p []int) {
		sum, cnt := 0.0, 0
		forEach(fac, func(q []int) {
			off := 0
			for i := range p {
				g := p[i]*fac[i] + q[i]
				if g >= shape[i] {
					return
				}
				off = off*shape[i] + g
			}
			sum += get(d, in, off)
			cnt++
		})
		v := sum / float64(cnt)
		if !d.Float() {
			v = math.Floor(v + 0.5)
		}
		set(d, res, o, v)
		o++
	})
	return res
}

// transposed returns the C-order array a (axes, shape) with its axes
// reordered to the letters of order, element by element.
func transposed(d loader.DType, a []byte, axes string, shape []int, order string) ([]byte, []int) {
	es := d.Size()
	perm := make([]int, len(order))
	oshape := make([]int, len(order))
	for j := range order {
		perm[j] = strings.IndexByte(axes, order[j])
		oshape[j] = shape[perm[j]]
	}
	res := make([]byte, len(a))
	o := 0
	forEach(oshape, func(p []int) {
		q := make([]int, len(p))
		for j, k := range perm {
			q[k] = p[j]
		}
		off := 0
		for i := range q {
			off = off*shape[i] + q[i]
		}
		copy(res[o*es:(o+1)*es], a[off*es:(off+1)*es])
		o++
	})
	return res, oshape
}

// ngffAxes is axes reordered as OME-NGFF requires.
func ngffAxes(axes string) string {
	var b strings.Builder
	for _, c := range "TCZYX" {
		if strings.ContainsRune(axes, c) {
			b.WriteRune(c)
		}
	}
	return b.String()
}
