package omezarr

import (
	"fmt"
	"math"

	"vastview/loader"
)

// ngffOrder is the axis order OME-NGFF requires: time, channel, then space
// (z, y, x).
const ngffOrder = "TCZYX"

// layout is the source's array as it is written: axes in OME-NGFF order and
// each level's geometry permuted to match.
type layout struct {
	axes   string         // written axis letters, in ngffOrder
	perm   []int          // perm[j] is the source axis written as axis j
	same   bool           // perm is the identity
	dtype  loader.DType   // sample type
	units  []string       // unit per written axis
	levels []loader.Level // levels with every per-axis slice permuted
	src    []loader.Level // the source's levels, unpermuted
}

// newLayout plans how m's array is written.
func newLayout(m *loader.Meta) (*layout, error) {
	n := len(m.Axes)
	lay := &layout{dtype: m.DType, src: m.Levels, same: true}
	for i := 0; i < len(ngffOrder); i++ {
		if k := m.AxisIndex(ngffOrder[i]); k >= 0 {
			lay.axes += ngffOrder[i : i+1]
			lay.perm = append(lay.perm, k)
		}
	}
	for j, k := range lay.perm {
		lay.same = lay.same && j == k
		lay.units = append(lay.units, m.Units[k])
	}
	for li, l := range m.Levels {
		for i := 0; i < n; i++ {
			if !finite(l.Scale[i]) || !finite(l.Translation[i]) {
				return nil, fmt.Errorf("source level %d: scale or translation of axis %c is not a finite number", li, m.Axes[i])
			}
		}
		lay.levels = append(lay.levels, loader.Level{
			Shape:       permute(l.Shape, lay.perm),
			Chunk:       permute(l.Chunk, lay.perm),
			Scale:       permute(l.Scale, lay.perm),
			Translation: permute(l.Translation, lay.perm),
		})
	}
	return lay, nil
}

// permute returns v reordered so that entry j is v[perm[j]].
func permute[T any](v []T, perm []int) []T {
	out := make([]T, len(perm))
	for j, k := range perm {
		out[j] = v[k]
	}
	return out
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// srcIndex maps a chunk index of the written array to the source's.
func (lay *layout) srcIndex(out, dst []int) {
	for j, k := range lay.perm {
		dst[k] = out[j]
	}
}

// transpose copies the chunk src, stored in the source's axis order with
// chunk shape chunk (source order), into dst in the written axis order.
// Both orders end in Y, X, so whole planes move at once.
func (lay *layout) transpose(dst, src []byte, chunk []int) {
	n := len(chunk)
	plane := chunk[n-2] * chunk[n-1] * lay.dtype.Size()
	// Source strides in planes for the leading axes.
	stride := make([]int, n-2)
	s := 1
	for i := n - 3; i >= 0; i-- {
		stride[i] = s
		s *= chunk[i]
	}
	lead := lay.perm[:n-2]
	pos := make([]int, n-2) // position in written order
	for d := 0; d < s; d++ {
		o := 0
		for j, k := range lead {
			o += pos[j] * stride[k]
		}
		copy(dst[d*plane:(d+1)*plane], src[o*plane:(o+1)*plane])
		for j := n - 3; j >= 0; j-- {
			pos[j]++
			if pos[j] < chunk[lead[j]] {
				break
			}
			pos[j] = 0
		}
	}
}
