package loader

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"strings"

	"golang.org/x/sync/errgroup"

	"vastview/internal/nd"
)

// Projection is how the samples along the axis normal to a plane are
// reduced to one.
type Projection uint8

// The projections.
const (
	NoProjection Projection = iota
	ProjectMax
	ProjectMin
	ProjectMean
)

// ParseProjection reads "max", "min" or "mean".
func ParseProjection(s string) (Projection, error) {
	switch strings.ToLower(s) {
	case "max":
		return ProjectMax, nil
	case "min":
		return ProjectMin, nil
	case "mean":
		return ProjectMean, nil
	}
	return NoProjection, fmt.Errorf("unknown projection %q (want max, min or mean)", s)
}

// NormalAxis is the axis normal to a plane orientation ("xy": Z, "xz": Y,
// "yz": X).
func NormalAxis(orientation string) (byte, error) {
	row, col, err := PlaneAxes(orientation)
	if err != nil {
		return 0, err
	}
	for _, a := range []byte("ZYX") {
		if a != row && a != col {
			return a, nil
		}
	}
	return 0, fmt.Errorf("plane %s has no normal axis", orientation)
}

// ProjectPlane reduces the planes a..b (inclusive) along the axis normal
// to plane p of a level of src (stored or, for a levels.Pyramid, computed)
// by op, at p's position on the other axes. It returns w*h samples
// (row-major, little-endian) of the source's type for max and min, of
// float32 for the mean (computed in float64, then rounded), and that
// type. It reads every chunk the slab crosses once, several at a time.
func ProjectPlane(ctx context.Context, src Source, level int, p Plane, op Projection, a, b int) (buf []byte, dt DType, w, h int, err error) {
	m := src.Meta()
	if level < 0 || level >= len(m.Levels) {
		return nil, 0, 0, 0, fmt.Errorf("no level %d (the data has %d)", level, len(m.Levels))
	}
	l := &m.Levels[level]
	rowL, colL, err := PlaneAxes(p.Orientation)
	if err != nil {
		return nil, 0, 0, 0, err
	}
	normal, _ := NormalAxis(p.Orientation)
	ra, ca, na := m.AxisIndex(rowL), m.AxisIndex(colL), m.AxisIndex(normal)
	if ra < 0 || ca < 0 {
		return nil, 0, 0, 0, fmt.Errorf("plane %s needs axes %c and %c; the data has %s", p.Orientation, rowL, colL, m.Axes)
	}
	if na < 0 {
		return nil, 0, 0, 0, fmt.Errorf("no %c axis to project along (axes %s)", normal, m.Axes)
	}
	if a < 0 || b < a || b >= l.Shape[na] {
		return nil, 0, 0, 0, fmt.Errorf("slab %d:%d is outside %c 0..%d", a, b, normal, l.Shape[na]-1)
	}
	n := len(m.Axes)
	at := make([]int, n)
	for i := 0; i < n; i++ {
		if i == ra || i == ca || i == na {
			continue
		}
		at[i] = p.At[m.Axes[i]]
		if at[i] < 0 || at[i] >= l.Shape[i] {
			return nil, 0, 0, 0, fmt.Errorf("%c=%d is outside 0..%d", m.Axes[i], at[i], l.Shape[i]-1)
		}
	}
	h, w = l.Shape[ra], l.Shape[ca]
	acc := make([]float64, w*h)
	init := map[Projection]float64{ProjectMax: math.Inf(-1), ProjectMin: math.Inf(1)}[op]
	for i := range acc {
		acc[i] = init
	}
	grid := l.Grid()
	strides := nd.Strides(l.Chunk) // in samples
	tiles := []int{grid[ra], grid[ca]}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, min(runtime.GOMAXPROCS(0)*2, tiles[0]*tiles[1])))
	dt = m.DType
	for t := make([]int, 2); ; {
		ty, tx := t[0], t[1]
		g.Go(func() error {
			chunk := make([]byte, l.ChunkBytes(dt))
			idx := make([]int, n)
			for i := range idx {
				idx[i] = at[i] / l.Chunk[i]
			}
			idx[ra], idx[ca] = ty, tx
			base := 0
			for i := range idx {
				if i != ra && i != ca && i != na {
					base += (at[i] % l.Chunk[i]) * strides[i]
				}
			}
			y0, x0 := ty*l.Chunk[ra], tx*l.Chunk[ca]
			rows, cols := min(l.Chunk[ra], h-y0), min(l.Chunk[ca], w-x0)
			for nc := a / l.Chunk[na]; nc <= b/l.Chunk[na]; nc++ {
				idx[na] = nc
				if err := src.ReadChunk(gctx, level, idx, chunk); err != nil && !IsNotStored(err) {
					return err
				}
				k0, k1 := max(a, nc*l.Chunk[na])-nc*l.Chunk[na], min(b+1, (nc+1)*l.Chunk[na])-nc*l.Chunk[na]
				for r := 0; r < rows; r++ {
					out := acc[(y0+r)*w+x0:][:cols]
					for k := k0; k < k1; k++ {
						o := base + r*strides[ra] + k*strides[na]
						for c := range out {
							v := dt.At(chunk, o+c*strides[ca])
							switch op {
							case ProjectMax:
								out[c] = max(out[c], v)
							case ProjectMin:
								out[c] = min(out[c], v)
							default:
								out[c] += v
							}
						}
					}
				}
			}
			return nil
		})
		if !nd.Next(t, tiles) {
			break
		}
	}
	if err := g.Wait(); err != nil {
		return nil, 0, 0, 0, err
	}
	if op == ProjectMean {
		dt = Float32
		for i := range acc {
			acc[i] /= float64(b - a + 1)
		}
	}
	buf = make([]byte, w*h*dt.Size())
	for i, v := range acc {
		dt.Put(buf, i, v)
	}
	return buf, dt, w, h, nil
}
