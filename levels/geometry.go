// Package levels turns a Source into a multi-resolution pyramid: level
// geometry, a byte-bounded chunk cache, a priority scheduler, a background
// builder that computes level k+1 from level k, and a disk cache of the
// computed levels.
package levels

import (
	"math"
	"math/bits"
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
// reduce[k] says which axes level k+1 halves relative to level k.
//
// Only spatial axes (Z, Y, X) still longer than a computed chunk are ever
// halved (movies, having no Z, never reduce T). Of those, level k+1 halves
// the ones that leave its samples closest to cubic in physical units, the
// finest first (see halving); when every such choice would leave them less
// cubic than level k, an axis more than twice as long as every spatial axis
// no longer halved is halved still, so that a long strip or a tall stack
// keeps a small overview. Levels stop when no axis is halved.
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
	unit := physicalSteps(m, &base)
	f := make([]float64, n) // cumulative factor per axis
	for i := range f {
		f[i] = 1
	}
	for {
		prev := lv[len(lv)-1]
		red := halving(m.Axes, prev.Shape, chunk, unit, f)
		if red == nil {
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

// physicalSteps returns level 0's step per axis in comparable units: in
// metres when every spatial axis has a length unit, else as stored; all 1
// (every spatial axis alike) when a step is not a positive finite number.
func physicalSteps(m *loader.Meta, base *loader.Level) []float64 {
	n := len(m.Axes)
	s := make([]float64, n)
	metres := true
	for i := 0; i < n; i++ {
		if strings.IndexByte("ZYX", m.Axes[i]) < 0 {
			continue
		}
		if i >= len(m.Units) {
			metres = false
		} else if _, kind := loader.UnitScale(m.Units[i]); kind != loader.Length {
			metres = false
		}
	}
	for i := 0; i < n; i++ {
		s[i] = 1
		if strings.IndexByte("ZYX", m.Axes[i]) < 0 {
			continue
		}
		v := base.Scale[i]
		if !(v > 0) || math.IsInf(v, 0) {
			for j := range s {
				s[j] = 1
			}
			return s
		}
		if metres {
			u, _ := loader.UnitScale(m.Units[i])
			v *= u
		}
		s[i] = v
	}
	return s
}

// halving chooses the axes the next level halves, or nil for none: of the
// spatial axes longer than their chunk (the candidates), the set whose
// halving leaves the samples closest to cubic (the least ratio of the
// coarsest to the finest step among the spatial axes longer than 1), the
// larger set on a tie, provided that ratio is no worse than now. Halving
// every candidate keeps the ratio, so while all spatial axes are
// candidates every level halves something; the finest are halved first.
// When no set qualifies, the candidates more than twice as long as every
// spatial axis that is not one are halved.
func halving(axes string, shape, chunk []int, step, f []float64) []bool {
	n := len(axes)
	var cand []int
	for i := 0; i < n; i++ {
		if strings.IndexByte("ZYX", axes[i]) >= 0 && shape[i] > chunk[i] {
			cand = append(cand, i)
		}
	}
	if len(cand) == 0 {
		return nil
	}
	// ratio is the anisotropy of the level that halves the candidates in set.
	ratio := func(set int) float64 {
		lo, hi := math.Inf(1), 0.0
		for i := 0; i < n; i++ {
			if strings.IndexByte("ZYX", axes[i]) < 0 {
				continue
			}
			s, m := step[i]*f[i], shape[i]
			for j, c := range cand {
				if c == i && set&(1<<j) != 0 {
					s, m = 2*s, (m+1)/2
				}
			}
			if m > 1 {
				lo, hi = min(lo, s), max(hi, s)
			}
		}
		if hi == 0 {
			return 1
		}
		return hi / lo
	}
	const tol = 1 + 1e-9
	now, best, bestRatio := ratio(0), 0, 0.0
	for set := 1; set < 1<<len(cand); set++ {
		r := ratio(set)
		if r > now*tol {
			continue
		}
		if best == 0 || r*tol < bestRatio || (r <= bestRatio*tol && bits.OnesCount(uint(set)) > bits.OnesCount(uint(best))) {
			best, bestRatio = set, r
		}
	}
	red := make([]bool, n)
	if best != 0 {
		for j, c := range cand {
			red[c] = best&(1<<j) != 0
		}
		return red
	}
	longest := 1
	for i := 0; i < n; i++ {
		if strings.IndexByte("ZYX", axes[i]) >= 0 && shape[i] <= chunk[i] {
			longest = max(longest, shape[i])
		}
	}
	any := false
	for _, c := range cand {
		if shape[c] > 2*longest {
			red[c], any = true, true
		}
	}
	if !any {
		return nil
	}
	return red
}
