package levels

import (
	"context"

	"golang.org/x/sync/errgroup"

	"vastview/downsample"
)

// planeStored reports whether level k is computed straight from a stored
// level whose chunks are whole Y-X planes, the layout of TIFF pages, video
// frames and raw volumes. Such a level is built by streaming the planes
// once, in order, without the chunk cache.
func (p *Pyramid) planeStored(k int) bool {
	if k != p.stored || k == 0 {
		return false
	}
	below := &p.meta.Levels[k-1]
	for i, a := range p.meta.Axes {
		plane := a == 'Y' || a == 'X'
		if plane && below.Chunk[i] != below.Shape[i] || !plane && below.Chunk[i] != 1 {
			return false
		}
	}
	return true
}

// slabBuffers are one worker's planes of the level below, its slab of the
// level being built, and a chunk buffer reused when chunks go to disk.
type slabBuffers struct{ pair, slab, chunk []byte }

// buildFromPlanes builds level k, a slab of chunks at a time: a slab is
// every chunk that shares its non-Y-X index. For each plane of the slab
// it reads the one or two planes below into one buffer, reduces them, and
// finally cuts the slab into chunks.
func (p *Pyramid) buildFromPlanes(ctx context.Context, k, workers int) error {
	l := &p.meta.Levels[k]
	n := len(p.meta.Axes)
	ya, xa := n-2, n-1
	grid := l.Grid()
	lo, hi := make([]int, n), make([]int, n)
	for i := 0; i < n-2; i++ {
		hi[i] = grid[i] - 1
	}
	bufs := make(chan *slabBuffers, workers)
	for range workers {
		bufs <- &slabBuffers{}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	outer := make([]int, n)
	for {
		oidx := append([]int(nil), outer...)
		if p.slabOnDisk(k, oidx, grid[ya], grid[xa]) {
			p.prog.done[k].Add(int64(grid[ya] * grid[xa]))
		} else {
			g.Go(func() error {
				b := <-bufs
				defer func() { bufs <- b }()
				return p.buildSlab(gctx, k, oidx, b)
			})
		}
		if !nextIdx(outer, lo, hi) || gctx.Err() != nil {
			break
		}
	}
	return g.Wait()
}

func (p *Pyramid) slabOnDisk(k int, oidx []int, gy, gx int) bool {
	if p.disk == nil {
		return false
	}
	n := len(oidx)
	idx := append([]int(nil), oidx...)
	for y := 0; y < gy; y++ {
		for x := 0; x < gx; x++ {
			idx[n-2], idx[n-1] = y, x
			if !p.disk.has(k, idx) {
				return false
			}
		}
	}
	return true
}

// buildSlab computes and stores the chunks of level k whose non-Y-X index
// is oidx.
func (p *Pyramid) buildSlab(ctx context.Context, k int, oidx []int, b *slabBuffers) error {
	l, below := &p.meta.Levels[k], &p.meta.Levels[k-1]
	red := p.reduce[k-1]
	n := len(oidx)
	za := p.meta.AxisIndex('Z')
	es := p.meta.DType.Size()
	// The slab's planes at level k.
	slabShape := make([]int, n)
	for i := range slabShape {
		slabShape[i] = 1
	}
	slabShape[n-2], slabShape[n-1] = l.Shape[n-2], l.Shape[n-1]
	z0 := 0
	if za >= 0 {
		z0 = oidx[za] * l.Chunk[za]
		slabShape[za] = min(l.Chunk[za], l.Shape[za]-z0)
	}
	outPlane := l.Shape[n-2] * l.Shape[n-1] * es
	inPlane := below.Shape[n-2] * below.Shape[n-1] * es
	b.slab = grow(b.slab, product(slabShape)*es)
	b.pair = grow(b.pair, 2*inPlane)
	planes := 1
	if za >= 0 {
		planes = slabShape[za]
	}
	for q := 0; q < planes; q++ {
		// The planes below that make plane z0+q of level k.
		zb, nb := z0+q, 1
		if za >= 0 && red[za] {
			zb, nb = 2*(z0+q), min(2, below.Shape[za]-2*(z0+q))
		}
		idx := append([]int(nil), oidx...)
		idx[n-2], idx[n-1] = 0, 0
		for r := 0; r < nb; r++ {
			if za >= 0 {
				idx[za] = zb + r
			}
			if err := p.ReadChunk(ctx, k-1, idx, b.pair[r*inPlane:(r+1)*inPlane]); err != nil {
				return err
			}
		}
		shape := make([]int, n)
		for i := range shape {
			shape[i] = 1
		}
		shape[n-2], shape[n-1] = below.Shape[n-2], below.Shape[n-1]
		if za >= 0 {
			shape[za] = nb
		}
		dst, src := b.slab[q*outPlane:(q+1)*outPlane], b.pair[:nb*inPlane]
		var err error
		if p.mode {
			err = downsample.Mode(p.meta.DType, dst, src, shape, red)
		} else {
			err = downsample.Mean(p.meta.DType, dst, src, shape, red)
		}
		if err != nil {
			return err
		}
	}
	return p.cutSlab(k, oidx, slabShape, b.slab[:product(slabShape)*es], b)
}

// cutSlab splits a slab of level k into its chunks and stores each. With a
// disk cache the chunks go only to disk, through one reused buffer: filling
// fresh memory costs more than the rest of the build, and the levels above
// read them back from the page cache.
func (p *Pyramid) cutSlab(k int, oidx, slabShape []int, slab []byte, b *slabBuffers) error {
	l := &p.meta.Levels[k]
	n := len(oidx)
	es := p.meta.DType.Size()
	grid := l.Grid()
	idx := append([]int(nil), oidx...)
	zero := make([]int, n)
	for y := 0; y < grid[n-2]; y++ {
		for x := 0; x < grid[n-1]; x++ {
			idx[n-2], idx[n-1] = y, x
			if p.disk != nil && p.disk.has(k, idx) {
				p.prog.done[k].Add(1) // finished by an earlier, interrupted build
				continue
			}
			var chunk []byte
			if p.disk != nil {
				b.chunk = grow(b.chunk, l.ChunkBytes(p.meta.DType))
				chunk = b.chunk
				clear(chunk)
			} else {
				chunk = make([]byte, l.ChunkBytes(p.meta.DType))
			}
			off, box := make([]int, n), append([]int(nil), slabShape...)
			off[n-2], off[n-1] = y*l.Chunk[n-2], x*l.Chunk[n-1]
			box[n-2] = min(l.Chunk[n-2], l.Shape[n-2]-off[n-2])
			box[n-1] = min(l.Chunk[n-1], l.Shape[n-1]-off[n-1])
			copyBox(chunk, l.Chunk, zero, slab, slabShape, off, box, es)
			if err := p.store(k, idx, chunk); err != nil {
				return err
			}
		}
	}
	return nil
}

// store keeps a computed chunk on disk, or else in the cache, and
// announces it.
func (p *Pyramid) store(k int, idx []int, chunk []byte) error {
	if p.disk != nil {
		if err := p.disk.put(k, idx, chunk); err != nil {
			return err
		}
	} else {
		p.cache.put(Key{k, IdxKey(idx)}, chunk, classComputed)
	}
	p.compute.Add(1)
	p.prog.done[k].Add(1)
	p.subs.notify(Arrival{Level: k, Idx: append([]int(nil), idx...)})
	return nil
}

func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}
