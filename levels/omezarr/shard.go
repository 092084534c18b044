package omezarr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"strings"
	"sync"

	"vastview/base/nd"
)

// Zarr v3 sharding (the sharding_indexed codec): each stored object, a
// shard, holds a grid of inner chunks (the level's chunks), each encoded
// as an unsharded chunk is, one after the other, followed by the index:
// per inner chunk in C order its offset and length in the shard (two
// little-endian uint64; both all ones for a chunk not stored), then the
// CRC-32C of the index.

// DefaultShardBytes is the size, before compression, that a shard of
// automatic size grows to at most: 10 TB of samples make about 40,000
// shards.
const DefaultShardBytes = 256 << 20

// emptySlot marks an inner chunk that is not stored.
const emptySlot = math.MaxUint64

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// shardShapes returns the shard shape of every level (source axis order)
// for the shard given per Z, Y, X axis in samples (0: automatic), or nil
// without sharding. Along other axes a shard is one chunk; along Z, Y and
// X it is a whole number of chunks, no more than the level needs. An
// automatic axis doubles, Z, Y, X in turn, while the shard stays within
// DefaultShardBytes.
func shardShapes(lay *layout, shard []int) [][]int {
	if shard == nil {
		return nil
	}
	var out [][]int
	for _, l := range lay.src {
		s := append([]int(nil), l.Chunk...)
		var auto []int
		for i := range s {
			full := (l.Shape[i] + l.Chunk[i] - 1) / l.Chunk[i] * l.Chunk[i]
			j := strings.IndexByte("ZYX", srcAxis(lay, i))
			if j < 0 {
				continue
			}
			if g := shard[j]; g > 0 {
				s[i] = min(full, max(1, (g+l.Chunk[i]-1)/l.Chunk[i])*l.Chunk[i])
			} else {
				auto = append(auto, i)
			}
		}
		es := int64(lay.dtype.Size())
		for grew := true; grew; {
			grew = false
			for _, i := range auto {
				full := (l.Shape[i] + l.Chunk[i] - 1) / l.Chunk[i] * l.Chunk[i]
				if s[i] >= full || int64(nd.Product(s))*es*2 > DefaultShardBytes {
					continue
				}
				s[i] = min(full, 2*s[i])
				grew = true
			}
		}
		out = append(out, s)
	}
	return out
}

// srcAxis is the letter of source axis i.
func srcAxis(lay *layout, i int) byte {
	for j, k := range lay.perm {
		if k == i {
			return lay.axes[j]
		}
	}
	return 0
}

// shardSet gathers the encoded inner chunks of the shards being written
// and hands each shard on once all its chunks are there. Safe for
// concurrent use.
type shardSet struct {
	mu   sync.Mutex
	open map[string]*shardBuf
}

// shardBuf is one shard being gathered.
type shardBuf struct {
	chunks [][]byte // per inner slot; nil: not stored
	left   int      // inner chunks not yet given
}

// per returns the inner chunks per shard of level k (source order).
func (w *chunkWriter) per(k int) []int {
	s, c := w.shards[k], w.lay.src[k].Chunk
	p := make([]int, len(s))
	for i := range s {
		p[i] = s[i] / c[i]
	}
	return p
}

// unitOf returns the shard (source grid index) holding chunk idx of level
// k and the chunk's slot in it, C order over the shard's written axes.
func (w *chunkWriter) unitOf(k int, idx []int) (shard []int, slot int) {
	per := w.per(k)
	shard = make([]int, len(idx))
	for i := range idx {
		shard[i] = idx[i] / per[i]
	}
	for _, i := range w.lay.perm {
		slot = slot*per[i] + idx[i]%per[i]
	}
	return shard, slot
}

// shardChunks is the number of chunks of level k inside the shard.
func (w *chunkWriter) shardChunks(k int, shard []int) int {
	per, grid := w.per(k), w.lay.src[k].Grid()
	n := 1
	for i := range shard {
		n *= min(per[i], grid[i]-shard[i]*per[i])
	}
	return n
}

// addInner gives the encoded chunk idx of level k (nil when it is not
// stored) to its shard, and writes the shard when it is complete.
func (w *chunkWriter) addInner(k int, idx []int, enc []byte) error {
	shard, slot := w.unitOf(k, idx)
	key := chunkKey(3, k, permute(shard, w.lay.perm))
	w.sh.mu.Lock()
	if w.sh.open == nil {
		w.sh.open = map[string]*shardBuf{}
	}
	b := w.sh.open[key]
	if b == nil {
		per := w.per(k)
		b = &shardBuf{chunks: make([][]byte, nd.Product(per)), left: w.shardChunks(k, shard)}
		w.sh.open[key] = b
	}
	b.chunks[slot] = enc
	b.left--
	done := b.left == 0
	if done {
		delete(w.sh.open, key)
	}
	w.sh.mu.Unlock()
	if !done {
		return nil
	}
	stored := false
	for _, c := range b.chunks {
		stored = stored || c != nil
	}
	if !stored {
		return w.removeStale(key)
	}
	w.mark(k, shard)
	return w.writeFile(key, assembleShard(b.chunks))
}

