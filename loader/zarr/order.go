package zarr

import "vastview/base/nd"

// transpose copies src, a chunk stored with its axes permuted (encoded
// axis i is decoded axis perm[i], C order over the encoded shape), into
// dst in C order over chunk. Samples are es bytes.
func transpose(dst, src []byte, chunk, perm []int, es int) {
	n := len(chunk)
	if n == 0 {
		copy(dst, src)
		return
	}
	dstr := make([]int, n) // strides of dst in bytes, per decoded axis
	dstr[n-1] = es
	for i := n - 2; i >= 0; i-- {
		dstr[i] = dstr[i+1] * chunk[i+1]
	}
	eshape := make([]int, n)
	estr := make([]int, n) // dst stride of each encoded axis
	for i, p := range perm {
		eshape[i], estr[i] = chunk[p], dstr[p]
	}
	pos := make([]int, n-1)
	rowLen, step := eshape[n-1], estr[n-1]
	s := 0
	for {
		o := 0
		for i, v := range pos {
			o += v * estr[i]
		}
		copyStrided(dst[o:], src[s:s+rowLen*es], step, es)
		s += rowLen * es
		if !nd.Next(pos, eshape[:n-1]) {
			return
		}
	}
}

// copyStrided copies the contiguous samples of src to dst, one every step
// bytes.
func copyStrided(dst, src []byte, step, es int) {
	o := 0
	switch es {
	case 1:
		for _, v := range src {
			dst[o] = v
			o += step
		}
	case 2:
		for s := 0; s < len(src); s += 2 {
			dst[o], dst[o+1] = src[s], src[s+1]
			o += step
		}
	default:
		for s := 0; s < len(src); s += es {
			copy(dst[o:o+es], src[s:s+es])
			o += step
		}
	}
}

// zeroBeyond zeroes the samples of dst (C order over chunk, es-byte
// samples) at positions where some axis i reaches ext[i] or beyond.
func zeroBeyond(dst []byte, chunk, ext []int, es int) {
	if len(chunk) == 0 || within(chunk, ext) {
		return
	}
	inner := es
	for _, c := range chunk[1:] {
		inner *= c
	}
	e := min(ext[0], chunk[0])
	clear(dst[e*inner : chunk[0]*inner])
	if len(chunk) == 1 || within(chunk[1:], ext[1:]) {
		return
	}
	for i := 0; i < e; i++ {
		zeroBeyond(dst[i*inner:(i+1)*inner], chunk[1:], ext[1:], es)
	}
}

// within reports whether the chunk lies inside the array on every axis.
func within(chunk, ext []int) bool {
	for i := range chunk {
		if ext[i] < chunk[i] {
			return false
		}
	}
	return true
}

// fillChunk fills dst with the sample fill where the chunk lies inside the
// array (ext per axis) and with zeros beyond.
func fillChunk(dst, fill []byte, chunk, ext []int) {
	if allZero(fill) {
		clear(dst)
		return
	}
	n := copy(dst, fill)
	for n < len(dst) {
		n += copy(dst[n:], dst[:n])
	}
	zeroBeyond(dst, chunk, ext, len(fill))
}

// allZero reports whether b holds only zero bytes.
func allZero(b []byte) bool {
	for _, v := range b {
		if v != 0 {
			return false
		}
	}
	return true
}
