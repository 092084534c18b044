package render

import (
	"math"

	"vastview/loader"
)

// maxAxes is the most axes a source has ("TCZYX").
const maxAxes = 5

// snap moves positions that fall exactly on a sample boundary (up to
// rounding) to the sample after it, so that boundaries land the same way
// whatever the rounding of the arithmetic that led to them.
const snap = 1e-9

// affine maps a level-0 coordinate u (sample i covers [i, i+1)) along one
// axis to the sample floor(a*u + b) of another level. Level k's sample j is
// centred at Translation_k + j*Scale_k, so a = Scale_0/Scale_k and
// b = (Translation_0 - Translation_k - Scale_0/2)/Scale_k + 1/2; for levels
// made by mean binning by f this is floor(u/f).
type affine struct{ a, b float64 }

func levelAffine(m *loader.Meta, k, i int) affine {
	l0, lk := &m.Levels[0], &m.Levels[k]
	s0, sk := l0.Scale[i], lk.Scale[i]
	f := affine{a: s0 / sk, b: (l0.Translation[i]-lk.Translation[i]-s0/2)/sk + 0.5}
	if !(s0 > 0 && sk > 0) || !finite(f.a) || !finite(f.b) {
		// No usable geometry: assume the levels cover the same extent.
		return affine{a: float64(lk.Shape[i]) / float64(l0.Shape[i])}
	}
	return f
}

