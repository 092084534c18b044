package measure

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"runtime"
	"sync"

	"golang.org/x/sync/errgroup"

	"vastview/base/nd"
	"vastview/levels"
	"vastview/loader"
)

// Cache is a source that can hand out chunks it holds in memory without
// blocking (a *levels.Pyramid): measurements take chunks from it first.
type Cache interface {
	// Get returns the chunk if it is in memory now, else nil; the bytes
	// are not modified afterwards.
	Get(level int, idx []int) []byte
}

// Query is a region to measure: Region on Plane, over the planes
// [From, To) along the plane's normal when To > From (a prism, measured
// with its volume; Plane.Index unused; an axis-aligned plane only), of
// each of Channels (nil: channel 0). On a turned plane the region's
// samples are the plane's samples (i, j) whose centres it holds, each
// valued by the level-0 sample nearest its physical position (index
// floor(P/spacing + 0.5) on each axis), those off the data left out; its
// area is their count × Pixel². At a coarse level (an estimate) the middle
// plane sample of each step × step (step: the plane samples one level
// sample spans) is valued by the level's nearest sample and stands for
// step² samples.
type Query struct {
	Plane    Plane
	Region   Region
	From, To int
	Channels []int
}

// Prism reports whether q extends over a range of planes.
func (q *Query) Prism() bool { return q.To > q.From }

// Options tune Compute.
type Options struct {
	// Level is the level read: 0 for the exact figures, a coarser one for
	// a quick estimate (Stats.Estimate).
	Level int
	// Budget bounds the bytes of chunks held at once (0:
	// levels.Part(0, levels.PartWhole)).
	Budget int64
	// Workers is the number of chunks read and measured at once (0: one
	// per core), fewer when the budget holds fewer chunks.
	Workers int
	// Progress, when set, is called after each chunk with the chunks
	// done and the chunks in all, one call at a time.
	Progress func(done, total int)
	// Hist, when set, makes Compute count the samples into a histogram.
	Hist *HistSpec
}

// HistSpec asks for a histogram of Bins equal bins over [Lo, Hi], the
// last bin closed, as numpy.histogram(values, Bins, (Lo, Hi)) counts;
// samples outside are not counted.
type HistSpec struct {
	Bins   int
	Lo, Hi float64
}

// Stats are the figures of one channel of a region.
type Stats struct {
	Channel int
	// Count is the number of samples (NaN samples of float data are
	// left out, as Fiji leaves them out).
	Count                    int64
	Sum, Mean, Std, Min, Max float64 // Std is the population deviation
	// Area (a region of one plane) or Volume (a prism) in physical units:
	// Unit², Unit³; the other is 0.
	Area, Volume float64
	Unit         string
	// Estimate is true when the figures come from a coarse level (Level):
	// each coarse sample stands for the samples it was made from, so
	// Count, Sum and Area are scaled, and Min, Max and Std are those of
	// the coarse samples.
	Estimate bool
	Level    int
	// Hist holds the histogram's counts when Options.Hist asked for it.
	Hist []int64
}

// Compute measures q on src, reading the chunks of level opt.Level the
// region crosses (from src's memory when it is a Cache), several at a
// time, each once, holding no more than the budget: a region of any size
// streams. It returns one Stats per channel, in q.Channels' order. It
// stops with ctx's error when ctx ends. It is safe for concurrent use
// when src is.
func Compute(ctx context.Context, src loader.Source, q Query, opt Options) ([]Stats, error) {
	m := src.Meta()
	if q.Region == nil {
		return nil, errors.New("no region")
	}
	if opt.Level < 0 || opt.Level >= len(m.Levels) {
		return nil, fmt.Errorf("no level %d", opt.Level)
	}
	if opt.Hist != nil && (opt.Hist.Bins <= 0 || !(opt.Hist.Hi >= opt.Hist.Lo) || math.IsInf(opt.Hist.Hi-opt.Hist.Lo, 0)) {
		return nil, fmt.Errorf("a histogram needs bins > 0 and a finite range lo <= hi")
	}
	g, err := plan(ctx, m, &q, opt.Level)
	if err != nil {
		return nil, err
	}
	g.hist = opt.Hist
	chans := q.Channels
	if len(chans) == 0 {
		chans = []int{0}
	}
	out := make([]Stats, len(chans))
	total := len(g.chunks) * len(chans)
	var done int
	var mu sync.Mutex
	prog := func() {
		if opt.Progress == nil {
			return
		}
		mu.Lock()
		done++
		opt.Progress(done, total)
		mu.Unlock()
	}
	for i, c := range chans {
		if err := g.setChannel(m, c); err != nil {
			return nil, err
		}
		a, err := g.run(ctx, src, opt, prog)
		if err != nil {
			return nil, err
		}
		out[i] = g.finish(m, a, c, &q, opt.Level)
	}
	return out, nil
}

