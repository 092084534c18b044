// Package nd walks and copies boxes of N-dimensional arrays stored in C
// order (the last axis fastest): the one index walk and box copy that
// readers, levels and the renderer share. Its functions allocate only
// where they say so and are safe for concurrent use on distinct data.
package nd

// Strides returns the C-order strides of shape, in elements: the last
// axis has stride 1. It allocates the result.
func Strides(shape []int) []int {
	s := make([]int, len(shape))
	acc := 1
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = acc
		acc *= shape[i]
	}
	return s
}

// Product is the number of elements of an array of the given shape (1
// for no axes).
func Product(shape []int) int {
	p := 1
	for _, v := range shape {
		p *= v
	}
	return p
}

// Next advances idx to the next position of a C-order walk over the grid
// [0, ext) and reports false, with idx back at the origin, after the last
// one. With no axes there is one position, so it reports false at once.
func Next(idx, ext []int) bool {
	for i := len(idx) - 1; i >= 0; i-- {
		idx[i]++
		if idx[i] < ext[i] {
			return true
		}
		idx[i] = 0
	}
	return false
}

// NextIn advances idx to the next position of a C-order walk over the box
// [lo, end) and reports false, with idx back at lo, after the last one.
func NextIn(idx, lo, end []int) bool {
	for i := len(idx) - 1; i >= 0; i-- {
		idx[i]++
		if idx[i] < end[i] {
			return true
		}
		idx[i] = lo[i]
	}
	return false
}

// CopyBox copies a box of elements (box[i] along axis i, es bytes each)
// from src, a C-order array of srcShape, starting at srcOff, to dst, a
// C-order array of dstShape, starting at dstOff. Nothing is copied when
// any side of the box is empty. The box must lie inside both arrays. It
// allocates nothing for arrays of up to maxStack axes.
func CopyBox(dst []byte, dstShape, dstOff []int, src []byte, srcShape, srcOff, box []int, es int) {
	n := len(box)
	if n == 0 {
		copy(dst[:es], src[:es])
		return
	}
	for _, b := range box {
		if b <= 0 {
			return
		}
	}
	var dbuf, sbuf, pbuf [maxStack]int
	dstStr, srcStr := stridesInto(dbuf[:0], dstShape), stridesInto(sbuf[:0], srcShape)
	d, s := 0, 0
	for i := 0; i < n; i++ {
		d += dstOff[i] * dstStr[i]
		s += srcOff[i] * srcStr[i]
	}
	d, s = d*es, s*es
	for i := range dstStr {
		dstStr[i] *= es
		srcStr[i] *= es
	}
	row := box[n-1] * es
	// The walk covers every axis but the last, whose run is one copy;
	// the offsets follow the position instead of being recomputed.
	var pos []int
	if n-1 <= maxStack {
		pos = pbuf[:n-1]
	} else {
		pos = make([]int, n-1)
	}
	for {
		copy(dst[d:d+row], src[s:s+row])
		i := n - 2
		for ; i >= 0; i-- {
			pos[i]++
			d += dstStr[i]
			s += srcStr[i]
			if pos[i] < box[i] {
				break
			}
			d -= box[i] * dstStr[i]
			s -= box[i] * srcStr[i]
			pos[i] = 0
		}
		if i < 0 {
			return
		}
	}
}

// maxStack is the number of axes CopyBox handles without allocating.
const maxStack = 8

// stridesInto is Strides, into buf when it has room.
func stridesInto(buf, shape []int) []int {
	if cap(buf) < len(shape) {
		return Strides(shape)
	}
	s := buf[:len(shape)]
	acc := 1
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = acc
		acc *= shape[i]
	}
	return s
}
