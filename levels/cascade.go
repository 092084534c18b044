package levels

import (
	"context"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"vastview/base/nd"
	"vastview/downsample"
	"vastview/loader"
)

// A cascade builds every computed level in one pass over the planes of a
// stored level whose chunks are whole Y-X planes (TIFF pages, video frames,
// raw volumes). A reader goroutine reads the planes in order, one or two at
// a time, straight into a pair buffer; each level reduces the pair it was
// given into one plane of its own, which it keeps in its slab (cut into
// chunks when the slab is full) and hands on to the next level's pair. The
// stored level is read once and no computed level is read back.

// stage is one computed level of a cascade.
type stage struct {
	k        int
	red      []bool
	zr       bool // Z is halved from level k-1 to k
	inShape  []int
	inPlane  int // bytes of one plane of level k-1
	outPlane int
	pair     []byte // up to two planes of level k-1 (without Z halved, the one in the slab below)
	have     int    // planes in pair
	zin      int    // planes of level k-1 received
	zinTotal int    // planes of level k-1 in all
	slab     []byte // planes of level k, cut into chunks when full
	slabZ    int    // slab's chunk index along Z
	nslab    int    // planes in slab
	slabLen  int    // planes per slab (the chunk's Z length)
	cut      slabBuffers
	sink     ChunkFunc // set when streaming: every chunk goes to it
}

// pairBuf carries planes from the reader to the first stage.
type pairBuf struct {
	b   []byte
	n   int // planes in b
	ref *bufRef
}

// A bufRef returns a pair buffer to the reader once the first stage and
// every sink holding one of its planes are done with it.
type bufRef struct {
	n    atomic.Int32
	b    []byte
	free chan<- []byte
}

func (r *bufRef) release() {
	if r.n.Add(-1) == 0 {
		r.free <- r.b
	}
}

// cascadeOK reports whether every computed level can be built in one pass.
func (p *Pyramid) cascadeOK() bool {
	return p.stored < len(p.meta.Levels) && p.planeStored(p.stored)
}

// buildCascade builds every computed level; each combination of the axes
// other than Z, Y and X (time points, channels) is one independent pass.
// With a sink, every chunk of the last stored level and of every computed
// level goes to it instead of the caches. A span, when not nil, limits the
// pass to its part of the image (see StreamSpan).
func (p *Pyramid) buildCascade(ctx context.Context, workers int, sink ChunkFunc, sp *Span) error {
	base := &p.meta.Levels[p.stored-1]
	n := len(p.meta.Axes)
	za := p.meta.AxisIndex('Z')
	// The outer axes: every axis but Z, Y and X (whose extent stays 1).
	ext := make([]int, n)
	for i := range ext {
		ext[i] = 1
		if i < n-2 && i != za {
			ext[i] = base.Shape[i]
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, workers/2)) // each pass also has a reader
	lo := make([]int, n)
	if sp != nil && sp.Axis != za {
		lo[sp.Axis], ext[sp.Axis] = sp.From, sp.To
	}
	outer := append([]int(nil), lo...)
	for {
		oidx := append([]int(nil), outer...)
		g.Go(func() error { return p.cascadePass(gctx, oidx, sink, workers, sp) })
		if !nd.NextIn(outer, lo, ext) || gctx.Err() != nil {
			break
		}
	}
	return g.Wait()
}

// cascadePass streams the planes of one outer index through every level.
func (p *Pyramid) cascadePass(ctx context.Context, oidx []int, sink ChunkFunc, workers int, sp *Span) error {
	stages := p.newStages(oidx, sink != nil)
	if sp != nil {
		stages = p.spanStages(stages, sp)
	}
	for _, st := range stages {
		st.sink = sink
	}
	p.allocStages(stages)
	first := stages[0]
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Two groups of planes in turn, one read while the other is reduced,
	// unless the planes are so large that the second would not fit in the
	// memory the cache is given: then one, read and reduced in turn. A
	// sink may hold a plane of each group while it writes it, so a stream
	// has a group more per worker, as far as they fit.
	groups := 2
	if sink != nil {
		groups += workers
	}
	free := make(chan []byte, groups)
	free <- make([]byte, 2*first.inPlane)
	for g := 1; g < groups && p.stagesBytes(stages)+int64(2*(g+1)*first.inPlane) <= p.cache.budgetBytes(); g++ {
		free <- make([]byte, 2*first.inPlane)
	}
	full := make(chan pairBuf, 1)
	errc := make(chan error, 1)
	z0 := first.zin
	go func() { errc <- p.readPairs(ctx, oidx, first, z0, full, free) }()
	for pb := range full {
		first.pair, first.have = pb.b, pb.n
		first.zin += pb.n
		if err := p.reduceStage(stages, 0, oidx); err != nil {
			cancel()
			pb.ref.release()
			for pb := range full {
				pb.ref.release()
			}
			<-errc
			return err
		}
		pb.ref.release()
	}
	return <-errc
}

