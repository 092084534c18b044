package loader

import (
	"context"
	"fmt"
	"slices"

	"vastview/base/nd"
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
	total := int64(m.DType.Size())
	for _, s := range m.Levels[level].Shape {
		total *= int64(s)
	}
	if total > maxBytes {
		return nil, fmt.Errorf("level %d holds %d bytes, more than %d", level, total, maxBytes)
	}
	out := make([]byte, total)
	if err := ReadLevel(ctx, src, level, out); err != nil {
		return nil, err
	}
	return out, nil
}

// ReadLevel reads a whole stored level into dst, which holds the level's
// samples in C order over the axes. Chunks the source does not hold yet
// (ErrNotStored) read as the fill value.
func ReadLevel(ctx context.Context, src Source, level int, dst []byte) error {
	m := src.Meta()
	if level < 0 || level >= len(m.Levels) {
		return fmt.Errorf("no level %d", level)
	}
	l := &m.Levels[level]
	es := m.DType.Size()
	if want := nd.Product(l.Shape) * es; len(dst) != want {
		return fmt.Errorf("buffer of %d bytes for a level of %d", len(dst), want)
	}
	n := len(l.Shape)
	idx := make([]int, n)
	if slices.Equal(l.Chunk, l.Shape) {
		return ignoreNotStored(src.ReadChunk(ctx, level, idx, dst))
	}
	chunk := make([]byte, l.ChunkBytes(m.DType))
	grid := l.Grid()
	start, ext, zero := make([]int, n), make([]int, n), make([]int, n)
	for {
		if err := ignoreNotStored(src.ReadChunk(ctx, level, idx, chunk)); err != nil {
			return err
		}
		for i := range ext {
			start[i] = idx[i] * l.Chunk[i]
			ext[i] = min(l.Chunk[i], l.Shape[i]-start[i])
		}
		nd.CopyBox(dst, l.Shape, start, chunk, l.Chunk, zero, ext, es)
		if !nd.Next(idx, grid) {
			return nil
		}
	}
}

func ignoreNotStored(err error) error {
	if IsNotStored(err) {
		return nil
	}
	return err
}