// geom is a query laid over the chunks of a level.
type geom struct {
	level          int
	ra, ca, na     int // axis positions of rows, columns, normal (−1: none)
	r0, c0, r1, c1 int // the region's bounds, in level samples
	n0, n1         int // planes along the normal, in level samples
	fr, fc, fn     int // level-0 samples per level sample
	at             []int
	spans          [][]Span // per row of [r0, r1), level columns
	chunks         [][]int  // chunk indexes (the channel set by setChannel)
	l              *loader.Level
	dt             loader.DType
	hist           *HistSpec
	turned         *turned // a region of a turned plane
}

// plan lays q over the chunks of level k of m (stopping when ctx ends).
func plan(ctx context.Context, m *loader.Meta, q *Query, k int) (*geom, error) {
	if q.Plane.Oblique != nil {
		return planTurned(ctx, m, q, k)
	}
	ra, ca, na, h0, w0, err := q.Plane.axes(m)
	if err != nil {
		return nil, err
	}
	l := &m.Levels[k]
	g := &geom{level: k, ra: ra, ca: ca, na: na, l: l, dt: m.DType}
	g.fr, g.fc = factor(m, k, ra), factor(m, k, ca)
	g.fn = 1
	n0, n1 := q.Plane.Index, q.Plane.Index+1
	if q.Prism() {
		n0, n1 = q.From, q.To
	}
	nlen := 1
	if na >= 0 {
		nlen = m.Levels[0].Shape[na]
		g.fn = factor(m, k, na)
	}
	if n0 < 0 || n1 > nlen || n1 <= n0 {
		_, _, nl := q.Plane.Orientation.Axes()
		return nil, fmt.Errorf("planes %d..%d along %c are outside 0..%d", n0, n1-1, nl, nlen-1)
	}
	g.n0, g.n1 = n0/g.fn, (n1+g.fn-1)/g.fn
	if na >= 0 {
		g.n1 = min(g.n1, l.Shape[na])
	}
	// The region at level k: the level sample whose block's centre the
	// level-0 region holds.
	h, w := l.Shape[ra], l.Shape[ca]
	R0, C0, R1, C1 := q.Region.Bounds(h0, w0)
	g.r0, g.c0 = R0/g.fr, C0/g.fc
	g.r1, g.c1 = min(h, (R1+g.fr-1)/g.fr), min(w, (C1+g.fc-1)/g.fc)
	g.spans = make([][]Span, max(0, g.r1-g.r0))
	var buf []Span
	for r := g.r0; r < g.r1; r++ {
		buf = q.Region.Spans(buf[:0], r*g.fr+(g.fr-1)/2, w0)
		var row []Span
		for _, s := range buf {
			a := (s.From - (g.fc-1)/2 + g.fc - 1) / g.fc
			b := min(w, (s.To-1-(g.fc-1)/2)/g.fc+1)
			if g.fc == 1 {
				a, b = s.From, s.To
			}
			if b > a {
				row = addRun(row, a, b)
			}
		}
		g.spans[r-g.r0] = row
	}
	for g.r0 < g.r1 && len(g.spans[0]) == 0 {
		g.r0++
		g.spans = g.spans[1:]
	}
	for g.r1 > g.r0 && len(g.spans[len(g.spans)-1]) == 0 {
		g.r1--
		g.spans = g.spans[:len(g.spans)-1]
	}
	if m.AxisIndex('T') < 0 && q.Plane.T != 0 {
		return nil, fmt.Errorf("the data has no T axis (axes %s)", m.Axes)
	}
	g.at = make([]int, len(m.Axes))
	for i := range len(m.Axes) {
		switch m.Axes[i] {
		case 'T':
			g.at[i] = q.Plane.T
			if g.at[i] < 0 || g.at[i] >= l.Shape[i] {
				return nil, fmt.Errorf("%c=%d is outside 0..%d", m.Axes[i], g.at[i], l.Shape[i]-1)
			}
		}
	}
	if g.r1 > g.r0 {
		lo, end := make([]int, len(g.at)), make([]int, len(g.at))
		for i := range g.at {
			lo[i], end[i] = g.at[i]/l.Chunk[i], g.at[i]/l.Chunk[i]+1
		}
		set := func(a, from, to int) {
			lo[a], end[a] = from/l.Chunk[a], (to-1)/l.Chunk[a]+1
		}
		set(ra, g.r0, g.r1)
		set(ca, g.c0, g.c1)
		if na >= 0 {
			set(na, g.n0, g.n1)
		}
		idx := append([]int(nil), lo...)
		for {
			g.chunks = append(g.chunks, append([]int(nil), idx...))
			if !nd.NextIn(idx, lo, end) {
				break
			}
		}
	}
	return g, nil
}

