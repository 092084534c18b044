package omezarr

import (
	"context"
	"fmt"
	"math"
	"strings"

	"vastview/base/nd"
	"vastview/levels"
	"vastview/loader"
)

// An image written in parts is cut along one axis of level 0 (Z where
// there is one, else T or C) into Parts slabs, each a whole number of
// chunks of the split level: the coarsest level that still has at least
// Parts chunks along that axis. A chunk of a level up to the split level
// belongs to the part whose slab holds its first sample (mapped to level
// 0): every such chunk is computed from level-0 samples of its own slab,
// so a part reads only its slab of the source, once, and parts share
// nothing. The chunks of the levels coarser than the split level, each of
// which would span slabs, are the finish's: it computes them from the
// split level as the parts wrote it, which yields the same bytes as one
// run since every level is computed from the one below. The finish then
// checks that every part's chunks are there and writes the metadata.

// partsDir is the folder, inside the output, where each finished part
// leaves its record; the finish removes it.
const partsDir = ".parts"

// A spanner is a pyramid that computes the chunks of a slab alone
// (levels.Pyramid).
type spanner interface {
	Stored() int
	Factor(level, axis int) int
	StreamSpan(ctx context.Context, workers int, sp levels.Span, fn levels.ChunkFunc) (int, error)
}

// partPlan is how an image is cut into parts.
type partPlan struct {
	parts  int
	axis   int   // source axis cut; -1: none (the first part has every chunk)
	split  int   // the last level cut among the parts
	bounds []int // level-0 bounds of the slabs along axis, parts+1 of them
	factor []int // per level: level-0 samples per sample along axis
	stored int   // levels the source stores
	unit   [][]int
}

// planParts cuts the image m describes (every level of it; the first
// stored are the source's) into parts slabs; unit gives per level the
// shape of its objects (shards or chunks) in the source's axis order.
func planParts(m *loader.Meta, src loader.Source, parts int, unit [][]int) partPlan {
	lv := make([]loader.Level, len(m.Levels))
	for k := range lv {
		lv[k] = m.Levels[k]
		lv[k].Chunk = unit[k]
	}
	pl := partPlan{parts: parts, axis: -1, split: len(lv) - 1, stored: len(lv), unit: unit}
	sp, ok := src.(spanner)
	if ok {
		pl.stored = sp.Stored()
	}
	factor := func(k, a int) int {
		if ok {
			return sp.Factor(k, a)
		}
		return max(1, int(math.Round(lv[k].Scale[a]/lv[0].Scale[a])))
	}
	// The axis: Z, T or C, the first with a chunk for every part at level
	// 0, else the first there is.
	for _, c := range "ZTC" {
		a := m.AxisIndex(byte(c))
		if a < 0 || lv[0].Grid()[a] < 2 {
			continue
		}
		if pl.axis < 0 || lv[0].Grid()[a] >= parts && lv[0].Grid()[pl.axis] < parts {
			pl.axis = a
		}
	}
	pl.bounds = make([]int, parts+1)
	if pl.axis < 0 {
		return pl // the first part writes every chunk
	}
	a := pl.axis
	for k := range lv {
		pl.factor = append(pl.factor, factor(k, a))
	}
	if pl.stored < len(lv) {
		pl.split = 0
		for k := len(lv) - 1; k > 0; k-- {
			if lv[k].Grid()[a] >= parts {
				pl.split = k
				break
			}
		}
	}
	ext := lv[0].Chunk[a]
	units := lv[0].Grid()[a]
	if pl.split >= pl.stored {
		ext = lv[pl.split].Chunk[a] * pl.factor[pl.split]
		units = lv[pl.split].Grid()[a]
	}
	n0 := lv[0].Shape[a]
	for p := 0; p <= parts; p++ {
		pl.bounds[p] = min(n0, p*units/parts*ext)
	}
	pl.bounds[parts] = n0
	return pl
}

// box returns the objects of level k (shards or chunks: grid indexes in
// the source's axis order, the box [lo, end)) that part p (0-based)
// writes; ok is false when there are none.
func (pl partPlan) box(lay *layout, k, p int) (lo, end []int, ok bool) {
	l := lay.src[k]
	l.Chunk = pl.unit[k]
	grid := l.Grid()
	lo, end = make([]int, len(grid)), append([]int(nil), grid...)
	if k > pl.split {
		return lo, end, false
	}
	if pl.axis < 0 {
		return lo, end, p == 0
	}
	e := pl.unit[k][pl.axis] * pl.factor[k]
	lo[pl.axis] = (pl.bounds[p] + e - 1) / e
	end[pl.axis] = min(grid[pl.axis], (pl.bounds[p+1]+e-1)/e)
	return lo, end, lo[pl.axis] < end[pl.axis]
}

// span is part p's slab as a levels.Span.
func (pl partPlan) span(p int) levels.Span {
	return levels.Span{Axis: pl.axis, From: pl.bounds[p], To: pl.bounds[p+1], Upto: pl.split}
}

// chunkSet is a set of chunks of one level: a bit per chunk of a box of
// its grid, in C order. It is not safe for concurrent use.
type chunkSet struct {
	lo, end []int
	bits    []byte
}

func newChunkSet(lo, end []int) *chunkSet {
	n := 1
	for i := range lo {
		n *= end[i] - lo[i]
	}
	return &chunkSet{lo: lo, end: end, bits: make([]byte, (n+7)/8)}
}

// pos is idx's position in the box, or -1 outside it.
func (s *chunkSet) pos(idx []int) int {
	p := 0
	for i := range idx {
		if idx[i] < s.lo[i] || idx[i] >= s.end[i] {
			return -1
		}
		p = p*(s.end[i]-s.lo[i]) + idx[i] - s.lo[i]
	}
	return p
}

func (s *chunkSet) set(idx []int) {
	if p := s.pos(idx); p >= 0 {
		s.bits[p/8] |= 1 << (p % 8)
	}
}

func (s *chunkSet) has(idx []int) bool {
	p := s.pos(idx)
	return p >= 0 && s.bits[p/8]&(1<<(p%8)) != 0
}

// each calls fn with every chunk of the box in C order, with whether it is
// in the set, until fn returns false.
func (s *chunkSet) each(fn func(idx []int, in bool) bool) {
	s.walk(func(idx []int) bool { return fn(idx, s.has(idx)) })
}

// walk calls fn with every chunk of the box in C order until fn returns
// false; it does not read the set.
func (s *chunkSet) walk(fn func(idx []int) bool) {
	for i := range s.lo {
		if s.lo[i] >= s.end[i] {
			return
		}
	}
	idx := append([]int(nil), s.lo...)
	for fn(idx) && nd.NextIn(idx, s.lo, s.end) {
	}
}

// partName is "I/N" for part p (0-based) of n.
func partName(p, n int) string { return fmt.Sprintf("%d/%d", p+1, n) }

// chunkNames lists up to max chunk keys, then how many more there are.
func chunkNames(keys []string, limit int) string {
	if len(keys) <= limit {
		return strings.Join(keys, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(keys[:limit], ", "), len(keys)-limit)
}
