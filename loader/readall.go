package loader

import (
	"context"
	"fmt"
)

// ReadAll reads a whole stored level into one buffer in C order over the
// axes (little-endian samples). It refuses arrays over maxBytes. It is meant
// for small arrays and tests; viewers read chunks. Chunks the source does
// not hold yet (ErrNotStored) read as the fill value.
func ReadAll(ctx context.Context, src Source, level int, maxBytes int64) ([]byte, error) {
	m := src.Meta()
	if level < 0 || level >= len(m.Levels) {
		return nil, fmt.Errorf("no level %d", level)
	}
	l := &m.Levels[level]
	es := m.DType.Size()
	total := int64(es)
	for _, s := range l.Shape {
		total *= int64(s)
	}
	if total > maxBytes {
		return nil, fmt.Errorf("level %d holds %d bytes, more than %d", level, total, maxBytes)
	}
	out := make([]byte, total)
	chunk := make([]byte, l.ChunkBytes(m.DType))
	grid := l.Grid()
	n := len(grid)
	idx := make([]int, n)
	// Strides in samples of the full array and of a chunk.
	astr := make([]int, n)
	cstr := make([]int, n)
	astr[n-1], cstr[n-1] = 1, 1
	for i := n - 2; i >= 0; i-- {
		astr[i] = astr[i+1] * l.Shape[i+1]
		cstr[i] = cstr[i+1] * l.Chunk[i+1]
	}
	for {
		if err := src.ReadChunk(ctx, level, idx, chunk); err != nil && !IsNotStored(err) {
			return nil, err
		}
		// Copy the chunk's valid part row by row (rows along the last axis).
		ext := make([]int, n)
		for i := range ext {
			ext[i] = min(l.Chunk[i], l.Shape[i]-idx[i]*l.Chunk[i])
		}
		pos := make([]int, n) // position inside the chunk, last axis always 0
		for {
			ao, co := 0, 0
			for i := 0; i < n; i++ {
				ao += (idx[i]*l.Chunk[i] + pos[i]) * astr[i]
				co += pos[i] * cstr[i]
			}
			copy(out[ao*es:(ao+ext[n-1])*es], chunk[co*es:(co+ext[n-1])*es])
			i := n - 2
			for ; i >= 0; i-- {
				pos[i]++
				if pos[i] < ext[i] {
					break
				}
				pos[i] = 0
			}
			if i < 0 {
				break
			}
		}
		if !NextIndex(idx, grid) {
			return out, nil
		}
	}
}

// NextIndex advances idx to the next position of a C-order walk over
// grid (the last axis fastest) and reports false after the last one.
func NextIndex(idx, grid []int) bool {
	for i := len(idx) - 1; i >= 0; i-- {
		idx[i]++
		if idx[i] < grid[i] {
			return true
		}
		idx[i] = 0
	}
	return false
}
