package zarr

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	"vastview/base/nd"
	"vastview/loader"
	"vastview/loader/zarr/store"
)

// missing is the set of read units found absent although the next
// coarser level holds data over them: the data was there when the levels
// were made, so the unit was lost (deleted, never uploaded), not left out
// for holding only the fill value as Zarr writers do. Keys are
// "level/i,j,k".
type missing struct {
	mu   sync.Mutex
	keys map[string]struct{}
}

// add counts the unit at idx of level.
func (m *missing) add(level int, idx []int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.keys == nil {
		m.keys = map[string]struct{}{}
	}
	m.keys[fmt.Sprint(level, "/", idx)] = struct{}{}
}

// maxScan bounds the units of a level ScanMissing looks for.
const maxScan = 1 << 16

// ScanMissing looks for missing units (see checkMissing) in a store in a
// local folder: every unit of each level but the last that the folder
// does not hold, over which the next level holds data. Levels of more
// than 65536 units, sharded levels and stores over HTTP are not looked
// at. It returns how many it found (see MissingChunks). It is safe for
// concurrent use.
func (s *Source) ScanMissing(ctx context.Context) (int, error) {
	folder, ok := s.st.(*store.Folder)
	if !ok {
		return 0, nil
	}
	found := 0
	for k := 0; k+1 < len(s.levels); k++ {
		a := s.levels[k]
		grid := s.meta.Levels[k].Grid()
		if a.shard != nil || nd.Product(grid) > maxScan {
			continue
		}
		for idx := make([]int, len(grid)); ; {
			has, err := folder.Has(ctx, a.keys.key(a.dir, idx))
			if err != nil {
				return found, err
			}
			if !has && s.coarserHasData(ctx, k, idx) {
				s.lost.add(k, idx)
				found++
			}
			if !nd.Next(idx, grid) {
				break
			}
		}
	}
	return found, ctx.Err()
}

// MissingChunks reports how many distinct chunks reads of s found absent
// where the next coarser level holds data (see loader.MissingCounter).
// It is safe for concurrent use.
func (s *Source) MissingChunks() int {
	s.lost.mu.Lock()
	defer s.lost.mu.Unlock()
	return len(s.lost.keys)
}

// checkMissing is called for a unit at idx of level that the store does
// not hold (err matches loader.ErrNotStored): if the next coarser level's
// samples over the unit are not all its fill value, the unit is counted
// and err is returned matching loader.ErrMissing as well.
func (s *Source) checkMissing(ctx context.Context, level int, idx []int, err error) error {
	if level+1 >= len(s.levels) || !s.coarserHasData(ctx, level, idx) {
		return err
	}
	s.lost.add(level, idx)
	return fmt.Errorf("%w (%w: the level above holds data there)", err, loader.ErrMissing)
}

// coarserHasData reports whether level+1 holds a sample other than its
// fill value over the unit at idx of level. Units of level+1 that cannot
// be read, or are absent themselves, say nothing.
func (s *Source) coarserHasData(ctx context.Context, level int, idx []int) bool {
	fine, coarse := &s.meta.Levels[level], &s.meta.Levels[level+1]
	n := len(idx)
	es := s.meta.DType.Size()
	fill := s.levels[level+1].fill
	if len(coarse.Shape) != n || len(fill) != es {
		return false
	}
	// The level+1 samples made from this unit's samples alone (one that
	// also averages a neighbouring unit's says nothing of this one).
	lo, hi := make([]int, n), make([]int, n)
	for i := range n {
		f := max(1, (fine.Shape[i]+coarse.Shape[i]-1)/coarse.Shape[i])
		a := idx[i] * fine.Chunk[i]
		b := min(a+fine.Chunk[i], fine.Shape[i])
		lo[i], hi[i] = (a+f-1)/f, b/f
		if b == fine.Shape[i] { // the partial edge sample is this unit's
			hi[i] = (b + f - 1) / f
		}
		hi[i] = min(hi[i], coarse.Shape[i])
		if lo[i] >= hi[i] {
			return false
		}
	}
	buf := make([]byte, coarse.ChunkBytes(s.meta.DType))
	c0, c1 := make([]int, n), make([]int, n)
	for i := range n {
		c0[i], c1[i] = lo[i]/coarse.Chunk[i], (hi[i]-1)/coarse.Chunk[i]+1
	}
	for c := append([]int(nil), c0...); ; {
		if ctx.Err() != nil {
			return false
		}
		if s.read(ctx, level+1, c, buf) == nil {
			// The part of the coarser unit inside the box.
			off, box := make([]int, n), make([]int, n)
			for i := range n {
				u0 := c[i] * coarse.Chunk[i]
				off[i] = max(lo[i], u0) - u0
				box[i] = min(hi[i], u0+coarse.Chunk[i]) - u0 - off[i]
			}
			part := make([]byte, nd.Product(box)*es)
			nd.CopyBox(part, box, make([]int, n), buf, coarse.Chunk, off, box, es)
			for p := 0; p+es <= len(part); p += es {
				if !bytes.Equal(part[p:p+es], fill) {
					return true
				}
			}
		}
		if !nd.NextIn(c, c0, c1) {
			return false
		}
	}
}
