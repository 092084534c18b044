package measure

import (
	"math"
	"unsafe"

	"vastview/loader"
)

// chunkAcc holds the figures of the region's samples in one chunk. For
// samples of 16 bits or fewer the sums of values and of squares are exact
// integers (exact); 32-bit integers sum exactly too (intSum) and keep the
// squared deviations as floats; the rest sum in float64.
type chunkAcc struct {
	dt       loader.DType
	n        int64
	exact    bool
	intSum   bool
	isum     int64
	usq      uint64
	fsum, m2 float64
	min, max float64
	spec     *HistSpec
	hist     []int64
	edges    []float64
}

func newChunkAcc(dt loader.DType, h *HistSpec) *chunkAcc {
	c := &chunkAcc{dt: dt, min: math.Inf(1), max: math.Inf(-1), spec: h}
	switch dt {
	case loader.Uint8, loader.Int8, loader.Uint16, loader.Int16:
		c.exact = true
	case loader.Uint32, loader.Int32:
		c.intSum = true
	}
	if h != nil {
		c.hist = make([]int64, h.Bins)
		c.edges = linspace(h.Lo, h.Hi, h.Bins+1)
	}
	return c
}

// add adds n samples of data starting at sample off, stride samples apart.
func (c *chunkAcc) add(data []byte, off, n, stride int) {
	if n <= 0 {
		return
	}
	switch c.dt {
	case loader.Uint8:
		if haveSIMD && stride == 1 && n >= 64 && c.hist == nil {
			s, q, lo, hi := exactSIMD(view[uint8](data)[off : off+n])
			c.exactSums(n, s, q, float64(lo), float64(hi))
			return
		}
		exactRun(c, view[uint8](data), off, n, stride)
	case loader.Int8:
		if haveSIMD && stride == 1 && n >= 64 && c.hist == nil {
			s, q, lo, hi := exactSIMD(view[int8](data)[off : off+n])
			c.exactSums(n, s, q, float64(lo), float64(hi))
			return
		}
		exactRun(c, view[int8](data), off, n, stride)
	case loader.Uint16:
		if haveSIMD && stride == 1 && n >= 64 && c.hist == nil {
			s, q, lo, hi := exactSIMD(view[uint16](data)[off : off+n])
			c.exactSums(n, s, q, float64(lo), float64(hi))
			return
		}
		exactRun(c, view[uint16](data), off, n, stride)
	case loader.Int16:
		if haveSIMD && stride == 1 && n >= 64 && c.hist == nil {
			s, q, lo, hi := exactSIMD(view[int16](data)[off : off+n])
			c.exactSums(n, s, q, float64(lo), float64(hi))
			return
		}
		exactRun(c, view[int16](data), off, n, stride)
	case loader.Uint32:
		floatRun(c, view[uint32](data), off, n, stride)
	case loader.Int32:
		floatRun(c, view[int32](data), off, n, stride)
	case loader.Uint64:
		floatRun(c, view[uint64](data), off, n, stride)
	case loader.Int64:
		floatRun(c, view[int64](data), off, n, stride)
	case loader.Float32:
		floatRun(c, view[float32](data), off, n, stride)
	case loader.Float64:
		floatRun(c, view[float64](data), off, n, stride)
	}
}

// view reinterprets little-endian bytes as samples of T (the machines
// vastview runs on are little-endian, as loader's chunks are).
func view[T any](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}

type small interface {
	~uint8 | ~int8 | ~uint16 | ~int16
}

type number interface {
	~uint8 | ~int8 | ~uint16 | ~int16 | ~uint32 | ~int32 | ~uint64 | ~int64 | ~float32 | ~float64
}

// exactSums adds the exact figures of a run of n samples (without a
// histogram).
func (c *chunkAcc) exactSums(n int, sum int64, sq uint64, lo, hi float64) {
	c.n += int64(n)
	c.isum += sum
	c.usq += sq
	c.min, c.max = math.Min(c.min, lo), math.Max(c.max, hi)
}

