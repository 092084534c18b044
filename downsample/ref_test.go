package downsample

// A plain reference: for every output sample, list the source samples of
// its block in C order and reduce them in the most direct way.

import (
	"math"
	"math/big"
)

// blocks calls fn for every output sample, in C order, with the linear
// source indices of its block in C order.
func blocks(shape []int, reduce []bool, fn func(out int, idx []int)) {
	rank := len(shape)
	out := make([]int, rank)
	for i, n := range shape {
		out[i] = n
		if reduce[i] {
			out[i] = (n + 1) / 2
		}
		if out[i] == 0 {
			return
		}
	}
	o := make([]int, rank)
	lo := make([]int, rank)
	hi := make([]int, rank)
	s := make([]int, rank)
	var idx []int
	for k := 0; ; k++ {
		for a := range rank {
			lo[a], hi[a] = o[a], o[a]+1
			if reduce[a] {
				lo[a], hi[a] = 2*o[a], min(2*o[a]+2, shape[a])
			}
		}
		idx = idx[:0]
		copy(s, lo)
		for {
			lin := 0
			for a := range rank {
				lin = lin*shape[a] + s[a]
			}
			idx = append(idx, lin)
			a := rank - 1
			for ; a >= 0; a-- {
				if s[a]++; s[a] < hi[a] {
					break
				}
				s[a] = lo[a]
			}
			if a < 0 {
				break
			}
		}
		fn(k, idx)
		a := rank - 1
		for ; a >= 0; a-- {
			if o[a]++; o[a] < out[a] {
				break
			}
			o[a] = 0
		}
		if a < 0 {
			return
		}
	}
}

func refLen(shape []int, reduce []bool) (in, out int) {
	in, out = 1, 1
	for i, n := range shape {
		in *= n
		if reduce[i] {
			n = (n + 1) / 2
		}
		out *= n
	}
	return in, out
}

// refMeanInt rounds the exact mean half up: floor(sum/count + 1/2).
// floorDiv divides rounding towards minus infinity; d > 0.
func floorDiv(n, d int64) int64 {
	q := n / d
	if n%d != 0 && n < 0 {
		q--
	}
	return q
}

func refMeanInt[T integer](src []T, shape []int, reduce []bool) []T {
	_, n := refLen(shape, reduce)
	dst := make([]T, n)
	blocks(shape, reduce, func(o int, idx []int) {
		var sum int64
		for _, i := range idx {
			sum += int64(src[i])
		}
		dst[o] = T(floorDiv(2*sum+int64(len(idx)), 2*int64(len(idx))))
	})
	return dst
}

// refMeanFloat adds in float64 in C order, then divides by the count.
func refMeanFloat[T float](src []T, shape []int, reduce []bool) []T {
	_, n := refLen(shape, reduce)
	dst := make([]T, n)
	blocks(shape, reduce, func(o int, idx []int) {
		s := float64(src[idx[0]])
		for _, i := range idx[1:] {
			s += float64(src[i])
		}
		dst[o] = T(s / float64(len(idx)))
	})
	return dst
}

// refMode counts every value; the most frequent wins, the smallest on a tie.
func refMode[T Label](src []T, shape []int, reduce []bool) []T {
	_, n := refLen(shape, reduce)
	dst := make([]T, n)
	blocks(shape, reduce, func(o int, idx []int) {
		count := map[T]int{}
		for _, i := range idx {
			count[src[i]]++
		}
		best, bestN := T(0), 0
		for v, c := range count {
			if c > bestN || c == bestN && v < best {
				best, bestN = v, c
			}
		}
		dst[o] = best
	})
	return dst
}

func refMean[T Number](src []T, shape []int, reduce []bool) []T {
	switch s := any(src).(type) {
	case []float32:
		return any(refMeanFloat(s, shape, reduce)).([]T)
	case []float64:
		return any(refMeanFloat(s, shape, reduce)).([]T)
	case []uint8:
		return any(refMeanInt(s, shape, reduce)).([]T)
	case []int8:
		return any(refMeanInt(s, shape, reduce)).([]T)
	case []uint16:
		return any(refMeanInt(s, shape, reduce)).([]T)
	case []int16:
		return any(refMeanInt(s, shape, reduce)).([]T)
	case []uint32:
		return any(refMeanInt(s, shape, reduce)).([]T)
	case []int32:
		return any(refMeanInt(s, shape, reduce)).([]T)
	case []uint64:
		return any(refMeanBig(s, shape, reduce)).([]T)
	case []int64:
		return any(refMeanBig(s, shape, reduce)).([]T)
	}
	panic("unreachable")
}

// same reports whether two samples are identical: equal bits, or both NaN.
func same[T Number](a, b T) bool {
	switch x := any(a).(type) {
	case float32:
		y := any(b).(float32)
		return math.Float32bits(x) == math.Float32bits(y) || x != x && y != y
	case float64:
		y := any(b).(float64)
		return math.Float64bits(x) == math.Float64bits(y) || x != x && y != y
	}
	return a == b
}

// refMeanBig is refMeanInt in arbitrary precision, for 64-bit samples:
// floor((2·sum + count) / (2·count)).
func refMeanBig[T wide](src []T, shape []int, reduce []bool) []T {
	_, n := refLen(shape, reduce)
	dst := make([]T, n)
	blocks(shape, reduce, func(o int, idx []int) {
		sum := new(big.Int)
		for _, i := range idx {
			if T(0)-1 < 0 {
				sum.Add(sum, big.NewInt(int64(src[i])))
			} else {
				sum.Add(sum, new(big.Int).SetUint64(uint64(src[i])))
			}
		}
		cnt := big.NewInt(int64(len(idx)))
		num := new(big.Int).Add(new(big.Int).Lsh(sum, 1), cnt)
		q := new(big.Int).Div(num, new(big.Int).Lsh(cnt, 1)) // Euclidean: floor for a positive divisor
		if T(0)-1 < 0 {
			dst[o] = T(q.Int64())
		} else {
			dst[o] = T(q.Uint64())
		}
	})
	return dst
}
