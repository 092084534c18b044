package downsample

import "math/bits"

type integer interface {
	uint8 | int8 | uint16 | int16 | uint32 | int32
}

type float interface {
	float32 | float64
}

// meanInts computes integer means row by row.
func meanInts[T integer](p *plan, dst, src []T) {
	var it rowIter
	it.init(p)
	var rows [maxRows][]T
	for it.next() {
		meanIntRow(dst[it.dst:it.dst+it.outN], gather(&it, src, &rows), it.horiz)
	}
}

// meanIntRow writes one output row d from its source rows, all of the same
// length; horiz tells whether pairs along the row are averaged too.
func meanIntRow[T integer](d []T, rows [][]T, horiz bool) {
	switch {
	case horiz && len(rows) == 1:
		meanH1(d, rows[0])
	case horiz && len(rows) == 2:
		meanH2(d, rows[0], rows[1])
	case horiz && len(rows) == 4:
		meanH4(d, rows[0], rows[1], rows[2], rows[3])
	case horiz:
		meanHN(d, rows)
	case len(rows) == 1:
		copy(d, rows[0])
	case len(rows) == 2:
		meanV2(d, rows[0], rows[1])
	default:
		meanVN(d, rows)
	}
}

// The sums below are int64: 2^MaxReduced samples of 32 bits cannot
// overflow them. Adding half the count and shifting right arithmetically
// by log2(count) is floor(mean + 1/2) for signed and unsigned samples.

func meanH1[T integer](d, a []T) {
	for len(d) > 0 && len(a) >= 2 {
		d[0] = T((int64(a[0]) + int64(a[1]) + 1) >> 1)
		d, a = d[1:], a[2:]
	}
	if len(d) > 0 && len(a) > 0 {
		d[0] = a[0]
	}
}

func meanH2[T integer](d, a, b []T) {
	for len(d) > 0 && len(a) >= 2 && len(b) >= 2 {
		s := int64(a[0]) + int64(a[1]) + int64(b[0]) + int64(b[1])
		d[0] = T((s + 2) >> 2)
		d, a, b = d[1:], a[2:], b[2:]
	}
	if len(d) > 0 && len(a) > 0 && len(b) > 0 {
		d[0] = T((int64(a[0]) + int64(b[0]) + 1) >> 1)
	}
}

func meanH4[T integer](d, a, b, c, e []T) {
	for len(d) > 0 && len(a) >= 2 && len(b) >= 2 && len(c) >= 2 && len(e) >= 2 {
		s := int64(a[0]) + int64(a[1]) + int64(b[0]) + int64(b[1]) +
			int64(c[0]) + int64(c[1]) + int64(e[0]) + int64(e[1])
		d[0] = T((s + 4) >> 3)
		d, a, b, c, e = d[1:], a[2:], b[2:], c[2:], e[2:]
	}
	if len(d) > 0 && len(a) > 0 && len(b) > 0 && len(c) > 0 && len(e) > 0 {
		s := int64(a[0]) + int64(b[0]) + int64(c[0]) + int64(e[0])
		d[0] = T((s + 2) >> 2)
	}
}

// meanHN handles any power-of-two number of rows.
func meanHN[T integer](d []T, rows [][]T) {
	m := len(rows)
	k := uint(bits.TrailingZeros(uint(m)))
	n := len(rows[0])
	for i := range d {
		j := 2 * i
		var s int64
		if j+1 < n {
			for _, r := range rows {
				s += int64(r[j]) + int64(r[j+1])
			}
			d[i] = T((s + int64(m)) >> (k + 1))
			continue
		}
		for _, r := range rows {
			s += int64(r[j])
		}
		d[i] = T((s + int64(m>>1)) >> k)
	}
}

func meanV2[T integer](d, a, b []T) {
	for len(d) > 0 && len(a) > 0 && len(b) > 0 {
		d[0] = T((int64(a[0]) + int64(b[0]) + 1) >> 1)
		d, a, b = d[1:], a[1:], b[1:]
	}
}

func meanVN[T integer](d []T, rows [][]T) {
	m := len(rows)
	k := uint(bits.TrailingZeros(uint(m)))
	for i := range d {
		var s int64
		for _, r := range rows {
			s += int64(r[i])
		}
		d[i] = T((s + int64(m>>1)) >> k)
	}
}

// meanFloats computes float means row by row.
func meanFloats[T float](p *plan, dst, src []T) {
	var it rowIter
	it.init(p)
	var rows [maxRows][]T
	for it.next() {
		rs := gather(&it, src, &rows)
		d := dst[it.dst : it.dst+it.outN]
		if it.horiz {
			meanFH(d, rs)
		} else {
			meanFV(d, rs)
		}
	}
}

// Float sums run in C order of the block, one addition at a time, in
// float64. The count is a power of two, so multiplying by its reciprocal
// rounds exactly as dividing by it does.

func meanFH[T float](d []T, rows [][]T) {
	switch len(rows) {
	case 2:
		meanFH2(d, rows[0], rows[1])
		return
	case 4:
		meanFH4(d, rows[0], rows[1], rows[2], rows[3])
		return
	}
	inv := 1 / float64(2*len(rows))
	n := len(rows[0])
	for i := range d {
		j := 2 * i
		if j+1 >= n {
			break
		}
		s := float64(rows[0][j]) + float64(rows[0][j+1])
		for _, r := range rows[1:] {
			s += float64(r[j])
			s += float64(r[j+1])
		}
		d[i] = T(s * inv)
	}
	if n%2 == 1 {
		meanFV(d[len(d)-1:], tails(rows, n-1))
	}
}

func meanFH2[T float](d, a, b []T) {
	for len(d) > 0 && len(a) >= 2 && len(b) >= 2 {
		d[0] = T((float64(a[0]) + float64(a[1]) + float64(b[0]) + float64(b[1])) * 0.25)
		d, a, b = d[1:], a[2:], b[2:]
	}
	if len(d) > 0 && len(a) > 0 && len(b) > 0 {
		d[0] = T((float64(a[0]) + float64(b[0])) * 0.5)
	}
}

func meanFH4[T float](d, a, b, c, e []T) {
	for len(d) > 0 && len(a) >= 2 && len(b) >= 2 && len(c) >= 2 && len(e) >= 2 {
		s := float64(a[0]) + float64(a[1]) + float64(b[0]) + float64(b[1]) +
			float64(c[0]) + float64(c[1]) + float64(e[0]) + float64(e[1])
		d[0] = T(s * 0.125)
		d, a, b, c, e = d[1:], a[2:], b[2:], c[2:], e[2:]
	}
	if len(d) > 0 && len(a) > 0 && len(b) > 0 && len(c) > 0 && len(e) > 0 {
		d[0] = T((float64(a[0]) + float64(b[0]) + float64(c[0]) + float64(e[0])) * 0.25)
	}
}

func meanFV[T float](d []T, rows [][]T) {
	inv := 1 / float64(len(rows))
	for i := range d {
		s := float64(rows[0][i])
		for _, r := range rows[1:] {
			s += float64(r[i])
		}
		d[i] = T(s * inv)
	}
}

// tails reslices every row to start at j, in place.
func tails[T Number](rows [][]T, j int) [][]T {
	for i := range rows {
		rows[i] = rows[i][j:]
	}
	return rows
}
