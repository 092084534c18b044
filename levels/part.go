package levels

import (
	"context"
	"runtime"

	"golang.org/x/sync/errgroup"

	"vastview/base/nd"
)

// A Span is a part of a pyramid cut along one axis: the level-0 samples
// [From, To) along Axis, and the levels up to Upto. A chunk of a level up
// to Upto belongs to the span when its first sample, mapped to level 0,
// lies in [From, To). From must be a multiple of every such computed
// level's chunk extent in level-0 samples (its chunk length times Factor),
// and To too unless it is the axis's length; then each computed chunk of
// the span is computed from level-0 samples of the span alone.
type Span struct {
	Axis, From, To, Upto int
}

// Factor is how many level-0 samples along axis one sample of level
// stands for: 1, 2, 4, ... for computed levels; 1 along an axis never
// halved. For stored levels beyond level 0 (a source with its own
// pyramid) it is the ratio of the extents, rounded down.
func (p *Pyramid) Factor(level, axis int) int {
	if level < p.stored {
		return max(1, p.meta.Levels[0].Shape[axis]/max(1, p.meta.Levels[level].Shape[axis]))
	}
	f := max(1, p.meta.Levels[0].Shape[axis]/max(1, p.meta.Levels[p.stored-1].Shape[axis]))
	for k := p.stored - 1; k < level; k++ {
		if p.reduce[k][axis] {
			f *= 2
		}
	}
	return f
}

// SpanChunks returns the range [lo, hi) of chunk indexes along sp.Axis of
// level whose chunks belong to sp.
func (p *Pyramid) SpanChunks(level int, sp Span) (lo, hi int) {
	l := &p.meta.Levels[level]
	e := l.Chunk[sp.Axis] * p.Factor(level, sp.Axis)
	lo = (sp.From + e - 1) / e
	hi = min(l.Grid()[sp.Axis], (sp.To+e-1)/e)
	return lo, max(lo, hi)
}

// StreamSpan hands every computed chunk of sp (levels Stored to sp.Upto)
// to fn, each once, as StreamChunks does for the whole pyramid, reading
// only the level-0 samples of sp. Where the levels stream from whole planes
// it also hands on the chunks of the last stored level in sp, reading each
// once, and returns that level; otherwise it returns Stored, and the
// stored chunks are left to ReadChunk. Levels go one after the other there,
// each computed from the one below (kept in the disk cache when the
// pyramid has one). Calls to fn come from up to workers goroutines.
func (p *Pyramid) StreamSpan(ctx context.Context, workers int, sp Span, fn ChunkFunc) (int, error) {
	if sp.Upto < p.stored || sp.From >= sp.To {
		return p.stored, nil
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, done, ok := p.startFlight(ForBackground(ctx))
	if !ok {
		return 0, errClosed
	}
	defer done()
	if p.cascadeOK() {
		return p.stored - 1, p.buildCascade(ctx, workers, fn, &sp)
	}
	for k := p.stored; k <= sp.Upto; k++ {
		if err := p.streamLevelSpan(ctx, workers, k, sp, fn); err != nil {
			return 0, err
		}
	}
	return p.stored, nil
}

// streamLevelSpan computes the chunks of level k in sp, in C order, and
// hands each to fn.
func (p *Pyramid) streamLevelSpan(ctx context.Context, workers, k int, sp Span, fn ChunkFunc) error {
	l := &p.meta.Levels[k]
	grid := l.Grid()
	lo, end := make([]int, len(grid)), append([]int(nil), grid...)
	lo[sp.Axis], end[sp.Axis] = p.SpanChunks(k, sp)
	if lo[sp.Axis] >= end[sp.Axis] {
		return nil
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	idx := append([]int(nil), lo...)
	for gctx.Err() == nil {
		i := append([]int(nil), idx...)
		g.Go(func() error {
			buf := make([]byte, l.ChunkBytes(p.meta.DType))
			if err := p.ReadChunk(gctx, k, i, buf); err != nil {
				return err
			}
			return fn(k, i, buf, func() {})
		})
		if !nd.NextIn(idx, lo, end) {
			break
		}
	}
	return g.Wait()
}

// spanStages limits the stages of a cascade pass to the levels and the
// planes of sp: along Z, each stage receives only the planes of the level
// below that sp covers, and numbers its chunks from sp's first.
func (p *Pyramid) spanStages(stages []*stage, sp *Span) []*stage {
	stages = stages[:max(0, min(len(stages), sp.Upto-p.stored+1))]
	za := p.meta.AxisIndex('Z')
	if sp.Axis != za {
		return stages
	}
	for _, st := range stages {
		fb := p.Factor(st.k-1, za)
		st.zin = min(st.zinTotal, sp.From/fb)
		st.zinTotal = min(st.zinTotal, (sp.To+fb-1)/fb)
		st.slabZ, _ = p.SpanChunks(st.k, *sp)
	}
	return stages
}
