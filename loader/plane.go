package loader

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"vastview/base/nd"

	"golang.org/x/sync/errgroup"
)

// Orientation is the plane a 2-D section shows: which axes are its rows
// and columns. The zero value is XY.
type Orientation uint8

// The orientations.
const (
	XY Orientation = iota // rows Y, columns X
	XZ                    // rows Z, columns X
	YZ                    // rows Z, columns Y
)

// orientationAxes are the row, column and normal axes of each orientation.
var orientationAxes = [...][3]byte{XY: {'Y', 'X', 'Z'}, XZ: {'Z', 'X', 'Y'}, YZ: {'Z', 'Y', 'X'}}

// ParseOrientation reads "xy", "xz" or "yz" (any case; "" is xy).
func ParseOrientation(s string) (Orientation, error) {
	if s == "" {
		return XY, nil
	}
	for o := range orientationAxes {
		if strings.EqualFold(s, Orientation(o).String()) {
			return Orientation(o), nil
		}
	}
	return XY, fmt.Errorf("unknown plane %q (want xy, xz or yz)", s)
}

// Valid reports whether o is one of XY, XZ and YZ.
func (o Orientation) Valid() bool { return int(o) < len(orientationAxes) }

// String is the orientation's name, "xy", "xz" or "yz".
func (o Orientation) String() string {
	if !o.Valid() {
		return fmt.Sprintf("Orientation(%d)", o)
	}
	a := orientationAxes[o]
	return strings.ToLower(string([]byte{a[1], a[0]}))
}

// Axes returns the axis letters of the rows, the columns and the normal of
// the plane (Z for xy, Y for xz, X for yz).
func (o Orientation) Axes() (row, col, normal byte) {
	if !o.Valid() {
		o = XY
	}
	a := orientationAxes[o]
	return a[0], a[1], a[2]
}

// Plane names a 2-D section through a source: which axes are shown and the
// coordinate on every other axis.
type Plane struct {
	// Orientation says which axes are the rows and the columns.
	Orientation Orientation
	// At holds the coordinate on each axis not shown, by axis letter; axes
	// missing from the map are at 0.
	At map[byte]int
}

// ChunkLister is a Source that can tell which chunks of a plane of chunks
// it stores from a listing of its store, rather than a lookup per chunk
// (a Zarr folder of tiny chunks, most of them absent: unwritten chunks are
// the fill value).
type ChunkLister interface {
	Source
	// Listable reports whether StoredChunks works for a level (the store
	// can be listed).
	Listable(level int) bool
	// Fill returns one sample of the value of the chunks not stored.
	Fill(level int) []byte
	// StoredChunks calls fn with the index of each chunk of the level
	// that is stored and equals at on every axis but the two in free, in
	// no particular order. It ends at fn's first error.
	StoredChunks(ctx context.Context, level int, at []int, free [2]int, fn func(idx []int) error) error
}

// Planes crossing more chunks than listFrom are read from a listing of the
// stored chunks where the source can list them; where it cannot, planes
// crossing more than maxLookups chunks are refused: that many lookups take
// minutes on a disk and hours over a network.
const (
	listFrom   = 1 << 10
	maxLookups = 1 << 16
)

