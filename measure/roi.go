// Package measure computes what a user measures on an image: statistics
// and histograms of regions (rectangles, ellipses, polygons, and prisms of
// them over a range of planes), intensity profiles along lines, and the
// values and physical positions of points; and it reads and writes them in
// the formats other tools exchange (CSV as Fiji's Results table, ROIs as
// JSON, points as napari's points layer CSV).
//
// Geometry is given in level-0 sample coordinates of a plane (Plane): a
// position is a row and a column, a sample's centre at its integer index,
// as NumPy and scikit-image index images. Regions are read from level 0,
// chunk by chunk, streaming: memory is bounded by the budget, whatever the
// region's size (Compute). A coarse level gives a quick estimate at once
// (Options.Level, EstimateLevel).
//
// The geometry types are plain values, safe to copy and to share between
// goroutines once built; the functions that read data say what they
// need of the source.
package measure

import (
	"fmt"
	"math"
	"slices"

	"vastview/loader"
	"vastview/render/oblique"
)

// Pt is a position in a plane's sample coordinates: Row and Col, with a
// sample's centre at its integer index.
type Pt struct{ Row, Col float64 }

// Span is the half-open range [From, To) of columns of one row.
type Span struct{ From, To int }

// Region is an area of a plane, as the samples whose positions it holds.
// Implementations are plain values, safe for concurrent use.
type Region interface {
	// Bounds returns the half-open rows [r0, r1) and columns [c0, c1)
	// that hold every sample of the region in a plane of h rows and w
	// columns (empty when none).
	Bounds(h, w int) (r0, c0, r1, c1 int)
	// Spans appends to dst the column ranges of row r inside the region,
	// within [0, w), in increasing order and disjoint.
	Spans(dst []Span, r, w int) []Span
	// Kind names the shape: "rect", "ellipse" or "polygon".
	Kind() string
}

// Rect is the samples of rows [Row0, Row1) and columns [Col0, Col1).
type Rect struct{ Row0, Col0, Row1, Col1 int }

// Kind is "rect".
func (Rect) Kind() string { return "rect" }

// Bounds clips the rectangle to the plane.
func (r Rect) Bounds(h, w int) (r0, c0, r1, c1 int) {
	r0, c0 = max(0, r.Row0), max(0, r.Col0)
	r1, c1 = min(h, r.Row1), min(w, r.Col1)
	if r1 <= r0 || c1 <= c0 {
		return 0, 0, 0, 0
	}
	return r0, c0, r1, c1
}

// Spans appends the rectangle's columns if row is one of its rows.
func (r Rect) Spans(dst []Span, row, w int) []Span {
	c0, c1 := max(0, r.Col0), min(w, r.Col1)
	if row < r.Row0 || row >= r.Row1 || c1 <= c0 {
		return dst
	}
	return append(dst, Span{c0, c1})
}

// Ellipse is the samples whose centres (r, c) satisfy
// ((r−Center.Row)/RadiusRow)² + ((c−Center.Col)/RadiusCol)² < 1, as
// skimage.draw.ellipse (without rotation) draws it.
type Ellipse struct {
	Center               Pt
	RadiusRow, RadiusCol float64
}

// Kind is "ellipse".
func (Ellipse) Kind() string { return "ellipse" }

// Bounds returns the rows and columns the ellipse may cover.
func (e Ellipse) Bounds(h, w int) (r0, c0, r1, c1 int) {
	if !(e.RadiusRow > 0 && e.RadiusCol > 0) {
		return 0, 0, 0, 0
	}
	r0 = clampInt(int(math.Floor(e.Center.Row-e.RadiusRow)), 0, h)
	r1 = clampInt(int(math.Ceil(e.Center.Row+e.RadiusRow))+1, 0, h)
	c0 = clampInt(int(math.Floor(e.Center.Col-e.RadiusCol)), 0, w)
	c1 = clampInt(int(math.Ceil(e.Center.Col+e.RadiusCol))+1, 0, w)
	if r1 <= r0 || c1 <= c0 {
		return 0, 0, 0, 0
	}
	return r0, c0, r1, c1
}

// Spans appends the ellipse's columns of row r.
func (e Ellipse) Spans(dst []Span, r, w int) []Span {
	if !(e.RadiusRow > 0 && e.RadiusCol > 0) {
		return dst
	}
	dr := (float64(r) - e.Center.Row) / e.RadiusRow
	rest := 1 - dr*dr
	if rest <= 0 {
		return dst
	}
	half := math.Sqrt(rest) * e.RadiusCol
	c0 := clampInt(int(math.Floor(e.Center.Col-half))-1, 0, w)
	c1 := clampInt(int(math.Ceil(e.Center.Col+half))+2, 0, w)
	// The exact test at the ends, as skimage computes it.
	in := func(c int) bool {
		dc := (float64(c) - e.Center.Col) / e.RadiusCol
		return dr*dr+dc*dc < 1
	}
	for c0 < c1 && !in(c0) {
		c0++
	}
	for c1 > c0 && !in(c1-1) {
		c1--
	}
	if c1 <= c0 {
		return dst
	}
	return append(dst, Span{c0, c1})
}

