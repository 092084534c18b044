package levels

import (
	"context"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"vastview/base/nd"
	"vastview/loader"
)

// LevelProgress counts the chunks of one computed level.
type LevelProgress struct {
	Level       int
	Done, Total int64
}

// progress holds the counters Build updates; safe for concurrent use.
type progress struct {
	done  []atomic.Int64
	total []int64
}

// buildFrom returns the first level Build computes: the finest computed
// level from which all coarser levels together hold at most budget bytes
// (0: no bound). len(m.Levels) means none.
func buildFrom(m *loader.Meta, stored int, budget int64) int {
	if budget <= 0 {
		return stored
	}
	k, sum := len(m.Levels), int64(0)
	for k > stored {
		l := &m.Levels[k-1]
		sum += int64(nd.Product(l.Grid())) * int64(l.ChunkBytes(m.DType))
		if sum > budget {
			break
		}
		k--
	}
	return k
}

func (p *Pyramid) initProgress() {
	n := len(p.meta.Levels)
	p.prog.done = make([]atomic.Int64, n)
	p.prog.total = make([]int64, n)
	for k := p.built; k < n; k++ {
		p.prog.total[k] = int64(nd.Product(p.meta.Levels[k].Grid()))
	}
}

// Progress reports, for each computed level, how many of its chunks are
// built. It is safe for concurrent use.
func (p *Pyramid) Progress() []LevelProgress {
	var out []LevelProgress
	for k := p.built; k < len(p.meta.Levels); k++ {
		out = append(out, LevelProgress{Level: k, Done: p.prog.done[k].Load(), Total: p.prog.total[k]})
	}
	return out
}

// Build computes every level the source does not store, from BuiltFrom on
// (the finer ones are computed where they are viewed). Over whole-plane
// chunks it streams the planes once through every level (see cascade.go);
// otherwise it goes level by level, each in C order of its chunks (so that
// the chunks of the level below are reused while cached), with the given
// number of workers. Chunks already in the disk cache are counted and
// kept. It returns when every chunk is built, or ctx ends, or a chunk
// fails, or the pyramid is closed (Close stops it and waits).
func (p *Pyramid) Build(ctx context.Context, workers int) error {
	ctx, done, ok := p.startFlight(forBuild(ForBackground(ctx)))
	if !ok {
		return errClosed
	}
	defer done()
	err := p.build(ctx, workers)
	if err == nil {
		p.buildDone.Store(true)
	}
	return err
}

func (p *Pyramid) build(ctx context.Context, workers int) error {
	if p.allOnDisk() {
		return nil
	}
	if p.cascadeOK() {
		// A source still being written (chunks not stored yet) goes level
		// by level instead, which keeps placeholders out of the disk cache.
		if err := p.buildCascade(ctx, max(1, workers), nil, nil); !loader.IsNotStored(err) {
			return err
		}
		for k := range p.prog.done {
			p.prog.done[k].Store(0) // counted again below
		}
	}
	for k := p.built; k < len(p.meta.Levels); k++ {
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(max(1, workers))
		grid := p.meta.Levels[k].Grid()
		idx := make([]int, len(grid))
		for {
			chunk := append([]int(nil), idx...)
			if gctx.Err() != nil {
				break
			}
			if d := p.disk.Load(); d != nil && d.has(k, chunk) {
				p.prog.done[k].Add(1)
			} else if p.paused(gctx) == nil {
				g.Go(func() error {
					if _, err := p.load(gctx, k, chunk); err != nil {
						return err
					}
					p.prog.done[k].Add(1)
					return nil
				})
			}
			if !nd.Next(idx, grid) {
				break
			}
		}
		if err := g.Wait(); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// allOnDisk reports whether the disk cache holds every computed chunk, and
// if so counts them all as built.
func (p *Pyramid) allOnDisk() bool {
	d := p.disk.Load()
	if d == nil {
		return false
	}
	for k := p.built; k < len(p.meta.Levels); k++ {
		grid := p.meta.Levels[k].Grid()
		for idx := make([]int, len(grid)); ; {
			if !d.has(k, idx) {
				return false
			}
			if !nd.Next(idx, grid) {
				break
			}
		}
	}
	for k := p.built; k < len(p.meta.Levels); k++ {
		p.prog.done[k].Store(p.prog.total[k])
	}
	return true
}
