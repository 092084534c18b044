// Package downsample computes the levels of an image pyramid: it halves a
// C-order array along a chosen subset of its axes, by the mean of each block
// (intensity images) or by its most frequent value (label images).
//
// A block spans 2 samples on every reduced axis and 1 on the others. The
// output has ceil(n/2) samples along a reduced axis of length n; when n is
// odd the last block holds the samples that exist and is the mean (or mode)
// of those alone: nothing is padded and no border is lost.
//
// Integer means round half up: floor(mean + 1/2), so 2.5 gives 3 and -2.5
// gives -2. Float means add the block's samples in float64, one after the
// other in C order, divide by their count and convert to the sample type;
// NaN and infinities propagate as the arithmetic does. The mode of a block
// is its most frequent value, the smallest of those on a tie.
//
// The functions keep no state, are safe for concurrent use on distinct
// buffers, and do not allocate when the byte buffers are aligned to their
// sample size (any buffer from make is) on a little-endian machine.
package downsample

import (
	"errors"
	"fmt"

	"vastview/loader"
)

// MaxReduced is the largest number of reduced axes longer than 1 in one
// call: a block then holds at most 2^MaxReduced samples.
const MaxReduced = 6

// ErrShape reports a shape, axis selection or buffer length that does not
// fit; the returned errors wrap it with the details.
var ErrShape = errors.New("downsample: shape mismatch")

// Number is a sample type that has a mean.
type Number interface {
	uint8 | int8 | uint16 | int16 | uint32 | int32 | uint64 | int64 | float32 | float64
}

// Label is a sample type that has a mode.
type Label interface {
	uint8 | int8 | uint16 | int16 | uint32 | int32 | uint64 | int64
}

// OutShape returns the shape of the result of halving shape along the axes
// where reduce is true: ceil(n/2) there, n elsewhere. It returns nil if the
// two lengths differ or a length is negative.
func OutShape(shape []int, reduce []bool) []int {
	if len(shape) != len(reduce) {
		return nil
	}
	out := make([]int, len(shape))
	for i, n := range shape {
		if n < 0 {
			return nil
		}
		out[i] = n
		if reduce[i] {
			out[i] = (n + 1) / 2
		}
	}
	return out
}

// Mean writes to dst the block means of src, a C-order array of the given
// shape and sample type; reduce selects the halved axes. dst and src hold
// little-endian samples, must not overlap, and their lengths must match
// the shapes exactly.
func Mean(dt loader.DType, dst, src []byte, shape []int, reduce []bool) error {
	switch dt {
	case loader.Uint8:
		return meanBytes[uint8](dst, src, shape, reduce)
	case loader.Int8:
		return meanBytes[int8](dst, src, shape, reduce)
	case loader.Uint16:
		return meanBytes[uint16](dst, src, shape, reduce)
	case loader.Int16:
		return meanBytes[int16](dst, src, shape, reduce)
	case loader.Uint32:
		return meanBytes[uint32](dst, src, shape, reduce)
	case loader.Int32:
		return meanBytes[int32](dst, src, shape, reduce)
	case loader.Uint64:
		return meanBytes[uint64](dst, src, shape, reduce)
	case loader.Int64:
		return meanBytes[int64](dst, src, shape, reduce)
	case loader.Float32:
		return meanBytes[float32](dst, src, shape, reduce)
	case loader.Float64:
		return meanBytes[float64](dst, src, shape, reduce)
	}
	return fmt.Errorf("downsample: mean of %s samples is not supported", dt)
}

// Mode writes to dst the block modes of src, a C-order array of integer
// labels; otherwise it is like Mean. Float samples are refused.
func Mode(dt loader.DType, dst, src []byte, shape []int, reduce []bool) error {
	switch dt {
	case loader.Uint8:
		return modeBytes[uint8](dst, src, shape, reduce)
	case loader.Int8:
		return modeBytes[int8](dst, src, shape, reduce)
	case loader.Uint16:
		return modeBytes[uint16](dst, src, shape, reduce)
	case loader.Int16:
		return modeBytes[int16](dst, src, shape, reduce)
	case loader.Uint32:
		return modeBytes[uint32](dst, src, shape, reduce)
	case loader.Int32:
		return modeBytes[int32](dst, src, shape, reduce)
	case loader.Uint64:
		return modeBytes[uint64](dst, src, shape, reduce)
	case loader.Int64:
		return modeBytes[int64](dst, src, shape, reduce)
	}
	return fmt.Errorf("downsample: mode of %s samples is not supported", dt)
}

// MeanOf is Mean on typed samples in native byte order.
func MeanOf[T Number](dst, src []T, shape []int, reduce []bool) error {
	var p plan
	if err := p.init(len(dst), len(src), shape, reduce); err != nil {
		return err
	}
	if p.empty {
		return nil
	}
	switch d := any(dst).(type) {
	case []uint8:
		mean8(&p, d, any(src).([]uint8))
	case []int8:
		mean8(&p, d, any(src).([]int8))
	case []uint16:
		mean16(&p, d, any(src).([]uint16))
	case []int16:
		mean16(&p, d, any(src).([]int16))
	case []uint32:
		meanInts(&p, d, any(src).([]uint32))
	case []int32:
		meanInts(&p, d, any(src).([]int32))
	case []uint64:
		meanWide(&p, d, any(src).([]uint64))
	case []int64:
		meanWide(&p, d, any(src).([]int64))
	case []float32:
		meanFloats(&p, d, any(src).([]float32))
	case []float64:
		meanFloats(&p, d, any(src).([]float64))
	}
	return nil
}

// ModeOf is Mode on typed samples in native byte order.
func ModeOf[T Label](dst, src []T, shape []int, reduce []bool) error {
	var p plan
	if err := p.init(len(dst), len(src), shape, reduce); err != nil {
		return err
	}
	if !p.empty {
		modes(&p, dst, src)
	}
	return nil
}

// SIMD reports whether the kernels use the AVX2 code paths: the build has
// GOEXPERIMENT=simd and the processor has AVX2.
func SIMD() bool { return simdOK() }
