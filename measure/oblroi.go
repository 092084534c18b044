package measure

import (
	"context"
	"fmt"
	"math"
	"slices"

	"vastview/base/nd"
	"vastview/loader"
	"vastview/render/oblique"
)

// turned is a region of a turned plane laid over the chunks of a level:
// the plane's samples (i, j) whose centres the region holds, each standing
// for the sample nearest its physical position P (at level 0 the index
// floor(P/spacing + 0.5) on each axis; samples off the data are left out).
// At a coarse level (an estimate) only every step-th row and column of
// the plane is taken, each standing for step² samples.
type turned struct {
	pl     *oblique.Plane
	scale  oblique.Vec // the level's sample P lies at index (P + offset)/scale
	offset oblique.Vec
	step   int
	pos    [3]int // positions of Z, Y, X in the axes (−1: none)
	ext    [3]int // level-0 extent along Z, Y, X
	chunk  [3]int // level-0 chunk size along Z, Y, X
	r0, r1 int
	spans  [][]Span          // the region's columns of each row of [r0, r1)
	rows   map[[3]int][2]int // per chunk (its index along Z, Y, X): the rows [i0, i1) with samples in it
}

// nearest returns the level-0 index (Z, Y, X) of plane sample (i, j) and
// whether it lies in the data.
func (t *turned) nearest(i, j int) ([3]int, bool) {
	p := t.pl.At(float64(i), float64(j))
	var n [3]int
	for k := range 3 {
		n[k] = int(math.Floor((p[k]+t.offset[k])/t.scale[k] + 0.5))
		if n[k] < 0 || n[k] >= t.ext[k] {
			return n, false
		}
	}
	return n, true
}

// chunkOf is the index along Z, Y, X of the chunk that holds level-0
// sample n.
func (t *turned) chunkOf(n [3]int) [3]int {
	return [3]int{n[0] / t.chunk[0], n[1] / t.chunk[1], n[2] / t.chunk[2]}
}

// first is the first index from a that is measured at step f (the
// middle one of each f rows or columns).
func first(a, f int) int {
	if f == 1 {
		return a
	}
	return a + ((f-1)/2-a%f+f)%f
}

// turnedStep is the step in plane samples at which level k of m is read
// for plane pl: the plane's samples within one of level k's samples along
// the plane's directions (1 at level 0).
func turnedStep(m *loader.Meta, pl *oblique.Plane, k int) int {
	if k == 0 {
		return 1
	}
	scale, _ := oblique.LevelScale(m, k)
	ext := [3]int{}
	for a, c := range []byte("ZYX") {
		if i := m.AxisIndex(c); i >= 0 {
			ext[a] = m.Levels[k].Shape[i]
		}
	}
	foot := func(d oblique.Vec) float64 {
		var s float64
		for a := range d {
			if x := d[a] / scale[a]; ext[a] > 1 {
				s += x * x
			}
		}
		if s == 0 {
			return 0
		}
		return 1 / math.Sqrt(s)
	}
	f := math.Min(foot(pl.U), foot(pl.V)) / pl.Pixel
	if !(f >= 1) || math.IsInf(f, 0) {
		return 1
	}
	return int(min(f, 1<<16))
}