// Polygon is the samples whose centres lie inside the polygon through
// Vertices, or on its edges, as skimage.draw.polygon draws it.
type Polygon struct{ Vertices []Pt }

// Kind is "polygon".
func (Polygon) Kind() string { return "polygon" }

// Bounds returns the rows and columns skimage.draw.polygon looks at.
func (p Polygon) Bounds(h, w int) (r0, c0, r1, c1 int) {
	if len(p.Vertices) == 0 {
		return 0, 0, 0, 0
	}
	minR, maxR := math.Inf(1), math.Inf(-1)
	minC, maxC := math.Inf(1), math.Inf(-1)
	for _, v := range p.Vertices {
		minR, maxR = math.Min(minR, v.Row), math.Max(maxR, v.Row)
		minC, maxC = math.Min(minC, v.Col), math.Max(maxC, v.Col)
	}
	if math.IsNaN(minR+maxR+minC+maxC) || math.IsInf(minR+maxR+minC+maxC, 0) {
		return 0, 0, 0, 0
	}
	// skimage: int(max(0, min)) .. min(shape-1, int(ceil(max))), inclusive.
	r0 = clampInt(int(math.Max(0, minR)), 0, h)
	c0 = clampInt(int(math.Max(0, minC)), 0, w)
	r1 = clampInt(int(math.Ceil(maxR))+1, 0, h)
	c1 = clampInt(int(math.Ceil(maxC))+1, 0, w)
	if r1 <= r0 || c1 <= c0 {
		return 0, 0, 0, 0
	}
	return r0, c0, r1, c1
}

// Spans appends the polygon's columns of row r. The test of each sample
// is scikit-image's point_in_polygon; it changes only where an edge
// crosses the row, so samples away from crossings are taken in runs.
func (p Polygon) Spans(dst []Span, r, w int) []Span {
	r0, c0, r1, c1 := p.Bounds(r+1, w)
	if r < r0 || r >= r1 {
		return dst
	}
	y := float64(r)
	// Columns where the test may change: crossings of edges with the row
	// and vertices on it, widened by one sample either side.
	crit := []float64{}
	n := len(p.Vertices)
	for i := range n {
		a, b := p.Vertices[(i+n-1)%n], p.Vertices[i]
		if (a.Row-y)*(b.Row-y) <= 0 {
			if a.Row == b.Row {
				crit = append(crit, a.Col, b.Col)
			} else {
				crit = append(crit, a.Col+(y-a.Row)*(b.Col-a.Col)/(b.Row-a.Row))
			}
		}
	}
	slices.Sort(crit)
	// Columns within two samples of a crossing are tested one by one;
	// the state holds between them.
	c := c0
	for k := 0; c < c1; {
		next := c1 // first column tested one by one from c on
		for k < len(crit) && crit[k]+2 < float64(c) {
			k++
		}
		if k < len(crit) {
			next = clampInt(int(math.Ceil(crit[k]-2)), c, c1)
		}
		if next > c {
			if pointInPolygon(p.Vertices, float64(c), y) {
				dst = addRun(dst, c, next)
			}
			c = next
			continue
		}
		for ; c < c1 && float64(c) <= crit[k]+2; c++ {
			dst = addCol(dst, c, pointInPolygon(p.Vertices, float64(c), y))
		}
	}
	return dst
}

// addCol adds column c to the spans dst when in is true.
func addCol(dst []Span, c int, in bool) []Span {
	if !in {
		return dst
	}
	return addRun(dst, c, c+1)
}

// addRun adds columns [a, b) to the spans dst, joining the last span when
// they touch.
func addRun(dst []Span, a, b int) []Span {
	if n := len(dst); n > 0 && dst[n-1].To == a {
		dst[n-1].To = b
		return dst
	}
	return append(dst, Span{a, b})
}

// pointInPolygon is scikit-image's point_in_polygon (O'Rourke's crossing
// test with a tolerance for vertices): true inside, on an edge or at a
// vertex.
func pointInPolygon(v []Pt, x, y float64) bool {
	const eps = 1e-12
	n := len(v)
	x1, y1 := v[n-1].Col-x, v[n-1].Row-y
	var lc, rc uint
	for i := range n {
		x0, y0 := v[i].Col-x, v[i].Row-y
		if -eps < x0 && x0 < eps && -eps < y0 && y0 < eps {
			return true
		}
		if (y0 > 0) != (y1 > 0) && (x0*y1-x1*y0)/(y1-y0) > 0 {
			rc++
		}
		if (y0 < 0) != (y1 < 0) && (x0*y1-x1*y0)/(y1-y0) < 0 {
			lc++
		}
		x1, y1 = x0, y0
	}
	return rc&1 != lc&1 || rc&1 == 1
}

