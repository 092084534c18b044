package downsample

import (
	"encoding/binary"
	"unsafe"
)

// modes computes block modes row by row.
func modes[T Label](p *plan, dst, src []T) {
	var it rowIter
	it.init(p)
	var rows [maxRows][]T
	var block [maxRows]T // a row axis that is reduced leaves at most maxRows/2 rows
	for it.next() {
		rs := gather(&it, src, &rows)
		d := dst[it.dst : it.dst+it.outN]
		if it.horiz {
			modeH(d, rs, &block)
		} else {
			modeV(d, rs, &block)
		}
	}
}

func modeH[T Label](d []T, rows [][]T, block *[maxRows]T) {
	if len(rows) == 4 {
		modeH4(d, rows[0], rows[1], rows[2], rows[3], block)
		return
	}
	n := len(rows[0])
	for i := range d {
		j := 2 * i
		k := 0
		if j+1 < n {
			for _, r := range rows {
				block[k], block[k+1] = r[j], r[j+1]
				k += 2
			}
		} else {
			for _, r := range rows {
				block[k] = r[j]
				k++
			}
		}
		d[i] = modeOf(block[:k])
	}
}

// modeH4 is modeH for 2x2x2 blocks. Inside labelled regions most blocks
// are uniform, so it first compares whole 8-byte words of the four rows,
// which hold 4, 2 or 1 blocks' worth of samples: when the words are equal
// and each pair within them too, the word's blocks are done at once.
func modeH4[T Label](d, a, b, c, e []T, block *[maxRows]T) {
	n := min(len(d), len(a)/2, len(b)/2, len(c)/2, len(e)/2)
	i := 0
	if hostLE {
		var zero T
		size := int(unsafe.Sizeof(zero))
		per := 4 / size // blocks per word
		db, ab, bb, cb, eb := asBytes(d), asBytes(a), asBytes(b), asBytes(c), asBytes(e)
		for ; i+per <= n; i += per {
			o := 2 * size * i
			w := le64(ab[o : o+8])
			if w != le64(bb[o:o+8]) || w != le64(cb[o:o+8]) || w != le64(eb[o:o+8]) {
				mode4Blocks(d[i:i+per], a[2*i:], b[2*i:], c[2*i:], e[2*i:])
				continue
			}
			even, ok := evenSamples(w, size)
			if !ok {
				mode4Blocks(d[i:i+per], a[2*i:], b[2*i:], c[2*i:], e[2*i:])
				continue
			}
			binary.LittleEndian.PutUint32(db[size*i:size*i+4], even)
		}
	}
	mode4Blocks(d[i:n], a[2*i:], b[2*i:], c[2*i:], e[2*i:])
	if n < len(d) {
		j := 2 * n
		block[0], block[1], block[2], block[3] = a[j], b[j], c[j], e[j]
		d[n] = modeOf(block[:4])
	}
}

// evenSamples returns the even samples of w, a word of samples of the
// given size, packed into 32 bits, and whether every odd sample equals the
// even one before it.
func evenSamples(w uint64, size int) (uint32, bool) {
	switch size {
	case 1:
		return uint32(pack8(w & lanes8)), (w^w>>8)&lanes8 == 0
	case 2:
		return uint32(pack16(w & lanes16)), (w^w>>16)&lanes16 == 0
	}
	return uint32(w), uint32(w) == uint32(w>>32)
}

// mode4Blocks writes d[i] as the mode of the 2x2x2 block at columns 2i and
// 2i+1 of the four rows.
func mode4Blocks[T Label](d, a, b, c, e []T) {
	for i := range d {
		j := 2 * i
		v := a[j]
		if (a[j+1]^v)|(b[j]^v)|(b[j+1]^v)|(c[j]^v)|(c[j+1]^v)|(e[j]^v)|(e[j+1]^v) == 0 {
			d[i] = v
			continue
		}
		d[i] = T(mode8(int64(a[j]), int64(a[j+1]), int64(b[j]), int64(b[j+1]),
			int64(c[j]), int64(c[j+1]), int64(e[j]), int64(e[j+1])))
	}
}

// mode8 is modeOf for 8 values without data-dependent branches: a sorting
// network, then a scan for the longest run (the first, so the smallest
// value, wins a tie). It works on int64, where min, max and the selects
// compile to conditional moves.
func mode8(v0, v1, v2, v3, v4, v5, v6, v7 int64) int64 {
	// Batcher's odd-even merge sort for 8 inputs: 19 comparators.
	v0, v1 = min(v0, v1), max(v0, v1)
	v2, v3 = min(v2, v3), max(v2, v3)
	v4, v5 = min(v4, v5), max(v4, v5)
	v6, v7 = min(v6, v7), max(v6, v7)
	v0, v2 = min(v0, v2), max(v0, v2)
	v1, v3 = min(v1, v3), max(v1, v3)
	v4, v6 = min(v4, v6), max(v4, v6)
	v5, v7 = min(v5, v7), max(v5, v7)
	v1, v2 = min(v1, v2), max(v1, v2)
	v5, v6 = min(v5, v6), max(v5, v6)
	v0, v4 = min(v0, v4), max(v0, v4)
	v1, v5 = min(v1, v5), max(v1, v5)
	v2, v6 = min(v2, v6), max(v2, v6)
	v3, v7 = min(v3, v7), max(v3, v7)
	v2, v4 = min(v2, v4), max(v2, v4)
	v3, v5 = min(v3, v5), max(v3, v5)
	v1, v2 = min(v1, v2), max(v1, v2)
	v3, v4 = min(v3, v4), max(v3, v4)
	v5, v6 = min(v5, v6), max(v5, v6)
	best, bestN, run := v0, int64(1), int64(1)
	best, bestN, run = runStep(best, bestN, run, v0, v1)
	best, bestN, run = runStep(best, bestN, run, v1, v2)
	best, bestN, run = runStep(best, bestN, run, v2, v3)
	best, bestN, run = runStep(best, bestN, run, v3, v4)
	best, bestN, run = runStep(best, bestN, run, v4, v5)
	best, bestN, run = runStep(best, bestN, run, v5, v6)
	best, bestN, _ = runStep(best, bestN, run, v6, v7)
	return best
}

// runStep extends the run of equal sorted values by v and keeps the value
// of the longest run.
func runStep(best, bestN, run, prev, v int64) (int64, int64, int64) {
	run++
	if v != prev {
		run = 1
	}
	if run > bestN {
		best, bestN = v, run
	}
	return best, bestN, run
}

func modeV[T Label](d []T, rows [][]T, block *[maxRows]T) {
	for i := range d {
		for k, r := range rows {
			block[k] = r[i]
		}
		d[i] = modeOf(block[:len(rows)])
	}
}

// modeOf returns the most frequent value of v, the smallest on a tie. It
// reorders v.
func modeOf[T Label](v []T) T {
	first := v[0]
	same := true
	for _, x := range v[1:] {
		same = same && x == first
	}
	if same {
		return first
	}
	for i := 1; i < len(v); i++ {
		x := v[i]
		j := i
		for ; j > 0 && v[j-1] > x; j-- {
			v[j] = v[j-1]
		}
		v[j] = x
	}
	best, bestN := v[0], 0
	for i := 0; i < len(v); {
		j := i + 1
		for j < len(v) && v[j] == v[i] {
			j++
		}
		if j-i > bestN {
			best, bestN = v[i], j-i
		}
		i = j
	}
	return best
}
