package levels

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"

	"golang.org/x/sync/errgroup"

	"vastview/base/nd"
	"vastview/downsample"
	"vastview/loader"
)

// ProjectChunk computes chunk idx of the projection by op of a level of
// src along its axis ai, over the planes a..b (inclusive) of that level:
// the level's chunk with extent 1 along ai (idx[ai] is ignored), of src's
// sample type for max and min, of float32 for the mean (summed in
// float64, then rounded). It reads each chunk of the slab in the column
// once, up to workers at a time (GOMAXPROCS when 0), and returns the
// samples and their type.
func ProjectChunk(ctx context.Context, src loader.Source, level int, idx []int, ai int, op loader.Projection, a, b, workers int) ([]byte, loader.DType, error) {
	m := src.Meta()
	if level < 0 || level >= len(m.Levels) || ai < 0 || ai >= len(m.Axes) || len(idx) != len(m.Axes) {
		return nil, 0, fmt.Errorf("no chunk %v of level %d to project along axis %d", idx, level, ai)
	}
	l := &m.Levels[level]
	if a < 0 || b < a || b >= l.Shape[ai] {
		return nil, 0, fmt.Errorf("slab %d:%d is outside %c 0..%d", a, b, m.Axes[ai], l.Shape[ai]-1)
	}
	dt := m.DType
	outer, inner := 1, 1
	for i, c := range l.Chunk {
		switch {
		case i < ai:
			outer *= c
		case i > ai:
			inner *= c
		}
	}
	cn := l.Chunk[ai]
	first, last := a/cn, b/cn
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, last-first+1))
	fold := map[loader.Projection]downsample.Fold{loader.ProjectMax: downsample.FoldMax, loader.ProjectMin: downsample.FoldMin}[op]
	if op == loader.ProjectMean {
		fold = downsample.FoldSum
	} else if op != loader.ProjectMax && op != loader.ProjectMin {
		return nil, 0, fmt.Errorf("no such projection (%d)", op)
	}
	// Each worker folds every workers-th chunk of the column into its own
	// accumulator; the accumulators are folded together at the end.
	accs := make([][]byte, workers)
	sums := make([][]float64, workers)
	g, gctx := errgroup.WithContext(ctx)
	for w := range workers {
		g.Go(func() error {
			chunk := make([]byte, l.ChunkBytes(dt))
			cidx := append([]int(nil), idx...)
			if fold == downsample.FoldSum {
				sums[w] = make([]float64, outer*inner)
			} else {
				accs[w] = make([]byte, outer*inner*dt.Size())
			}
			started := false
			for nc := first + w; nc <= last; nc += workers {
				cidx[ai] = nc
				if err := src.ReadChunk(gctx, level, cidx, chunk); err != nil && !loader.IsNotStored(err) {
					return err
				}
				k0, k1 := max(a, nc*cn)-nc*cn, min(b+1, (nc+1)*cn)-nc*cn
				if err := downsample.Project(fold, dt, accs[w], sums[w], chunk, outer, cn, inner, k0, k1, !started); err != nil {
					return err
				}
				started = true
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, 0, err
	}
	if fold != downsample.FoldSum {
		for w := 1; w < workers; w++ {
			if err := downsample.Project(fold, dt, accs[0], nil, accs[w], 1, 1, len(accs[0])/dt.Size(), 0, 1, false); err != nil {
				return nil, 0, err
			}
		}
		return accs[0], dt, nil
	}
	out := make([]byte, 4*outer*inner)
	count := float64(b - a + 1)
	for i := range sums[0] {
		s := sums[0][i]
		for w := 1; w < workers; w++ {
			s += sums[w][i]
		}
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(float32(s/count)))
	}
	return out, loader.Float32, nil
}

// ProjectPlane reduces the planes a..b (inclusive) along the axis normal
// to plane p of a level of src (stored or, for a Pyramid, computed) by
// op, at p's position on the other axes (see ProjectChunk). It returns
// w*h samples, row-major, little-endian, and their type.
func ProjectPlane(ctx context.Context, src loader.Source, level int, p loader.Plane, op loader.Projection, a, b int) (buf []byte, dt loader.DType, w, h int, err error) {
	m := src.Meta()
	if level < 0 || level >= len(m.Levels) {
		return nil, 0, 0, 0, fmt.Errorf("no level %d (the data has %d)", level, len(m.Levels))
	}
	l := &m.Levels[level]
	if !p.Orientation.Valid() {
		return nil, 0, 0, 0, fmt.Errorf("unknown plane %v", p.Orientation)
	}
	rowL, colL, normal := p.Orientation.Axes()
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
	// The projected chunk's strides: the level's chunk, one plane thick.
	pc := append([]int(nil), l.Chunk...)
	pc[na] = 1
	strides := nd.Strides(pc)
	base := 0
	for i := range at {
		if i != ra && i != ca && i != na {
			base += (at[i] % l.Chunk[i]) * strides[i]
		}
	}
	grid := l.Grid()
	tiles := []int{grid[ra], grid[ca]}
	// The tiles one after another, each chunk column's reads in parallel.
	for t := make([]int, 2); ; {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = at[i] / l.Chunk[i]
		}
		idx[ra], idx[ca] = t[0], t[1]
		chunk, cdt, err := ProjectChunk(ctx, src, level, idx, na, op, a, b, 0)
		if err != nil {
			return nil, 0, 0, 0, err
		}
		if buf == nil {
			dt = cdt
			buf = make([]byte, w*h*dt.Size())
		}
		size := dt.Size()
		y0, x0 := t[0]*l.Chunk[ra], t[1]*l.Chunk[ca]
		rows, cols := min(l.Chunk[ra], h-y0), min(l.Chunk[ca], w-x0)
		for r := 0; r < rows; r++ {
			for c := 0; c < cols; c++ {
				o := (base + r*strides[ra] + c*strides[ca]) * size
				copy(buf[((y0+r)*w+x0+c)*size:][:size], chunk[o:o+size])
			}
		}
		if !nd.Next(t, tiles) {
			break
		}
	}
	return buf, dt, w, h, nil
}
