package loader

import (
	"context"
	"fmt"
	"runtime"
	"strings"

	"golang.org/x/sync/errgroup"
)

// Plane names a 2-D section through a source: which axes are shown and the
// coordinate on every other axis.
type Plane struct {
	// Orientation is "xy" (rows Y, columns X), "xz" (rows Z, columns X) or
	// "yz" (rows Z, columns Y).
	Orientation string
	// At holds the coordinate on each axis not shown, by axis letter; axes
	// missing from the map are at 0.
	At map[byte]int
}

// PlaneAxes returns the row and column axis letters of an orientation.
func PlaneAxes(orientation string) (row, col byte, err error) {
	switch strings.ToLower(orientation) {
	case "", "xy":
		return 'Y', 'X', nil
	case "xz":
		return 'Z', 'X', nil
	case "yz":
		return 'Z', 'Y', nil
	}
	return 0, 0, fmt.Errorf("unknown plane %q (want xy, xz or yz)", orientation)
}

// ReadPlane reads one plane of a stored level into a new buffer of w*h
// samples (row-major, little-endian). It reads the chunks the plane crosses,
// several at a time. It is safe for concurrent use.
func ReadPlane(ctx context.Context, src Source, level int, p Plane) (buf []byte, w, h int, err error) {
	m := src.Meta()
	if level < 0 || level >= len(m.Levels) {
		return nil, 0, 0, fmt.Errorf("no level %d (the source stores %d)", level, len(m.Levels))
	}
	l := &m.Levels[level]
	rowL, colL, err := PlaneAxes(p.Orientation)
	if err != nil {
		return nil, 0, 0, err
	}
	ra, ca := m.AxisIndex(rowL), m.AxisIndex(colL)
	if ra < 0 || ca < 0 {
		return nil, 0, 0, fmt.Errorf("plane %s needs axes %c and %c; the data has %s", p.Orientation, rowL, colL, m.Axes)
	}
	n := len(m.Axes)
	at := make([]int, n)
	for i := 0; i < n; i++ {
		if i == ra || i == ca {
			continue
		}
		at[i] = p.At[m.Axes[i]]
		if at[i] < 0 || at[i] >= l.Shape[i] {
			return nil, 0, 0, fmt.Errorf("%c=%d is outside 0..%d", m.Axes[i], at[i], l.Shape[i]-1)
		}
	}
	for a := range p.At {
		if strings.IndexByte(m.Axes, a) < 0 && p.At[a] != 0 {
			return nil, 0, 0, fmt.Errorf("the data has no %c axis (axes %s)", a, m.Axes)
		}
	}
	h, w = l.Shape[ra], l.Shape[ca]
	es := m.DType.Size()
	buf = make([]byte, w*h*es)
	grid := l.Grid()
	var jobs [][]int
	for cr := 0; cr < grid[ra]; cr++ {
		for cc := 0; cc < grid[ca]; cc++ {
			idx := make([]int, n)
			for i := range idx {
				idx[i] = at[i] / l.Chunk[i]
			}
			idx[ra], idx[ca] = cr, cc
			jobs = append(jobs, idx)
		}
	}
	cstr := make([]int, n)
	cstr[n-1] = 1
	for i := n - 2; i >= 0; i-- {
		cstr[i] = cstr[i+1] * l.Chunk[i+1]
	}
	g, gctx := errgroup.WithContext(ctx)
	workers := min(runtime.GOMAXPROCS(0)*2, len(jobs))
	next := make(chan []int)
	for range workers {
		g.Go(func() error {
			chunk := make([]byte, l.ChunkBytes(m.DType))
			for idx := range next {
				if err := src.ReadChunk(gctx, level, idx, chunk); err != nil && !IsNotStored(err) {
					return err
				}
				copyPlane(buf, chunk, l, idx, at, ra, ca, cstr, w, es)
			}
			return nil
		})
	}
	g.Go(func() error {
		defer close(next)
		for _, idx := range jobs {
			select {
			case next <- idx:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return nil, 0, 0, err
	}
	return buf, w, h, nil
}

// copyPlane copies the part of one chunk that lies on the plane into buf.
func copyPlane(buf, chunk []byte, l *Level, idx, at []int, ra, ca int, cstr []int, w, es int) {
	base := 0
	for i := range idx {
		if i != ra && i != ca {
			base += (at[i] - idx[i]*l.Chunk[i]) * cstr[i]
		}
	}
	r0, c0 := idx[ra]*l.Chunk[ra], idx[ca]*l.Chunk[ca]
	rows := min(l.Chunk[ra], l.Shape[ra]-r0)
	cols := min(l.Chunk[ca], l.Shape[ca]-c0)
	for r := 0; r < rows; r++ {
		src := base + r*cstr[ra]
		dst := ((r0+r)*w + c0) * es
		if cstr[ca] == 1 {
			copy(buf[dst:dst+cols*es], chunk[src*es:(src+cols)*es])
			continue
		}
		for c := 0; c < cols; c++ {
			s := (src + c*cstr[ca]) * es
			copy(buf[dst+c*es:dst+(c+1)*es], chunk[s:s+es])
		}
	}
}