// readPairs reads the stored planes in order, in the groups the first
// computed level reduces together, from plane z0 on, and closes full at the
// end.
func (p *Pyramid) readPairs(ctx context.Context, oidx []int, first *stage, z0 int, full chan<- pairBuf, free chan []byte) error {
	defer close(full)
	n := len(oidx)
	za := p.meta.AxisIndex('Z')
	group := 1
	if first.zr {
		group = 2
	}
	idx := append([]int(nil), oidx...)
	idx[n-2], idx[n-1] = 0, 0
	for z := z0; z < first.zinTotal; z += group {
		var b []byte
		select {
		case b = <-free:
		case <-ctx.Done():
			return ctx.Err()
		}
		if err := p.paused(ctx); err != nil {
			return err
		}
		nb := min(group, first.zinTotal-z)
		ref := &bufRef{b: b, free: free}
		ref.n.Store(1) // the first stage's
		for r := 0; r < nb; r++ {
			if za >= 0 {
				idx[za] = z + r
			}
			plane := b[r*first.inPlane : (r+1)*first.inPlane]
			err := p.ReadChunk(ctx, p.stored-1, idx, plane)
			if first.sink != nil && loader.IsNotStored(err) {
				clear(plane) // written as zeros, as the fill value
				err = nil
			}
			if err != nil {
				return err
			}
			if first.sink != nil {
				ref.n.Add(1)
				if err := first.sink(p.stored-1, append([]int(nil), idx...), plane, ref.release); err != nil {
					return err
				}
			}
		}
		select {
		case full <- pairBuf{b, nb, ref}:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// newStages prepares one stage per computed level, without its buffers;
// with all, every level's chunks are cut, also those Build leaves out.
func (p *Pyramid) newStages(oidx []int, all bool) []*stage {
	n := len(oidx)
	za := p.meta.AxisIndex('Z')
	es := p.meta.DType.Size()
	var stages []*stage
	for k := p.stored; k < len(p.meta.Levels); k++ {
		l, below := &p.meta.Levels[k], &p.meta.Levels[k-1]
		st := &stage{k: k, red: p.reduce[k-1], zinTotal: 1, slabLen: 1}
		st.inShape = make([]int, n)
		for i := range st.inShape {
			st.inShape[i] = 1
		}
		st.inShape[n-2], st.inShape[n-1] = below.Shape[n-2], below.Shape[n-1]
		st.inPlane = below.Shape[n-2] * below.Shape[n-1] * es
		st.outPlane = l.Shape[n-2] * l.Shape[n-1] * es
		if za >= 0 {
			st.zr = st.red[za]
			st.zinTotal = below.Shape[za]
			st.slabLen = l.Chunk[za]
		}
		if k < p.built && !all {
			st.slabLen = 1 // only passed on: its chunks are not kept
		}
		stages = append(stages, st)
	}
	return stages
}

// pairBytes is the pair buffer stage st keeps: none for the first (its
// pairs are the reader's) or without Z halved (it reduces each plane of
// the level below as it comes, where that level keeps it).
func (p *Pyramid) pairBytes(st *stage) int {
	if st.k > p.stored && st.zr {
		return 2 * st.inPlane
	}
	return 0
}

// allocStages gives the stages their buffers.
func (p *Pyramid) allocStages(stages []*stage) {
	for _, st := range stages {
		st.pair = make([]byte, p.pairBytes(st))
		st.slab = make([]byte, st.slabLen*st.outPlane)
	}
}

// stagesBytes is the memory the stages of a pass hold.
func (p *Pyramid) stagesBytes(stages []*stage) int64 {
	var n int64
	for _, st := range stages {
		n += int64(p.pairBytes(st) + st.slabLen*st.outPlane)
	}
	return n
}

// StreamBytes is the least memory the build of the computed levels takes
// when it streams whole planes (one group of stored planes and the planes
// each level holds until its chunks are full), 0 when it goes chunk by
// chunk. A smaller cache budget does not make it less.
func (p *Pyramid) StreamBytes() int64 {
	if !p.cascadeOK() {
		return 0
	}
	stages := p.newStages(make([]int, len(p.meta.Axes)), false)
	return p.stagesBytes(stages) + 2*int64(stages[0].inPlane)
}

// reduceStage reduces the pair of stage i into its next plane, passes the
// plane on, and cuts the slab into chunks when it is full or the level
// ends. Pairs reach a stage with one plane only at the end of a level or
// when Z is not halved.
func (p *Pyramid) reduceStage(stages []*stage, i int, oidx []int) error {
	st := stages[i]
	n := len(oidx)
	za := p.meta.AxisIndex('Z')
	shape := append([]int(nil), st.inShape...)
	if za >= 0 {
		shape[za] = st.have
	}
	out := st.slab[st.nslab*st.outPlane : (st.nslab+1)*st.outPlane]
	src := st.pair[:st.have*st.inPlane]
	var err error
	if p.mode {
		err = downsample.Mode(p.meta.DType, out, src, shape, st.red)
	} else {
		err = downsample.Mean(p.meta.DType, out, src, shape, st.red)
	}
	if err != nil {
		return err
	}
	st.have = 0
	st.nslab++
	last := st.zin == st.zinTotal
	if i+1 < len(stages) {
		next := stages[i+1]
		if next.zr {
			copy(next.pair[next.have*next.inPlane:], out)
		} else {
			next.pair = out
		}
		next.have++
		next.zin++
		if !next.zr || next.have == 2 || next.zin == next.zinTotal {
			if err := p.reduceStage(stages, i+1, oidx); err != nil {
				return err
			}
		}
	}
	if st.k < p.built && st.sink == nil {
		st.nslab = 0
		return nil
	}
	if st.nslab == st.slabLen || last {
		slabShape := make([]int, n)
		for j := range slabShape {
			slabShape[j] = 1
		}
		l := &p.meta.Levels[st.k]
		slabShape[n-2], slabShape[n-1] = l.Shape[n-2], l.Shape[n-1]
		sidx := append([]int(nil), oidx...)
		if za >= 0 {
			slabShape[za] = st.nslab
			sidx[za] = st.slabZ
		}
		if err := p.cutSlab(st.k, sidx, slabShape, st.slab[:st.nslab*st.outPlane], &st.cut, st.sink); err != nil {
			return err
		}
		st.nslab = 0
		st.slabZ++
	}
	return nil
}