// Line is a straight line from From to To, Width samples wide (1 or
// more; 0 counts as 1), as skimage.measure.profile_line's src, dst and
// linewidth.
type Line struct {
	From, To Pt
	Width    int
}

// Point is one position of a plane.
type Point struct{ At Pt }

// Plane says where on the data a geometry lies: an axis-aligned plane (its
// Orientation, the time point T and the level-0 position Index along the
// axis normal to it), or, when Oblique is set, a turned plane whose sample
// (i, j) is the position (Row i, Col j) (Orientation and Index unused; T
// and C are Oblique's).
type Plane struct {
	Orientation loader.Orientation
	T, Index    int
	Oblique     *oblique.Plane
}

// axes returns the positions in m.Axes of the plane's rows, columns and
// normal axis (−1 for an axis the data lacks) and the plane's level-0
// height and width.
func (pl Plane) axes(m *loader.Meta) (ra, ca, na, h, w int, err error) {
	if pl.Oblique != nil {
		return -1, -1, -1, pl.Oblique.H, pl.Oblique.W, nil
	}
	if !pl.Orientation.Valid() {
		return 0, 0, 0, 0, 0, fmt.Errorf("unknown plane %v", pl.Orientation)
	}
	row, col, normal := pl.Orientation.Axes()
	ra, ca, na = m.AxisIndex(row), m.AxisIndex(col), m.AxisIndex(normal)
	if ra < 0 || ca < 0 {
		return 0, 0, 0, 0, 0, fmt.Errorf("plane %s needs axes %c and %c; the data has %s", pl.Orientation, row, col, m.Axes)
	}
	return ra, ca, na, m.Levels[0].Shape[ra], m.Levels[0].Shape[ca], nil
}

// Spacing returns the physical size of a step along the plane's rows and
// columns and its normal, and the unit of length ("" when unknown): the
// level-0 spacing of those axes (1 for an axis the data lacks); a turned
// plane's Pixel along rows and columns.
func (pl Plane) Spacing(m *loader.Meta) (row, col, normal float64, unit string) {
	sp := oblique.Spacing(m)
	unit = lengthUnit(m)
	if pl.Oblique != nil {
		return pl.Oblique.Pixel, pl.Oblique.Pixel, 1, unit
	}
	r, c, n := pl.Orientation.Axes()
	pick := func(a byte) float64 { return sp[strIndex("ZYX", a)] }
	return pick(r), pick(c), pick(n), unit
}

// lengthUnit is the unit of the data's spatial axes: X's, else Y's, else "".
func lengthUnit(m *loader.Meta) string {
	for _, a := range []byte("XYZ") {
		if i := m.AxisIndex(a); i >= 0 && i < len(m.Units) && m.Units[i] != "" {
			return m.Units[i]
		}
	}
	return ""
}

// Physical returns the physical position (Z, Y, X, in the spacing's unit,
// a sample's centre at index × spacing) of position p of the plane.
func (pl Plane) Physical(m *loader.Meta, p Pt) oblique.Vec {
	if pl.Oblique != nil {
		return pl.Oblique.At(p.Row, p.Col)
	}
	sp := oblique.Spacing(m)
	q := pl.Index3(m, p)
	return oblique.Vec{q[0] * sp[0], q[1] * sp[1], q[2] * sp[2]}
}

// Index3 returns the level-0 continuous sample index (Z, Y, X) of
// position p of an axis-aligned plane (for a turned plane, its physical
// position divided by the spacing).
func (pl Plane) Index3(m *loader.Meta, p Pt) oblique.Vec {
	if pl.Oblique != nil {
		sp := oblique.Spacing(m)
		q := pl.Oblique.At(p.Row, p.Col)
		return oblique.Vec{q[0] / sp[0], q[1] / sp[1], q[2] / sp[2]}
	}
	var q oblique.Vec
	r, c, n := pl.Orientation.Axes()
	q[strIndex("ZYX", r)] = p.Row
	q[strIndex("ZYX", c)] = p.Col
	q[strIndex("ZYX", n)] = float64(pl.Index)
	return q
}

func strIndex(s string, b byte) int {
	for i := range len(s) {
		if s[i] == b {
			return i
		}
	}
	return -1
}

func clampInt(v, lo, hi int) int { return max(lo, min(hi, v)) }
