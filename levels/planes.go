package levels

import (
	"bytes"
	"vastview/base/nd"
	"vastview/loader"
)

// planeStored reports whether level k is computed straight from a stored
// level whose chunks are whole Y-X planes, the layout of TIFF pages, video
// frames and raw volumes.
func (p *Pyramid) planeStored(k int) bool { return planeStored(p.meta, p.stored, k) }

// planeStored reports it for the levels of m, of which the first stored
// are the source's.
func planeStored(m *loader.Meta, stored, k int) bool {
	if k != stored || k == 0 {
		return false
	}
	below := &m.Levels[k-1]
	for i, a := range m.Axes {
		plane := a == 'Y' || a == 'X'
		if plane && below.Chunk[i] != below.Shape[i] || !plane && below.Chunk[i] != 1 {
			return false
		}
	}
	return true
}

// slabBuffers hold a chunk buffer reused when chunks go to disk.
type slabBuffers struct{ chunk []byte }

// cutSlab splits a slab of level k into its chunks and stores each. With a
// disk cache the chunks go only to disk, through one reused buffer: filling
// fresh memory costs more than the rest of the build, and the levels above
// read them back from the page cache.
// With a sink, each chunk goes to it alone, in a buffer of its own.
func (p *Pyramid) cutSlab(k int, oidx, slabShape []int, slab []byte, b *slabBuffers, sink ChunkFunc) error {
	l := &p.meta.Levels[k]
	n := len(oidx)
	es := p.meta.DType.Size()
	grid := l.Grid()
	idx := append([]int(nil), oidx...)
	for y := 0; y < grid[n-2]; y++ {
		for x := 0; x < grid[n-1]; x++ {
			idx[n-2], idx[n-1] = y, x
			if sink != nil {
				buf := getBuf(l.ChunkBytes(p.meta.DType))
				cutChunk(*buf, l, slab, slabShape, y, x, es)
				p.prog.done[k].Add(1)
				if err := sink(k, append([]int(nil), idx...), *buf, func() { putBuf(buf) }); err != nil {
					return err
				}
				continue
			}
			if d := p.disk.Load(); d != nil && d.has(k, idx) {
				p.prog.done[k].Add(1) // finished by an earlier, interrupted build
				continue
			}
			var chunk []byte
			reused := p.disk.Load() != nil
			if reused {
				b.chunk = grow(b.chunk, l.ChunkBytes(p.meta.DType))
				chunk = b.chunk
			} else {
				chunk = make([]byte, l.ChunkBytes(p.meta.DType))
			}
			cutChunk(chunk, l, slab, slabShape, y, x, es)
			if err := p.store(k, idx, chunk, reused); err != nil {
				return err
			}
		}
	}
	return nil
}

// cutChunk copies the chunk at Y-X grid position (y, x) of level l out of
// a slab of its planes into chunk, zero beyond the level's edges.
func cutChunk(chunk []byte, l *loader.Level, slab []byte, slabShape []int, y, x, es int) {
	n := len(slabShape)
	off, box := make([]int, n), append([]int(nil), slabShape...)
	off[n-2], off[n-1] = y*l.Chunk[n-2], x*l.Chunk[n-1]
	box[n-2] = min(l.Chunk[n-2], l.Shape[n-2]-off[n-2])
	box[n-1] = min(l.Chunk[n-1], l.Shape[n-1]-off[n-1])
	if nd.Product(box) < nd.Product(l.Chunk) {
		clear(chunk)
	}
	nd.CopyBox(chunk, l.Chunk, make([]int, n), slab, slabShape, off, box, es)
}

// store keeps a computed chunk on disk, or else in the cache, and
// announces it.
func (p *Pyramid) store(k int, idx []int, chunk []byte, reused bool) error {
	if !p.putDisk(k, idx, chunk) {
		// Without a disk cache the chunk buffer is the cache's own; with
		// one that just failed, it is reused for the next chunk.
		if reused {
			chunk = bytes.Clone(chunk)
		}
		p.cache.put(Key{Level: k, Idx: IdxKey(idx)}, chunk, classComputed, false)
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