// setChannel points the chunk list at channel c.
func (g *geom) setChannel(m *loader.Meta, c int) error {
	ci := m.AxisIndex('C')
	if ci < 0 {
		if c != 0 {
			return fmt.Errorf("the data has no channel %d (one channel)", c)
		}
		return nil
	}
	if c < 0 || c >= g.l.Shape[ci] {
		return fmt.Errorf("the data has no channel %d (channels 0..%d)", c, g.l.Shape[ci]-1)
	}
	g.at[ci] = c
	for _, idx := range g.chunks {
		idx[ci] = c / g.l.Chunk[ci]
	}
	return nil
}

// factor is how many level-0 samples along axis a one sample of level k
// stands for.
func factor(m *loader.Meta, k, a int) int {
	if k == 0 || a < 0 {
		return 1
	}
	s0, sk := m.Levels[0].Scale[a], m.Levels[k].Scale[a]
	if s0 > 0 && sk > 0 && !math.IsInf(sk/s0, 0) {
		return max(1, int(math.Round(sk/s0)))
	}
	return max(1, m.Levels[0].Shape[a]/max(1, m.Levels[k].Shape[a]))
}

// run measures the region's samples of the current channel, chunk by
// chunk.
func (g *geom) run(ctx context.Context, src loader.Source, opt Options, prog func()) (acc, error) {
	cb := g.l.ChunkBytes(g.dt)
	budget := opt.Budget
	if budget <= 0 {
		budget = levels.Part(0, levels.PartWhole)
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, int(budget/int64(max(cb, 1))), len(g.chunks)))
	cache, _ := src.(Cache)
	// The chunks go in batches of one per worker, and their figures are
	// added in the chunks' order: the same region gives the same figures
	// to the last bit, however the reads interleave.
	total := newAcc(g.hist)
	slots := make([]acc, workers)
	bufs := make([][]byte, workers)
	for b := 0; b < len(g.chunks); b += workers {
		if err := ctx.Err(); err != nil {
			return acc{}, err
		}
		batch := g.chunks[b:min(len(g.chunks), b+workers)]
		eg, ectx := errgroup.WithContext(ctx)
		for j, idx := range batch {
			slots[j].reset(g.hist)
			eg.Go(func() error {
				var data []byte
				if cache != nil {
					data = cache.Get(g.level, idx)
				}
				if data == nil {
					if bufs[j] == nil {
						bufs[j] = make([]byte, cb)
					}
					if err := src.ReadChunk(ectx, g.level, idx, bufs[j]); err != nil {
						return err
					}
					data = bufs[j]
				}
				g.chunk(&slots[j], idx, data)
				prog()
				return nil
			})
		}
		if err := eg.Wait(); err != nil {
			return acc{}, err
		}
		for j := range batch {
			total.merge(&slots[j])
		}
	}
	return total, nil
}

