package downsample

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
