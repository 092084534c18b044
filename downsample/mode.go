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

// modeH writes the modes of one output row whose blocks span pairs along
// the rows. Blocks of one or two rows are those of four rows with every
// sample repeated: the counts double, and the mode stays.
func modeH[T Label](d []T, rows [][]T, block *[maxRows]T) {
	switch len(rows) {
	case 1:
		modeH4(d, rows[0], rows[0], rows[0], rows[0], block)
		return
	case 2:
		modeH4(d, rows[0], rows[1], rows[0], rows[1], block)
		return
	case 4:
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

// modeH4 is modeH for blocks of four rows (2x2x2). It reads 8-byte words
// of the rows, which hold the columns of 4, 2 or 1 blocks, and finds their
// modes in lanes (see lanes) for the blocks that labelled regions make:
// rows all equal (a block is uniform, or straddles a border along the row
// and is a tie of two values), each row's pairs equal (borders between the
// rows), or the rows equal two by two (a border between the rows and one
// along them). Other words go block by block.
func modeH4[T Label](d, a, b, c, e []T, block *[maxRows]T) {
	n := min(len(d), len(a)/2, len(b)/2, len(c)/2, len(e)/2)
	i := 0
	if hostLE && lanesOf[T]().shift < 64 { // 64-bit samples have no lanes in a word
		per := int(32 / lanesOf[T]().shift) // blocks per word
		i = n / per * per
		d, a, b, c, e := d[:i], a[:2*i], b[:2*i], c[:2*i], e[:2*i]
		for j := 0; j < 2*i; {
			j = modeEqualRows(d, a, b, c, e, j)
			j = modeWords(d, a, b, c, e, j)
		}
	}
	mode4Blocks(d[i:n], a[2*i:], b[2*i:], c[2*i:], e[2*i:])
	if n < len(d) {
		j := 2 * n
		block[0], block[1], block[2], block[3] = a[j], b[j], c[j], e[j]
		d[n] = modeOf(block[:4])
	}
}

// modeEqualRows writes the modes of the words of the rows from column j
// on while the four rows are equal, and returns the column where they stop
// being so. d holds half as many samples as each row, a whole number of
// words.
func modeEqualRows[T Label](d, a, b, c, e []T, j int) int {
	l := lanesOf[T]()
	db, ab := asBytes(d), asBytes(a)
	bb, cb, eb := asBytes(b)[:len(ab)], asBytes(c)[:len(ab)], asBytes(e)[:len(ab)]
	o := uint(j) * uint(l.shift/8)
	for ; o+32 <= uint(len(ab)) && o/2+16 <= uint(len(db)); o += 32 {
		pa, pb, pc, pe := (*[32]byte)(ab[o:]), (*[32]byte)(bb[o:]), (*[32]byte)(cb[o:]), (*[32]byte)(eb[o:])
		w, x, y, z := le64(pa[:8]), le64(pa[8:16]), le64(pa[16:24]), le64(pa[24:])
		if (w^le64(pb[:8]))|(w^le64(pc[:8]))|(w^le64(pe[:8]))|(x^le64(pb[8:16]))|(x^le64(pc[8:16]))|(x^le64(pe[8:16]))|
			(y^le64(pb[16:24]))|(y^le64(pc[16:24]))|(y^le64(pe[16:24]))|(z^le64(pb[24:]))|(z^le64(pc[24:]))|(z^le64(pe[24:])) != 0 {
			break
		}
		pd := (*[16]byte)(db[o/2:])
		binary.LittleEndian.PutUint64(pd[:8], uint64(l.pack(l.min(l.even(w), l.odd(w))))|uint64(l.pack(l.min(l.even(x), l.odd(x))))<<32)
		binary.LittleEndian.PutUint64(pd[8:], uint64(l.pack(l.min(l.even(y), l.odd(y))))|uint64(l.pack(l.min(l.even(z), l.odd(z))))<<32)
	}
	for ; o+8 <= uint(len(ab)) && o/2+4 <= uint(len(db)); o += 8 {
		w := le64(ab[o : o+8])
		if w != le64(bb[o:o+8]) || w != le64(cb[o:o+8]) || w != le64(eb[o:o+8]) {
			break
		}
		binary.LittleEndian.PutUint32((*[4]byte)(db[o/2:])[:], l.pack(l.min(l.even(w), l.odd(w))))
	}
	return int(o / uint(l.shift/8))
}

// modeWords writes the modes of the words of the rows from column j on
// while the four rows are not equal, and returns the column where they
// are again.
func modeWords[T Label](d, a, b, c, e []T, j int) int {
	l := lanesOf[T]()
	per := int(32 / l.shift)
	db, ab := asBytes(d), asBytes(a)
	bb, cb, eb := asBytes(b)[:len(ab)], asBytes(c)[:len(ab)], asBytes(e)[:len(ab)]
	o := j * int(l.shift/8)
	for ; o+8 <= len(ab) && o/2+4 <= len(db); o += 8 {
		wa, wb, wc, we := le64(ab[o:o+8]), le64(bb[o:o+8]), le64(cb[o:o+8]), le64(eb[o:o+8])
		if wa == wb && wa == wc && wa == we {
			break
		}
		// Rows equal two by two, x and y, across the outer axis or the
		// inner one.
		x, y, two := wa, wb, wa == wc && wb == we
		if wa == wb && wc == we {
			y, two = wc, true
		}
		var r uint64
		switch {
		case two && l.pairsEqual(x, y, x, y):
			r = l.min(l.even(x), l.even(y)) // two values, four of each
		case two:
			r = laneMode4[T](l.even(x), l.odd(x), l.even(y), l.odd(y))
		case l.pairsEqual(wa, wb, wc, we):
			r = laneMode4[T](l.even(wa), l.even(wb), l.even(wc), l.even(we))
		default:
			k := o / 2 * 8 / int(l.shift)
			mode4Blocks(d[k:k+per], a[2*k:], b[2*k:], c[2*k:], e[2*k:])
			continue
		}
		binary.LittleEndian.PutUint32(db[o/2:o/2+4], l.pack(r))
	}
	return o / int(l.shift/8)
}

// lanes describes a word of samples split into its even and its odd
// samples, each in the low half of a lane twice the sample's width, with
// the sign bit flipped for signed samples so that lanes compare as
// unsigned numbers. The empty high half of a lane takes the borrows of
// comparisons and the counts of equal samples, so that lanes never carry
// into each other. lanesOf and the methods inline, and the fields fold to
// constants in each instantiation of their caller.
type lanes struct {
	shift uint   // sample width in bits
	low   uint64 // the low half of every lane
	guard uint64 // the bit above every lane's sample
	sign  uint64 // every lane's sign bit (0 for unsigned samples)
}

func lanesOf[T Label]() lanes {
	var zero T
	s := 8 * uint(unsafe.Sizeof(zero))
	ones := ^uint64(0) / (1<<(2*s) - 1) // the lowest bit of every lane (1<<64 is 0)
	return lanes{shift: s, low: ones * (1<<s - 1), guard: ones << s, sign: signFlip[T](ones << (s - 1))}
}

// even and odd return the even and the odd samples of w in lanes.
func (l lanes) even(w uint64) uint64 { return w&l.low ^ l.sign }
func (l lanes) odd(w uint64) uint64  { return w>>l.shift&l.low ^ l.sign }

// pack returns the samples in lanes x as 32 bits of packed samples.
func (l lanes) pack(x uint64) uint32 {
	x ^= l.sign
	switch l.shift {
	case 8:
		x = pack8(x)
	case 16:
		x = pack16(x)
	}
	return uint32(x)
}

// pairsEqual reports whether every odd sample of the words equals the
// even one before it.
func (l lanes) pairsEqual(a, b, c, e uint64) bool {
	s := l.shift
	return ((a^a>>s)|(b^b>>s)|(c^c>>s)|(e^e>>s))&l.low == 0
}

// min returns the smaller of each lane of x and y.
func (l lanes) min(x, y uint64) uint64 {
	g := ((x | l.guard) - y) & l.guard // the guard bit stays where x >= y
	return x ^ (x^y)&(g-g>>l.shift)
}

// eq returns the guard bit of the lanes where x equals y.
func (l lanes) eq(x, y uint64) uint64 { return ((x^y)+l.low)&l.guard ^ l.guard }

// maxKey returns the larger of each lane of x and y, keys below 4 guard
// bits.
func (l lanes) maxKey(x, y uint64) uint64 {
	g := l.guard << 2
	g &= (x | g) - y // set where x >= y
	return y ^ (x^y)&(g-g>>(l.shift+2))
}

// laneMode4 returns in each lane the most frequent of the lanes of p, q, r
// and s, the smallest on a tie. It ranks them by a key that holds, above
// the sample, how many of the others equal it and, below, the sample
// complemented, and keeps the largest key.
func laneMode4[T Label](p, q, r, s uint64) uint64 {
	l := lanesOf[T]()
	pq, pr, ps := l.eq(p, q), l.eq(p, r), l.eq(p, s)
	qr, qs, rs := l.eq(q, r), l.eq(q, s), l.eq(r, s)
	kp := pq + pr + ps + (p ^ l.low)
	kq := pq + qr + qs + (q ^ l.low)
	kr := pr + qr + rs + (r ^ l.low)
	ks := ps + qs + rs + (s ^ l.low)
	return (l.maxKey(l.maxKey(kp, kq), l.maxKey(kr, ks)) ^ l.low) & l.low
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
		d[i] = fromKey[T](mode8(key(a[j]), key(a[j+1]), key(b[j]), key(b[j+1]),
			key(c[j]), key(c[j+1]), key(e[j]), key(e[j+1])))
	}
}

// key maps a label to an int64 of the same order (uint64 labels with
// their top bit flipped), and fromKey back; both fold to conversions.
func key[T Label](v T) int64 { return int64(v) ^ int64(keyFlip[T]()) }

func fromKey[T Label](k int64) T { return T(k ^ int64(keyFlip[T]())) }

// keyFlip is 2^63 for uint64 and 0 for the other label types.
func keyFlip[T Label]() uint64 {
	var zero T
	if unsafe.Sizeof(zero) == 8 && T(0)-1 > 0 {
		return 1 << 63
	}
	return 0
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
	best, _, _ = runStep(best, bestN, run, v6, v7)
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