// exactRun sums samples of 16 bits or fewer exactly.
func exactRun[T small](c *chunkAcc, s []T, off, n, stride int) {
	var sum int64
	var sq uint64
	lo, hi := s[off], s[off]
	if stride == 1 {
		sum, sq, lo, hi = exactContiguous(s[off : off+n])
	} else {
		for i := range n {
			v := s[off+i*stride]
			x := int64(v)
			sum += x
			sq += uint64(x * x)
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	c.n += int64(n)
	c.isum += sum
	c.usq += sq
	c.min, c.max = math.Min(c.min, float64(lo)), math.Max(c.max, float64(hi))
	if c.hist != nil {
		for i := range n {
			c.count(float64(s[off+i*stride]))
		}
	}
}

// exactContiguous sums the samples v, their squares and extremes, four
// at a time.
func exactContiguous[T small](v []T) (sum int64, sq uint64, lo, hi T) {
	lo, hi = v[0], v[0]
	var s0, s1, s2, s3 int64
	var q0, q1, q2, q3 uint64
	lo0, lo1, lo2, lo3 := lo, lo, lo, lo
	hi0, hi1, hi2, hi3 := hi, hi, hi, hi
	i := 0
	for ; i+4 <= len(v); i += 4 {
		a, b, c, d := int64(v[i]), int64(v[i+1]), int64(v[i+2]), int64(v[i+3])
		s0, s1, s2, s3 = s0+a, s1+b, s2+c, s3+d
		q0, q1, q2, q3 = q0+uint64(a*a), q1+uint64(b*b), q2+uint64(c*c), q3+uint64(d*d)
		lo0, lo1, lo2, lo3 = min(lo0, v[i]), min(lo1, v[i+1]), min(lo2, v[i+2]), min(lo3, v[i+3])
		hi0, hi1, hi2, hi3 = max(hi0, v[i]), max(hi1, v[i+1]), max(hi2, v[i+2]), max(hi3, v[i+3])
	}
	lo, hi = min(lo0, lo1, lo2, lo3), max(hi0, hi1, hi2, hi3)
	for ; i < len(v); i++ {
		a := int64(v[i])
		s0 += a
		q0 += uint64(a * a)
		lo, hi = min(lo, v[i]), max(hi, v[i])
	}
	return s0 + s1 + s2 + s3, q0 + q1 + q2 + q3, lo, hi
}

// floatRun sums other samples in two passes over the run (its mean, then
// the squared deviations from it) and merges the run's figures into c.
func floatRun[T number](c *chunkAcc, s []T, off, n, stride int) {
	var sum float64
	var isum int64
	var k int64
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range n {
		v := s[off+i*stride]
		x := float64(v)
		if x != x {
			continue
		}
		k++
		sum += x
		if c.intSum {
			isum += int64(v)
		}
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	if k == 0 {
		return
	}
	if c.intSum {
		sum = float64(isum)
	}
	mean := sum / float64(k)
	var m2, comp float64
	for i := range n {
		x := float64(s[off+i*stride])
		if x != x {
			continue
		}
		d := x - mean
		m2 += d * d
		comp += d
	}
	// The corrected two-pass formula: comp is the rounding of the mean.
	m2 -= comp * comp / float64(k)
	if c.hist != nil {
		for i := range n {
			if x := float64(s[off+i*stride]); x == x {
				c.count(x)
			}
		}
	}
	c.min, c.max = math.Min(c.min, lo), math.Max(c.max, hi)
	if c.n == 0 {
		c.n, c.fsum, c.isum, c.m2 = k, sum, isum, m2
		return
	}
	nt := c.n + k
	cm := c.fsum / float64(c.n)
	if c.intSum {
		cm = float64(c.isum) / float64(c.n)
	}
	d := mean - cm
	c.m2 += m2 + d*d*float64(c.n)*float64(k)/float64(nt)
	c.n = nt
	c.fsum += sum
	c.isum += isum
}

// count adds x to the histogram as numpy.histogram does with equal bins.
func (c *chunkAcc) count(x float64) {
	h := c.spec
	if x < h.Lo || x > h.Hi {
		return
	}
	if h.Hi == h.Lo {
		c.hist[0]++
		return
	}
	norm := float64(h.Bins) / (h.Hi - h.Lo)
	i := int((x - h.Lo) * norm)
	if i == h.Bins {
		i--
	}
	if x < c.edges[i] {
		i--
	} else if i != h.Bins-1 && x >= c.edges[i+1] {
		i++
	}
	c.hist[i]++
}

// linspace is numpy.linspace(a, b, n).
func linspace(a, b float64, n int) []float64 {
	out := make([]float64, n)
	fillLinspace(out, a, b)
	return out
}

// simdOut is what the AVX2 kernels leave: eight lanes of sums (of the
// samples biased to int16), two of four lanes of sums of squares, and
// sixteen lanes of extremes (the samples' bits).
type simdOut struct {
	sum      [8]int32
	sq0, sq1 [4]uint64
	lo, hi   [16]uint16
}

// asBytes is the memory of v.
func asBytes[T any](v []T) []byte {
	if len(v) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*int(unsafe.Sizeof(z)))
}

// simdBlock is the most samples one call of an AVX2 kernel takes: its
// 32-bit lanes of sums cannot overflow.
const simdBlock = 1 << 18

// exactSIMD sums samples v of 16 bits or fewer with the AVX2 kernels
// where they run, the rest in Go, as exactContiguous does.
func exactSIMD[T small](v []T) (sum int64, sq uint64, lo, hi T) {
	if !haveSIMD {
		return exactContiguous(v)
	}
	var o simdOut
	n := len(v) &^ 15
	lo, hi = v[0], v[0]
	for at := 0; at < n; {
		k := min(simdBlock, n-at)
		b := asBytes(v[at : at+k])
		biased := false
		switch any(v).(type) {
		case []uint8:
			u8AVX2(view[uint8](b), &o)
		case []int8:
			i8AVX2(view[int8](b), &o)
		case []int16:
			i16AVX2(view[int16](b), &o)
		default:
			u16AVX2(view[uint16](b), &o)
			biased = true
		}
		var s int64
		var q uint64
		for i := range o.sum {
			s += int64(o.sum[i])
		}
		for i := range o.sq0 {
			q += o.sq0[i] + o.sq1[i]
		}
		if biased {
			// The samples were x − 32768: Σx = Σx' + 32768k,
			// Σx² = Σx'² + 65536Σx' + 2^30 k.
			q = uint64(int64(q) + 65536*s + int64(k)<<30)
			s += 32768 * int64(k)
		}
		sum += s
		sq += q
		for i := range o.lo {
			lo, hi = min(lo, T(o.lo[i])), max(hi, T(o.hi[i])) // int16 from its bits
		}
		at += k
	}
	if n < len(v) {
		s, q, l, h := exactContiguous(v[n:])
		sum, sq = sum+s, sq+q
		lo, hi = min(lo, l), max(hi, h)
	}
	return sum, sq, lo, hi
}