// chunk adds the region's samples in chunk idx (bytes data) to a.
func (g *geom) chunk(a *acc, idx []int, data []byte) {
	if g.turned != nil {
		g.turned.add(g, a, idx, data)
		return
	}
	l := g.l
	strides := nd.Strides(l.Chunk)
	base := 0
	for i := range idx {
		if i != g.ra && i != g.ca && i != g.na {
			base += (g.at[i] - idx[i]*l.Chunk[i]) * strides[i]
		}
	}
	cr0, cc0 := idx[g.ra]*l.Chunk[g.ra], idx[g.ca]*l.Chunk[g.ca]
	rlo, rhi := max(g.r0, cr0), min(g.r1, cr0+l.Chunk[g.ra])
	clo, chi := max(g.c0, cc0), min(g.c1, cc0+l.Chunk[g.ca])
	nlo, nhi, cn0 := 0, 1, 0
	if g.na >= 0 {
		cn0 = idx[g.na] * l.Chunk[g.na]
		nlo, nhi = max(g.n0, cn0), min(g.n1, cn0+l.Chunk[g.na])
	}
	part := newChunkAcc(g.dt, g.hist)
	for n := nlo; n < nhi; n++ {
		off := base
		if g.na >= 0 {
			off += (n - cn0) * strides[g.na]
		}
		for r := rlo; r < rhi; r++ {
			ro := off + (r-cr0)*strides[g.ra]
			if e := g.wholeRows(r, rhi, cc0, l.Chunk[g.ca], strides); e > r+1 {
				// Rows whose samples fill the chunk's rows, one after
				// another in memory: one run.
				part.add(data, ro, (e-r)*l.Chunk[g.ca], 1)
				r = e - 1
				continue
			}
			for _, s := range g.spans[r-g.r0] {
				a0, b0 := max(s.From, clo), min(s.To, chi)
				if a0 >= b0 {
					continue
				}
				part.add(data, ro+(a0-cc0)*strides[g.ca], b0-a0, strides[g.ca])
			}
		}
	}
	a.mergeChunk(part)
}

// wholeRows returns the end of the rows from r (before rhi) whose one
// span covers the whole row of the chunk whose first column is cc0 and
// which has cw columns, when the chunk's rows follow one another in memory
// (columns the last axis, rows the one before); r when there are none.
func (g *geom) wholeRows(r, rhi, cc0, cw int, strides []int) int {
	if strides[g.ca] != 1 || strides[g.ra] != cw {
		return r
	}
	e := r
	for e < rhi {
		sp := g.spans[e-g.r0]
		if len(sp) != 1 || sp[0].From > cc0 || sp[0].To < cc0+cw {
			break
		}
		e++
	}
	return e
}

// finish turns the sums of channel c into its Stats.
func (g *geom) finish(m *loader.Meta, a acc, c int, q *Query, k int) Stats {
	s := Stats{Channel: c, Level: k, Estimate: k > 0, Hist: a.hist}
	sr, sc, sn, unit := q.Plane.Spacing(m)
	s.Unit = unit
	scale := int64(g.fr * g.fc)
	if q.Prism() {
		scale *= int64(g.fn)
	}
	s.Count = a.n * scale
	if a.n == 0 {
		s.Min, s.Max, s.Mean, s.Std = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	} else {
		s.Min, s.Max = a.min, a.max
		s.Mean = a.sum() / float64(a.n)
		s.Std = math.Sqrt(math.Max(0, a.m2) / float64(a.n))
		s.Sum = s.Mean * float64(s.Count)
		if scale == 1 {
			s.Sum = a.sum()
		}
	}
	if q.Prism() {
		s.Volume = float64(s.Count) * sr * sc * sn
	} else {
		s.Area = float64(s.Count) * sr * sc
	}
	return s
}

// acc holds the running figures of a region: the count, the sum (exact
// for integer samples), the mean and the sum of squared deviations from it
// (merged as Chan et al.), the extremes and the histogram.
type acc struct {
	n        int64
	isum     big.Int
	fsum     float64
	fcomp    float64 // Neumaier's compensation of fsum
	mean, m2 float64
	min, max float64
	hist     []int64
}

func newAcc(h *HistSpec) acc {
	a := acc{min: math.Inf(1), max: math.Inf(-1)}
	if h != nil {
		a.hist = make([]int64, h.Bins)
	}
	return a
}

