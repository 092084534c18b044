// Package levels turns a Source into a multi-resolution pyramid: level
// geometry, a byte-bounded chunk cache, a priority scheduler, a background
// builder that computes level k+1 from level k, and a disk cache of the
// computed levels.
package levels

import (
	"strings"

	"vastview/loader"
)

// Computed levels use chunks of at most these lengths.
const (
	chunkXY = 256 // along Y and X
	chunkZ  = 4   // along Z: XY views of coarse levels read few planes
)

// planLevels returns the levels of a pyramid over m: the source's own when
// it stores more than one, otherwise level 0 followed by computed levels.
// Level k+1 halves each spatial axis still longer than a computed chunk
// (movies, having no Z, never reduce T); levels stop when none is.
// reduce[k] says which axes level k+1 halves relative to level k.
func planLevels(m *loader.Meta) (lv []loader.Level, reduce [][]bool) {
	if len(m.Levels) > 1 {
		return m.Levels, nil
	}
	base := m.Levels[0]
	lv = []loader.Level{base}
	n := len(m.Axes)
	chunk := make([]int, n)
	for i := range chunk {
		chunk[i] = 1
		switch m.Axes[i] {
		case 'Y', 'X':
			chunk[i] = chunkXY
		case 'Z':
			chunk[i] = chunkZ
		}
	}
	f := make([]float64, n) // cumulative factor per axis
	for i := range f {
		f[i] = 1
	}
	for {
		prev := lv[len(lv)-1]
		red := make([]bool, n)
		any := false
		for i := 0; i < n; i++ {
			if strings.IndexByte("ZYX", m.Axes[i]) >= 0 && prev.Shape[i] > chunk[i] {
				red[i], any = true, true
			}
		}
		if !any {
			return lv, reduce
		}
		next := loader.Level{
			Shape:       make([]int, n),
			Chunk:       make([]int, n),
			Scale:       make([]float64, n),
			Translation: make([]float64, n),
		}
		for i := 0; i < n; i++ {
			next.Shape[i] = prev.Shape[i]
			if red[i] {
				next.Shape[i] = (prev.Shape[i] + 1) / 2
				f[i] *= 2
			}
			next.Chunk[i] = min(chunk[i], next.Shape[i])
			next.Scale[i] = base.Scale[i] * f[i]
			next.Translation[i] = base.Translation[i] + (f[i]-1)/2*base.Scale[i]
		}
		lv = append(lv, next)
		reduce = append(reduce, red)
	}
}
