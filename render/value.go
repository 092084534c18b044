package render

import "math"

// ValueAt returns the sample value under viewport position (x, y) of view
// v, from the finest level whose chunk there is in memory now, and that
// level; ok is false off the data or when no level has it in memory. It
// never blocks and is safe for concurrent use if p is. 64-bit integers
// beyond ±2^53 round to the nearest float64: SampleAt gives them exactly.
func ValueAt(p Source, v View, x, y float64) (value float64, level int, ok bool) {
	b, level, ok := SampleAt(p, v, x, y)
	if !ok {
		return 0, 0, false
	}
	return Sample(b, p.Meta().DType, 0), level, true
}

// SampleAt is ValueAt giving the sample as it is stored: its bytes
// (little-endian, a copy), exact for every type (see loader.DType's Text
// and Bits).
func SampleAt(p Source, v View, x, y float64) (sample []byte, level int, ok bool) {
	m := p.Meta()
	pt := v.ToPlane(m, x, y)
	row, col, _ := v.Orientation.Axes()
	ra, ca := m.AxisIndex(row), m.AxisIndex(col)
	if (ra < 0 && math.Floor(pt.Row) != 0) || (ca < 0 && math.Floor(pt.Col) != 0) {
		return nil, 0, false
	}
	n := len(m.Axes)
	for i := 0; i < n; i++ {
		if at := v.At(m.Axes[i]); i != ra && i != ca && (at < 0 || at >= m.Shape[i]) {
			return nil, 0, false // a plane beyond the data
		}
	}
	idx := make([]int, n)
	for k := range m.Levels {
		l := &m.Levels[k]
		off := 0
		strides := chunkStrides(l, 1)
		inside := true
		for i := 0; i < n; i++ {
			var j int
			switch i {
			case ra:
				j = levelAffine(m, k, i).at(pt.Row)
			case ca:
				j = levelAffine(m, k, i).at(pt.Col)
			default:
				j = max(0, min(l.Shape[i]-1, levelAffine(m, k, i).at(float64(v.At(m.Axes[i]))+0.5)))
			}
			if j < 0 || j >= l.Shape[i] {
				inside = false
				break
			}
			idx[i] = j / l.Chunk[i]
			off += (j % l.Chunk[i]) * strides[i]
		}
		if !inside {
			return nil, 0, false
		}
		if data := p.Get(k, idx); len(data) >= l.ChunkBytes(m.DType) {
			es := m.DType.Size()
			return append([]byte(nil), data[off*es:(off+1)*es]...), k, true
		}
	}
	return nil, 0, false
}