// ReadPlane reads one plane of a stored level into a new buffer of w*h
// samples (row-major, little-endian). It reads the chunks the plane crosses,
// several at a time; of a ChunkLister crossing many, only those stored. It
// is safe for concurrent use.
func ReadPlane(ctx context.Context, src Source, level int, p Plane) (buf []byte, w, h int, err error) {
	m := src.Meta()
	if level < 0 || level >= len(m.Levels) {
		return nil, 0, 0, fmt.Errorf("no level %d (the source stores %d)", level, len(m.Levels))
	}
	l := &m.Levels[level]
	if !p.Orientation.Valid() {
		return nil, 0, 0, fmt.Errorf("unknown plane %v", p.Orientation)
	}
	rowL, colL, _ := p.Orientation.Axes()
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
	if planeChunk(l, ra, ca) {
		// One chunk is the plane: read it in place, not through a copy
		// (a 2 GiB strip must not need 4).
		idx := make([]int, n)
		for i := range idx {
			idx[i] = at[i]
		}
		idx[ra], idx[ca] = 0, 0
		if err := src.ReadChunk(ctx, level, idx, buf); err != nil && !IsNotStored(err) {
			return nil, 0, 0, err
		}
		return buf, w, h, nil
	}
	grid := l.Grid()
	// The plane as an array over every axis: length 1 off the plane.
	pshape := make([]int, n)
	for i := range pshape {
		pshape[i] = 1
	}
	pshape[ra], pshape[ca] = h, w
	// The chunks the plane crosses, walked as they are read: the work in
	// flight is bounded by the workers, not by the number of chunks.
	pgrid := []int{grid[ra], grid[ca]}
	count := pgrid[0] * pgrid[1]
	lister, isLister := src.(ChunkLister)
	listing := isLister && count > listFrom && lister.Listable(level)
	if isLister && !listing && count > maxLookups {
		return nil, 0, 0, fmt.Errorf("the plane crosses %d chunks of %s samples, too many to look up one by one (at most %d), and the store cannot be listed to find those it holds",
			count, shapeText(l.Chunk), maxLookups)
	}
	if listing {
		fillRepeat(buf, lister.Fill(level))
	}
	g, gctx := errgroup.WithContext(ctx)
	workers := min(runtime.GOMAXPROCS(0)*2, count)
	next := make(chan []int, workers)
	for range workers {
		g.Go(func() error {
			chunk := make([]byte, l.ChunkBytes(m.DType))
			srcOff, dstOff, box := make([]int, n), make([]int, n), make([]int, n)
			for idx := range next {
				if err := src.ReadChunk(gctx, level, idx, chunk); err != nil && !IsNotStored(err) {
					return err
				}
				for i := range idx {
					c0 := idx[i] * l.Chunk[i]
					if i == ra || i == ca {
						srcOff[i], dstOff[i], box[i] = 0, c0, min(l.Chunk[i], l.Shape[i]-c0)
					} else {
						srcOff[i], dstOff[i], box[i] = at[i]-c0, 0, 1
					}
				}
				nd.CopyBox(buf, pshape, dstOff, chunk, l.Chunk, srcOff, box, es)
			}
			return nil
		})
	}
	g.Go(func() error {
		defer close(next)
		if listing {
			at0 := make([]int, n)
			for i := range at0 {
				at0[i] = at[i] / l.Chunk[i]
			}
			return lister.StoredChunks(gctx, level, at0, [2]int{ra, ca}, func(idx []int) error {
				select {
				case next <- slices.Clone(idx):
					return nil
				case <-gctx.Done():
					return gctx.Err()
				}
			})
		}
		for p := make([]int, 2); ; {
			idx := make([]int, n)
			for i := range idx {
				idx[i] = at[i] / l.Chunk[i]
			}
			idx[ra], idx[ca] = p[0], p[1]
			select {
			case next <- idx:
			case <-gctx.Done():
				return gctx.Err()
			}
			if !nd.Next(p, pgrid) {
				return nil
			}
		}
	})
	if err := g.Wait(); err != nil {
		return nil, 0, 0, err
	}
	return buf, w, h, nil
}

// planeChunk reports whether a chunk of l is exactly one plane of rows ra
// and columns ca: the whole of those axes and one sample of the others.
func planeChunk(l *Level, ra, ca int) bool {
	for i := range l.Chunk {
		if i == ra || i == ca {
			if l.Chunk[i] != l.Shape[i] {
				return false
			}
		} else if l.Chunk[i] != 1 {
			return false
		}
	}
	return true
}

// fillRepeat fills buf with copies of one sample.
func fillRepeat(buf, sample []byte) {
	if len(sample) == 0 || allZeroBytes(sample) {
		clear(buf)
		return
	}
	n := copy(buf, sample)
	for n < len(buf) {
		n += copy(buf[n:], buf[:n])
	}
}

func allZeroBytes(b []byte) bool {
	for _, v := range b {
		if v != 0 {
			return false
		}
	}
	return true
}

// shapeText writes a shape as "1×1×1".
func shapeText(shape []int) string {
	parts := make([]string, len(shape))
	for i, v := range shape {
		parts[i] = strconv.Itoa(v)
	}
	return strings.Join(parts, "×")
}
