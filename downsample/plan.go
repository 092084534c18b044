package downsample

import (
	"fmt"
	"math"
	"math/bits"
)

const (
	maxRank = 2*MaxReduced + 1 // axes left after merging: kept, reduced, kept, ...
	maxRows = 1 << MaxReduced  // source rows of one output row
)

// plan is a shape reduced to its essentials: axes of length 1 dropped and
// runs of kept axes merged into one, so that rows are as long as possible.
type plan struct {
	n     int
	dim   [maxRank]int
	red   [maxRank]bool
	empty bool // some axis has length 0
}

// init checks the shape against the buffer lengths (in samples) and
// builds the plan.
func (p *plan) init(ndst, nsrc int, shape []int, reduce []bool) error {
	if len(shape) != len(reduce) {
		return fmt.Errorf("%w: %d axes but %d reduce flags", ErrShape, len(shape), len(reduce))
	}
	var total, out uint64 = 1, 1
	nred := 0
	*p = plan{}
	for i, n := range shape {
		if n < 0 {
			return fmt.Errorf("%w: negative length in shape %v", ErrShape, shape)
		}
		o := n
		if reduce[i] {
			o = (n + 1) / 2
		}
		var hi uint64
		hi, total = bits.Mul64(total, uint64(n))
		if hi != 0 || total > math.MaxInt {
			return fmt.Errorf("%w: shape %v is too large", ErrShape, shape)
		}
		out *= uint64(o)
		if n == 0 {
			p.empty = true
		}
		if n <= 1 {
			continue
		}
		if reduce[i] {
			if nred++; nred > MaxReduced {
				return fmt.Errorf("%w: more than %d reduced axes", ErrShape, MaxReduced)
			}
			p.add(n, true)
		} else if p.n > 0 && !p.red[p.n-1] {
			p.dim[p.n-1] *= n
		} else {
			p.add(n, false)
		}
	}
	if total != uint64(nsrc) {
		return fmt.Errorf("%w: shape %v has %d samples, source holds %d", ErrShape, shape, total, nsrc)
	}
	if out != uint64(ndst) {
		return fmt.Errorf("%w: result of shape %v has %d samples, destination holds %d", ErrShape, shape, out, ndst)
	}
	if p.n == 0 {
		p.add(1, false)
	}
	return nil
}

func (p *plan) add(n int, red bool) {
	p.dim[p.n], p.red[p.n] = n, red
	p.n++
}

// rowIter walks the output rows (the last axis of the plan) in order and
// yields, for each, the offsets of the source rows that feed it: one per
// combination of positions in the blocks of the outer reduced axes, in C
// order.
type rowIter struct {
	outer int // axes before the row axis
	dim   [maxRank]int
	odim  [maxRank]int
	st    [maxRank]int // source strides in samples
	red   [maxRank]bool
	o     [maxRank]int // current output index on the outer axes

	n, outN int  // source and output row lengths
	horiz   bool // the row axis is reduced
	left    int  // rows not yet yielded
	first   bool

	offs [maxRows]int // source row offsets of the current output row
	m    int          // number of source rows
	dst  int          // output offset of the current row
}

func (it *rowIter) init(p *plan) {
	*it = rowIter{outer: p.n - 1, dim: p.dim, red: p.red, first: true}
	last := p.n - 1
	it.n, it.horiz = p.dim[last], p.red[last]
	it.outN = it.n
	if it.horiz {
		it.outN = (it.n + 1) / 2
	}
	it.left = 1
	stride := it.n
	for a := last - 1; a >= 0; a-- {
		it.st[a] = stride
		stride *= p.dim[a]
		it.odim[a] = p.dim[a]
		if p.red[a] {
			it.odim[a] = (p.dim[a] + 1) / 2
		}
		it.left *= it.odim[a]
	}
}

// next moves to the next output row; it reports false when all are done.
func (it *rowIter) next() bool {
	if it.left == 0 {
		return false
	}
	it.left--
	if it.first {
		it.first = false
	} else {
		it.dst += it.outN
		for a := it.outer - 1; a >= 0; a-- {
			if it.o[a]++; it.o[a] < it.odim[a] {
				break
			}
			it.o[a] = 0
		}
	}
	base := 0
	for a := range it.outer {
		i := it.o[a]
		if it.red[a] {
			i *= 2
		}
		base += i * it.st[a]
	}
	it.offs[0], it.m = base, 1
	for a := range it.outer {
		if !it.red[a] || 2*it.o[a]+1 >= it.dim[a] {
			continue
		}
		s := it.st[a]
		for i := it.m - 1; i >= 0; i-- {
			it.offs[2*i+1] = it.offs[i] + s
			it.offs[2*i] = it.offs[i]
		}
		it.m *= 2
	}
	return true
}

// gather slices the current source rows out of src into rows.
func gather[T Number](it *rowIter, src []T, rows *[maxRows][]T) [][]T {
	for i, o := range it.offs[:it.m] {
		rows[i] = src[o : o+it.n : o+it.n]
	}
	return rows[:it.m]
}