// reset makes a hold no samples, keeping its histogram's memory.
func (a *acc) reset(h *HistSpec) {
	hist := a.hist
	*a = newAcc(nil)
	if h != nil {
		if len(hist) != h.Bins {
			hist = make([]int64, h.Bins)
		}
		clear(hist)
		a.hist = hist
	}
}

// sum is the sum of the samples.
func (a *acc) sum() float64 {
	f, _ := new(big.Float).SetInt(&a.isum).Float64()
	return f + a.fsum + a.fcomp
}

// addFloat adds v to the float sum, compensated.
func (a *acc) addFloat(v float64) {
	t := a.fsum + v
	if math.Abs(a.fsum) >= math.Abs(v) {
		a.fcomp += (a.fsum - t) + v
	} else {
		a.fcomp += (v - t) + a.fsum
	}
	a.fsum = t
}

// merge adds the figures of b.
func (a *acc) merge(b *acc) {
	if b.n == 0 {
		return
	}
	a.isum.Add(&a.isum, &b.isum)
	a.addFloat(b.fsum)
	a.addFloat(b.fcomp)
	n := a.n + b.n
	d := b.mean - a.mean
	a.m2 += b.m2 + d*d*float64(a.n)*float64(b.n)/float64(n)
	a.mean += d * float64(b.n) / float64(n)
	a.n = n
	a.min, a.max = math.Min(a.min, b.min), math.Max(a.max, b.max)
	for i := range b.hist {
		a.hist[i] += b.hist[i]
	}
}

// mergeChunk adds the figures of one chunk.
func (a *acc) mergeChunk(c *chunkAcc) {
	if c.n == 0 {
		return
	}
	b := acc{n: c.n, min: c.min, max: c.max, hist: c.hist}
	if c.exact {
		// n·Σx² − (Σx)², exact, over n: the squared deviations.
		var num, t big.Int
		num.SetUint64(c.usq)
		num.Mul(&num, t.SetInt64(c.n))
		t.SetInt64(c.isum)
		t.Mul(&t, &t)
		num.Sub(&num, &t)
		f, _ := new(big.Float).SetInt(&num).Float64()
		b.m2 = f / float64(c.n)
		b.isum.SetInt64(c.isum)
		b.mean = float64(c.isum) / float64(c.n)
	} else {
		b.mean = c.fsum / float64(c.n)
		b.fsum = c.fsum
		b.m2 = c.m2
		if c.intSum {
			b.isum.SetInt64(c.isum)
			b.fsum = 0
			b.mean = float64(c.isum) / float64(c.n)
		}
	}
	a.merge(&b)
}

// EstimateSamples is the number of samples per channel EstimateLevel aims
// for: enough for figures close to the exact ones, few enough to read at
// once.
const EstimateSamples = 1 << 18

// EstimateLevel returns the finest level of m at which q's bounding box
// holds no more than EstimateSamples samples per channel (the coarsest
// level when none does): the level for a quick estimate (Options.Level).
// On a turned plane, a coarse level is read at one plane sample per level
// sample (see Query), and the level is the finest at which the region's
// bounding box holds no more than EstimateSamples of those.
func EstimateLevel(m *loader.Meta, q Query) int {
	if pl := q.Plane.Oblique; pl != nil && q.Region != nil {
		r0, c0, r1, c1 := q.Region.Bounds(pl.H, pl.W)
		for k := range m.Levels {
			f := turnedStep(m, pl, k)
			if float64(ceilDiv(r1-r0, f))*float64(ceilDiv(c1-c0, f)) <= EstimateSamples {
				return k
			}
		}
		return len(m.Levels) - 1
	}
	_, _, _, h0, w0, err := q.Plane.axes(m)
	if err != nil || q.Region == nil {
		return 0
	}
	r0, c0, r1, c1 := q.Region.Bounds(h0, w0)
	depth := 1
	if q.Prism() {
		depth = q.To - q.From
	}
	ra, ca, na, _, _, _ := q.Plane.axes(m)
	for k := range m.Levels {
		n := float64(ceilDiv(r1-r0, factor(m, k, ra))) * float64(ceilDiv(c1-c0, factor(m, k, ca)))
		if na >= 0 {
			n *= float64(ceilDiv(depth, factor(m, k, na)))
		}
		if n <= EstimateSamples {
			return k
		}
	}
	return len(m.Levels) - 1
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
