package levels

import (
	"bytes"
	"vastview/internal/nd"
)

// planeStored reports whether level k is computed straight from a stored
// level whose chunks are whole Y-X planes, the layout of TIFF pages, video
// frames and raw volumes.
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

// slabBuffers hold a chunk buffer reused when chunks go to disk.
type slabBuffers struct{ chunk []byte }

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
			if d := p.disk.Load(); d != nil && d.has(k, idx) {
				p.prog.done[k].Add(1) // finished by an earlier, interrupted build
				continue
			}
			var chunk []byte
			reused := p.disk.Load() != nil
			if reused {
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
			nd.CopyBox(chunk, l.Chunk, zero, slab, slabShape, off, box, es)
			if err := p.store(k, idx, chunk, reused); err != nil {
				return err
			}
		}
	}
	return nil
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