// at returns the sample under level-0 coordinate u, which may lie outside
// the level.
func (f affine) at(u float64) int {
	s := f.a*u + f.b + snap
	if !(s > -1<<40) {
		return -1 << 40 // also NaN
	}
	if s > 1<<40 {
		return 1 << 40
	}
	return int(math.Floor(s))
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// frame is the geometry of one view of one source, shared by every level.
type frame struct {
	m       *loader.Meta
	v       View
	zc, zr  float64 // screen pixels per level-0 sample down and across the screen
	ra, ca  int     // positions in m.Axes of the axes down and across the screen (the plane's row and column axes, swapped by a Flip's Swap), -1 if absent
	level   int     // the level drawn at
	es      int     // bytes per sample
	fixed   [maxAxes]int
	nlevels int
	// outside is true when the view's position on an axis not displayed
	// is beyond the data (a plane only a layer over it reaches): nothing
	// of the data is drawn.
	outside bool
}

// newFrame works out the geometry of v over m.
func newFrame(v View, m *loader.Meta) frame {
	f := frame{m: m, es: m.DType.Size(), nlevels: len(m.Levels)}
	f.v = v
	f.zc, f.zr = f.v.zooms(m)
	row, col, _ := v.Orientation.Axes()
	f.ra, f.ca = m.AxisIndex(row), m.AxisIndex(col)
	if v.Flip().Swap {
		f.ra, f.ca, f.zc, f.zr = f.ca, f.ra, f.zr, f.zc
	}
	for i := 0; i < len(m.Axes) && i < maxAxes; i++ {
		at := v.At(m.Axes[i])
		f.fixed[i] = max(0, min(m.Shape[i]-1, at))
		if i != f.ra && i != f.ca && (at < 0 || at >= m.Shape[i]) {
			f.outside = true
		}
	}
	f.level = chooseLevel(m, f.ra, f.ca, f.zc, f.zr)
	return f
}

// chooseLevel returns the coarsest level that still has at least one of
// its samples per screen pixel along both displayed axes (an axis the level
// does not reduce always qualifies); zoomed in beyond one screen pixel per
// sample, that is level 0. A level coarser only along axes not displayed
// (Z for an XY view) shows no fewer samples, just averaged planes, so the
// finest of the levels alike on the displayed axes is taken.
func chooseLevel(m *loader.Meta, ra, ca int, zc, zr float64) int {
	best := 0
	for k := 1; k < len(m.Levels); k++ {
		if !fine(m, k, ca, zc) || !fine(m, k, ra, zr) {
			break
		}
		if coarser(m, k, best, ca) || coarser(m, k, best, ra) {
			best = k
		}
	}
	return best
}

// coarser reports whether level k has fewer samples than level j along
// axis i (-1: an axis the data lacks).
func coarser(m *loader.Meta, k, j, i int) bool {
	return i >= 0 && levelAffine(m, k, i).a < levelAffine(m, j, i).a*(1-1e-9)
}

// fine reports whether level k has at least one sample per screen pixel
// along axis i at zoom (screen pixels per level-0 sample).
func fine(m *loader.Meta, k, i int, zoom float64) bool {
	if i < 0 {
		return true
	}
	a := levelAffine(m, k, i).a // level-k samples per level-0 sample
	return a >= 1-1e-9 || zoom/a <= 1+1e-6
}

// chunkStrides returns the bytes between neighbouring samples of each axis
// within a chunk of level l (C order).
func chunkStrides(l *loader.Level, es int) (s [maxAxes]int) {
	n := len(l.Chunk)
	acc := es
	for i := n - 1; i >= 0; i-- {
		if i < maxAxes {
			s[i] = acc
		}
		acc *= l.Chunk[i]
	}
	return s
}

// axisMap holds, for each screen pixel along one displayed axis, the
// level's sample under it, its chunk along the axis (-1 outside the data)
// and its byte offset within that chunk.
type axisMap struct {
	sample, chunk, off []int
}

func (am *axisMap) fill(f affine, n, chunk, stride, size int, centre, zoom float64) {
	if cap(am.sample) < size {
		am.sample, am.chunk, am.off = make([]int, size), make([]int, size), make([]int, size)
	}
	am.sample, am.chunk, am.off = am.sample[:size], am.chunk[:size], am.off[:size]
	half := float64(size) / 2
	for x := 0; x < size; x++ {
		j := f.at(centre + (float64(x)+0.5-half)/zoom)
		if j < 0 || j >= n {
			am.sample[x], am.chunk[x], am.off[x] = -1, -1, 0
			continue
		}
		am.sample[x], am.chunk[x], am.off[x] = j, j/chunk, (j%chunk)*stride
	}
}

// levelState is the mapping of one frame onto one level: where each screen
// column and row falls, and the chunk index and offset of the axes not
// displayed.
type levelState struct {
	ready      bool
	cols, rows axisMap
	idx        [maxAxes]int // chunk index; the displayed axes are set per chunk
	base       int          // byte offset of the fixed axes within a chunk
	bytes      int          // bytes of one chunk
	strides    [maxAxes]int
}

// prepare maps frame f onto level k.
func (ls *levelState) prepare(f *frame, k int) {
	m := f.m
	l := &m.Levels[k]
	ls.ready = true
	ls.bytes = l.ChunkBytes(m.DType)
	ls.strides = chunkStrides(l, f.es)
	ls.base = 0
	for i := 0; i < len(m.Axes) && i < maxAxes; i++ {
		ls.idx[i] = 0
		if i == f.ra || i == f.ca {
			continue
		}
		j := levelAffine(m, k, i).at(float64(f.fixed[i]) + 0.5)
		j = max(0, min(l.Shape[i]-1, j))
		ls.idx[i] = j / l.Chunk[i]
		ls.base += (j % l.Chunk[i]) * ls.strides[i]
	}
	// A flipped axis: a negative zoom walks it backwards.
	sx, sy := f.v.screenDelta(1, 1)
	cx, cy := f.v.Center.Col, f.v.Center.Row
	if f.v.Flip().Swap {
		cx, cy = cy, cx
	}
	ls.mapAxis(&ls.cols, f, k, f.ca, f.v.Width, cx, sx*f.zc)
	ls.mapAxis(&ls.rows, f, k, f.ra, f.v.Height, cy, sy*f.zr)
}

func (ls *levelState) mapAxis(am *axisMap, f *frame, k, i, size int, centre, zoom float64) {
	if i < 0 { // the data lacks the axis: one sample, [0, 1)
		am.fill(affine{a: 1}, 1, 1, 0, size, centre, zoom)
		return
	}
	l := &f.m.Levels[k]
	am.fill(levelAffine(f.m, k, i), l.Shape[i], l.Chunk[i], ls.strides[i], size, centre, zoom)
}

// layerAt returns the chunk index along axis i of level k that holds
// level-0 index p.
func layerAt(m *loader.Meta, k, i, p int) int {
	l := &m.Levels[k]
	j := levelAffine(m, k, i).at(float64(p) + 0.5)
	return max(0, min(l.Shape[i]-1, j)) / l.Chunk[i]
}
