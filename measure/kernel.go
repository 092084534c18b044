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
		exactRun(c, view[uint8](data), off, n, stride)
	case loader.Int8:
		exactRun(c, view[int8](data), off, n, stride)
	case loader.Uint16:
		exactRun(c, view[uint16](data), off, n, stride)
	case loader.Int16:
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

// exactRun sums samples of 16 bits or fewer exactly.
func exactRun[T small](c *chunkAcc, s []T, off, n, stride int) {
	var sum int64
	var sq uint64
	lo, hi := s[off], s[off]
	if stride == 1 {
		for _, v := range s[off : off+n] {
			x := int64(v)
			sum += x
			sq += uint64(x * x)
			lo, hi = min(lo, v), max(hi, v)
		}
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