// planTurned lays region q (on a turned plane) over the chunks of level k
// of m: the chunks holding its samples, each listed once, in order. It
// stops with ctx's error when ctx ends.
func planTurned(ctx context.Context, m *loader.Meta, q *Query, k int) (*geom, error) {
	pl := q.Plane.Oblique
	if q.Prism() {
		return nil, fmt.Errorf("a region of a turned plane is measured on its plane only, not over a range of planes")
	}
	if !(pl.Pixel > 0) || math.IsInf(pl.Pixel, 0) || pl.W < 0 || pl.H < 0 {
		return nil, fmt.Errorf("a turned plane needs a positive pixel size (%g) and size (%d×%d)", pl.Pixel, pl.W, pl.H)
	}
	l := &m.Levels[k]
	t := &turned{pl: pl, scale: oblique.Spacing(m), step: turnedStep(m, pl, k), rows: map[[3]int][2]int{}}
	if k > 0 {
		t.scale, t.offset = oblique.LevelScale(m, k)
	}
	g := &geom{level: k, ra: -1, ca: -1, na: -1, fr: t.step, fc: t.step, fn: 1, l: l, dt: m.DType}
	for a, c := range []byte("ZYX") {
		t.pos[a] = m.AxisIndex(c)
		t.chunk[a], t.ext[a] = 1, 1
		if t.pos[a] >= 0 {
			t.chunk[a], t.ext[a] = l.Chunk[t.pos[a]], l.Shape[t.pos[a]]
		}
	}
	g.turned = t
	g.at = make([]int, len(m.Axes))
	for i := range len(m.Axes) {
		if m.Axes[i] == 'T' {
			g.at[i] = pl.T
			if pl.T < 0 || pl.T >= l.Shape[i] {
				return nil, fmt.Errorf("time point %d is outside 0..%d", pl.T, l.Shape[i]-1)
			}
		}
	}
	if m.AxisIndex('T') < 0 && pl.T != 0 {
		return nil, fmt.Errorf("the data has no T axis (axes %s)", m.Axes)
	}
	r0, _, r1, _ := q.Region.Bounds(pl.H, pl.W)
	t.r0, t.r1 = r0, r1
	t.spans = make([][]Span, max(0, r1-r0))
	f := t.step
	for i, n := first(r0, f), 0; i < r1; i, n = i+f, n+1 {
		if n%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		sp := q.Region.Spans(nil, i, pl.W)
		t.spans[i-r0] = sp
		var last [3]int
		have := false
		for _, s := range sp {
			for j := first(s.From, f); j < s.To; j += f {
				n, ok := t.nearest(i, j)
				if !ok {
					continue
				}
				c := t.chunkOf(n)
				if have && c == last {
					continue
				}
				last, have = c, true
				if rr, ok := t.rows[c]; ok {
					t.rows[c] = [2]int{min(rr[0], i), max(rr[1], i+1)}
				} else {
					t.rows[c] = [2]int{i, i + 1}
				}
			}
		}
	}
	keys := make([][3]int, 0, len(t.rows))
	for c := range t.rows {
		keys = append(keys, c)
	}
	slices.SortFunc(keys, func(a, b [3]int) int { return slices.Compare(a[:], b[:]) })
	for _, c := range keys {
		idx := make([]int, len(m.Axes))
		for i := range idx {
			idx[i] = g.at[i] / l.Chunk[i]
		}
		for k, p := range t.pos {
			if p >= 0 {
				idx[p] = c[k]
			}
		}
		g.chunks = append(g.chunks, idx)
	}
	return g, nil
}

// columns returns the columns [j0, j1) of row i whose samples may lie in
// the chunk whose first level-0 sample is lo and whose end is hi (along Z,
// Y, X): the interval where each axis's continuous index is within the
// chunk, widened by a sample either side (each sample is tested exactly).
func (t *turned) columns(i int, lo, hi [3]int) (int, int) {
	a := t.pl.At(float64(i), 0)
	b := t.pl.At(float64(i), 1)
	j0, j1 := math.Inf(-1), math.Inf(1)
	for k := range 3 {
		qa, qb := (a[k]+t.offset[k])/t.scale[k], (b[k]+t.offset[k])/t.scale[k]
		d := qb - qa
		from, to := float64(lo[k])-0.5, float64(hi[k])-0.5
		if d == 0 {
			if qa < from-1e-6 || qa > to+1e-6 {
				return 0, 0
			}
			continue
		}
		x, y := (from-qa)/d, (to-qa)/d
		if x > y {
			x, y = y, x
		}
		j0, j1 = math.Max(j0, x), math.Min(j1, y)
	}
	w := float64(t.pl.W)
	j0, j1 = math.Max(0, math.Floor(j0)-1), math.Min(w, math.Ceil(j1)+2)
	if !(j1 > j0) {
		return 0, 0
	}
	return int(j0), int(j1)
}

// add adds the region's samples nearest a level-0 sample of chunk idx
// (bytes data) to a.
func (t *turned) add(g *geom, a *acc, idx []int, data []byte) {
	l := g.l
	strides := nd.Strides(l.Chunk)
	base := 0
	for i := range idx {
		if i != t.pos[0] && i != t.pos[1] && i != t.pos[2] {
			base += (g.at[i] - idx[i]*l.Chunk[i]) * strides[i]
		}
	}
	var c, lo, hi [3]int
	var st [3]int
	for k, p := range t.pos {
		if p >= 0 {
			c[k], st[k] = idx[p], strides[p]
		}
		lo[k], hi[k] = c[k]*t.chunk[k], (c[k]+1)*t.chunk[k]
	}
	rr := t.rows[c]
	part := newChunkAcc(g.dt, g.hist)
	f := t.step
	for i := rr[0]; i < rr[1]; i += f {
		j0, j1 := t.columns(i, lo, hi)
		for _, s := range t.spans[i-t.r0] {
			for j := first(max(j0, s.From), f); j < min(j1, s.To); j += f {
				n, ok := t.nearest(i, j)
				if !ok || t.chunkOf(n) != c {
					continue
				}
				off := base
				for k := range 3 {
					off += (n[k] - lo[k]) * st[k]
				}
				part.add(data, off, 1, 1)
			}
		}
	}
	a.mergeChunk(part)
}
