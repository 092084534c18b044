package downsample

import (
	"fmt"

	"vastview/loader"
)

// Fold is how Project reduces the samples along an axis.
type Fold uint8

// The folds.
const (
	FoldMax Fold = iota
	FoldMin
	FoldSum
)

// Project folds planes k0..k1-1 along the middle axis of src, a C-order
// array of outer × n × inner little-endian samples of type dt, into acc,
// outer × inner samples: for FoldMax and FoldMin, acc holds samples of
// type dt (set to plane k0 first when init is set, else folded into as
// they are; a NaN wins, as NumPy's max and min); for FoldSum, sum holds
// float64 sums that the planes are added to (acc unused).
func Project(f Fold, dt loader.DType, acc []byte, sum []float64, src []byte, outer, n, inner, k0, k1 int, init bool) error {
	if outer < 0 || inner < 0 || k0 < 0 || k1 > n || k0 > k1 || len(src) != outer*n*inner*dt.Size() ||
		f != FoldSum && len(acc) != outer*inner*dt.Size() || f == FoldSum && len(sum) != outer*inner {
		return fmt.Errorf("%w: fold of planes %d..%d of %d×%d×%d samples", ErrShape, k0, k1, outer, n, inner)
	}
	switch dt {
	case loader.Uint8:
		projectBytes[uint8](f, acc, sum, src, outer, n, inner, k0, k1, init)
	case loader.Int8:
		projectBytes[int8](f, acc, sum, src, outer, n, inner, k0, k1, init)
	case loader.Uint16:
		projectBytes[uint16](f, acc, sum, src, outer, n, inner, k0, k1, init)
	case loader.Int16:
		projectBytes[int16](f, acc, sum, src, outer, n, inner, k0, k1, init)
	case loader.Uint32:
		projectBytes[uint32](f, acc, sum, src, outer, n, inner, k0, k1, init)
	case loader.Int32:
		projectBytes[int32](f, acc, sum, src, outer, n, inner, k0, k1, init)
	case loader.Uint64:
		projectBytes[uint64](f, acc, sum, src, outer, n, inner, k0, k1, init)
	case loader.Int64:
		projectBytes[int64](f, acc, sum, src, outer, n, inner, k0, k1, init)
	case loader.Float32:
		projectBytes[float32](f, acc, sum, src, outer, n, inner, k0, k1, init)
	case loader.Float64:
		projectBytes[float64](f, acc, sum, src, outer, n, inner, k0, k1, init)
	default:
		return fmt.Errorf("downsample: projection of %s samples is not supported", dt)
	}
	return nil
}

func projectBytes[T Number](f Fold, acc []byte, sum []float64, src []byte, outer, n, inner, k0, k1 int, init bool) {
	s, a := asSamples[T](src), asSamples[T](acc)
	inPlace := hostLE && aligned[T](src) && (f == FoldSum || aligned[T](acc))
	if !inPlace { // misaligned, or a big-endian machine: copies
		_, s = decode[T](nil, src)
		_, a = decode[T](nil, acc)
	}
	ProjectOf(f, a, sum, s, outer, n, inner, k0, k1, init)
	if !inPlace && f != FoldSum {
		encode(acc, a)
	}
}

// ProjectOf is Project on typed samples.
func ProjectOf[T Number](f Fold, acc []T, sum []float64, src []T, outer, n, inner, k0, k1 int, init bool) {
	for o := 0; o < outer; o++ {
		k := k0
		if init && f != FoldSum && k < k1 {
			copy(acc[o*inner:(o+1)*inner], src[(o*n+k)*inner:][:inner])
			k++
		}
		for ; k < k1; k++ {
			p := src[(o*n+k)*inner:][:inner]
			switch f {
			case FoldMax:
				foldMax(acc[o*inner:][:inner], p)
			case FoldMin:
				foldMin(acc[o*inner:][:inner], p)
			default:
				a := sum[o*inner:][:inner]
				for i, v := range p {
					a[i] += float64(v)
				}
			}
		}
	}
}

// foldMax sets each a[i] to the larger of a[i] and p[i] (NaN if either
// is); a and p have one length.
func foldMax[T Number](a, p []T) {
	switch a := any(a).(type) {
	case []uint8:
		if n := simdMaxU8(a, any(p).([]uint8)); n > 0 {
			foldMaxOf(a[n:], any(p).([]uint8)[n:])
			return
		}
	case []uint16:
		if n := simdMaxU16(a, any(p).([]uint16)); n > 0 {
			foldMaxOf(a[n:], any(p).([]uint16)[n:])
			return
		}
	}
	foldMaxOf(a, p)
}

// foldMin is foldMax with the smaller.
func foldMin[T Number](a, p []T) {
	switch a := any(a).(type) {
	case []uint8:
		if n := simdMinU8(a, any(p).([]uint8)); n > 0 {
			foldMinOf(a[n:], any(p).([]uint8)[n:])
			return
		}
	case []uint16:
		if n := simdMinU16(a, any(p).([]uint16)); n > 0 {
			foldMinOf(a[n:], any(p).([]uint16)[n:])
			return
		}
	}
	foldMinOf(a, p)
}

func foldMaxOf[T Number](a, p []T) {
	a = a[:len(p)]
	for i, v := range p {
		a[i] = max(a[i], v)
	}
}

func foldMinOf[T Number](a, p []T) {
	a = a[:len(p)]
	for i, v := range p {
		a[i] = min(a[i], v)
	}
}
