package downsample

import "math/bits"

// The 64-bit integer means. A block of up to 2^MaxReduced samples of 64
// bits sums to 70 bits, so the sums are 128-bit (two words with carries).
// Signed samples are summed as unsigned ones with the sign bit flipped
// (x ^ 2^63 is x + 2^63), which is exact because adding a whole offset to
// every sample commutes with floor(mean + 1/2); the mean fits 64 bits
// again and is flipped back.

type wide interface {
	uint64 | int64
}

// wideFlip is 2^63 for int64 and 0 for uint64; it folds to a constant in
// each instantiation.
func wideFlip[T wide]() uint64 {
	if T(0)-1 < 0 {
		return 1 << 63
	}
	return 0
}

// meanWide computes 64-bit integer means row by row.
func meanWide[T wide](p *plan, dst, src []T) {
	var it rowIter
	it.init(p)
	var rows [maxRows][]T
	for it.next() {
		rs := gather(&it, src, &rows)
		d := dst[it.dst : it.dst+it.outN]
		switch {
		case it.horiz && len(rs) == 1:
			meanWideH1(d, rs[0])
		case it.horiz && len(rs) == 2:
			meanWideH2(d, rs[0], rs[1])
		case it.horiz && len(rs) == 4:
			meanWideH4(d, rs[0], rs[1], rs[2], rs[3])
		case !it.horiz && len(rs) == 1:
			copy(d, rs[0])
		default:
			meanWideN(d, rs, it.horiz)
		}
	}
}

// roundShift returns floor((hi·2^64 + lo + 2^(k-1)) / 2^k) for k ≥ 1,
// which fits 64 bits when hi:lo is a sum of at most 2^k samples.
func roundShift(hi, lo uint64, k uint) uint64 {
	lo, c := bits.Add64(lo, 1<<(k-1), 0)
	hi += c
	return lo>>k | hi<<(64-k)
}

func meanWideH1[T wide](d, a []T) {
	f := wideFlip[T]()
	for len(d) > 0 && len(a) >= 2 {
		lo, hi := bits.Add64(uint64(a[0])^f, uint64(a[1])^f, 0)
		d[0] = T(roundShift(hi, lo, 1) ^ f)
		d, a = d[1:], a[2:]
	}
	if len(d) > 0 && len(a) > 0 {
		d[0] = a[0]
	}
}

func meanWideH2[T wide](d, a, b []T) {
	f := wideFlip[T]()
	for len(d) > 0 && len(a) >= 2 && len(b) >= 2 {
		lo, hi := bits.Add64(uint64(a[0])^f, uint64(a[1])^f, 0)
		var c uint64
		lo, c = bits.Add64(lo, uint64(b[0])^f, 0)
		hi += c
		lo, c = bits.Add64(lo, uint64(b[1])^f, 0)
		hi += c
		d[0] = T(roundShift(hi, lo, 2) ^ f)
		d, a, b = d[1:], a[2:], b[2:]
	}
	if len(d) > 0 && len(a) > 0 && len(b) > 0 {
		lo, hi := bits.Add64(uint64(a[0])^f, uint64(b[0])^f, 0)
		d[0] = T(roundShift(hi, lo, 1) ^ f)
	}
}

// add128 adds v to the 128-bit sum hi:lo.
func add128(hi, lo, v uint64) (uint64, uint64) {
	lo, c := bits.Add64(lo, v, 0)
	return hi + c, lo
}

func meanWideH4[T wide](d, a, b, c, e []T) {
	f := wideFlip[T]()
	for len(d) > 0 && len(a) >= 2 && len(b) >= 2 && len(c) >= 2 && len(e) >= 2 {
		hi, lo := add128(0, uint64(a[0])^f, uint64(a[1])^f)
		hi, lo = add128(hi, lo, uint64(b[0])^f)
		hi, lo = add128(hi, lo, uint64(b[1])^f)
		hi, lo = add128(hi, lo, uint64(c[0])^f)
		hi, lo = add128(hi, lo, uint64(c[1])^f)
		hi, lo = add128(hi, lo, uint64(e[0])^f)
		hi, lo = add128(hi, lo, uint64(e[1])^f)
		d[0] = T(roundShift(hi, lo, 3) ^ f)
		d, a, b, c, e = d[1:], a[2:], b[2:], c[2:], e[2:]
	}
	if len(d) > 0 && len(a) > 0 && len(b) > 0 && len(c) > 0 && len(e) > 0 {
		hi, lo := add128(0, uint64(a[0])^f, uint64(b[0])^f)
		hi, lo = add128(hi, lo, uint64(c[0])^f)
		hi, lo = add128(hi, lo, uint64(e[0])^f)
		d[0] = T(roundShift(hi, lo, 2) ^ f)
	}
}

// meanWideN handles any power-of-two number of rows, with or without
// pairs along the row.
func meanWideN[T wide](d []T, rows [][]T, horiz bool) {
	f := wideFlip[T]()
	k := uint(bits.TrailingZeros(uint(len(rows))))
	n := len(rows[0])
	for i := range d {
		var lo, hi, c uint64
		j, kk := i, k
		if horiz {
			j = 2 * i
		}
		for _, r := range rows {
			lo, c = bits.Add64(lo, uint64(r[j])^f, 0)
			hi += c
		}
		if horiz && j+1 < n {
			for _, r := range rows {
				lo, c = bits.Add64(lo, uint64(r[j+1])^f, 0)
				hi += c
			}
			kk++
		}
		if kk == 0 {
			d[i] = T(lo ^ f)
			continue
		}
		d[i] = T(roundShift(hi, lo, kk) ^ f)
	}
}