// assembleShard lays out the chunks of a shard followed by its index.
func assembleShard(chunks [][]byte) []byte {
	n := 0
	for _, c := range chunks {
		n += len(c)
	}
	out := make([]byte, 0, n+16*len(chunks)+4)
	index := make([]byte, 16*len(chunks))
	for i, c := range chunks {
		off, size := uint64(emptySlot), uint64(emptySlot)
		if c != nil {
			off, size = uint64(len(out)), uint64(len(c))
			out = append(out, c...)
		}
		binary.LittleEndian.PutUint64(index[16*i:], off)
		binary.LittleEndian.PutUint64(index[16*i+8:], size)
	}
	out = append(out, index...)
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(index, castagnoli))
}

// readInner reads the inner chunk slot of the shard f of size bytes
// holding count chunks; nil when it is not stored.
func readInner(f io.ReaderAt, size int64, slot, count int) ([]byte, error) {
	ib := int64(16*count + 4)
	if size < ib {
		return nil, fmt.Errorf("shard of %d bytes is shorter than its index", size)
	}
	index := make([]byte, ib)
	if _, err := f.ReadAt(index, size-ib); err != nil {
		return nil, err
	}
	if crc32.Checksum(index[:ib-4], castagnoli) != binary.LittleEndian.Uint32(index[ib-4:]) {
		return nil, fmt.Errorf("shard index checksum does not match")
	}
	off := binary.LittleEndian.Uint64(index[16*slot:])
	n := binary.LittleEndian.Uint64(index[16*slot+8:])
	if off == emptySlot && n == emptySlot {
		return nil, nil
	}
	if off > uint64(size-ib) || n > uint64(size-ib)-off {
		return nil, fmt.Errorf("shard index entry %d lies outside the shard", slot)
	}
	b := make([]byte, n)
	if _, err := f.ReadAt(b, int64(off)); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b, nil
}

// unitShape is the shape of level k's objects (source order): its shard
// or its chunk.
func (w *chunkWriter) unitShape(k int) []int {
	if w.shards != nil && w.shards[k] != nil {
		return w.shards[k]
	}
	return w.lay.src[k].Chunk
}

// chunkBox is the box of chunks of level k that the box [lo, end) of its
// objects (shards or chunks) covers.
func (w *chunkWriter) chunkBox(k int, lo, end []int) (clo, cend []int) {
	u, c, grid := w.unitShape(k), w.lay.src[k].Chunk, w.lay.src[k].Grid()
	clo, cend = make([]int, len(lo)), make([]int, len(lo))
	for i := range lo {
		per := u[i] / c[i]
		clo[i], cend[i] = lo[i]*per, min(grid[i], end[i]*per)
	}
	return clo, cend
}

// eachChunk calls fn with every chunk of level k inside the box [lo, end)
// of its objects, object after object (so that a shard is complete before
// the next begins), until fn returns false.
func (w *chunkWriter) eachChunk(k int, lo, end []int, fn func(idx []int) bool) {
	for i := range lo {
		if lo[i] >= end[i] {
			return
		}
	}
	u, c, grid := w.unitShape(k), w.lay.src[k].Chunk, w.lay.src[k].Grid()
	n := len(lo)
	unit := append([]int(nil), lo...)
	for {
		ilo, iend := make([]int, n), make([]int, n)
		for i := range unit {
			per := u[i] / c[i]
			ilo[i], iend[i] = unit[i]*per, min(grid[i], (unit[i]+1)*per)
		}
		idx := append([]int(nil), ilo...)
		for {
			if !fn(idx) {
				return
			}
			if !nd.NextIn(idx, ilo, iend) {
				break
			}
		}
		if !nd.NextIn(unit, lo, end) {
			return
		}
	}
}

// unitGrid is the number of objects of level k along each axis.
func (w *chunkWriter) unitGrid(k int) []int {
	u, l := w.unitShape(k), w.lay.src[k]
	g := make([]int, len(u))
	for i := range u {
		g[i] = (l.Shape[i] + u[i] - 1) / u[i]
	}
	return g
}
