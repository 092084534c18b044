package render

import (
	"math"

	"vastview/loader"
)

// Orientation is the plane a view shows: the loader's, which reads planes
// of every orientation.
type Orientation = loader.Orientation

// The orientations.
const (
	XY = loader.XY // rows Y, columns X
	XZ = loader.XZ // rows Z, columns X
	YZ = loader.YZ // rows Z, columns Y
)

// Point is a position in a plane, in level-0 samples: sample i of an axis
// covers [i, i+1), so the plane's centre is (columns/2, rows/2).
type Point struct{ Col, Row float64 }

// View is what the viewer shows: a plane through the data, where it is,
// how it is magnified and how values become colours. It is a plain value,
// safe to copy.
type View struct {
	Orientation Orientation
	// T, C, Z, Y, X are the level-0 indices on each axis; the two axes
	// the plane displays are ignored. Indices outside the data are clamped.
	T, C, Z, Y, X int
	// Zoom is the number of screen pixels per level-0 sample along the
	// column axis; rows are stretched by the physical aspect (the row
	// axis's spacing over the column axis's). Zoom <= 0 means fit.
	Zoom float64
	// Center is the plane position shown at the viewport's centre.
	Center Point
	// Lo and Hi are the display window: Lo and below get the colormap's
	// first colour, Hi and above its last. Label colormaps ignore them.
	Lo, Hi float64
	// Colormap names the colormap (see ColormapNamed); unknown names are gray.
	Colormap string
	// Channels, when there are any, make the view a composite: each
	// channel drawn through its own window and colormap, the colours added
	// per pixel and clamped (C, Lo, Hi and Colormap then only say which
	// channel ViewRange looks at). A View is copied freely: make a new
	// slice to change them, never write to one a View holds.
	Channels []Channel
	// Width and Height are the viewport's size in pixels (at most 16384).
	Width, Height int
	// Turn, when not zero, turns the plane about the view's centre (the
	// position Center on the plane, at the index of the axis normal to
	// it): an oblique plane, sampled through the volume with one screen
	// pixel of the column axis's spacing / Zoom on each side.
	Turn Turn
	// Linear samples an oblique plane by trilinear interpolation rather
	// than the nearest sample.
	Linear bool
	// Depth, for a turned plane, is where its centre lies between the
	// samples of the axis normal to the plane (in samples, added to that
	// axis's index): stepping along a turned plane's own normal moves
	// the centre off the samples. Setting that axis's index clears it.
	Depth float64
	// Flips is the display transform of each plane (indexed by
	// Orientation): whether its axes are swapped on the screen and which
	// run against the screen's (the radiological convention for volumes
	// with an anatomical orientation). The zero value draws every plane in
	// storage order.
	Flips [3]Flip
}

// Flip is how a plane is laid on the screen. Swap transposes it: the
// plane's column axis runs down the screen and its row axis across.
// Col draws the column axis against its screen axis (right to left, or
// bottom to top when swapped), Row the row axis (bottom to top, or right
// to left when swapped). Points (Point, View.Center) stay in the plane's
// own columns and rows whatever the transform.
type Flip struct{ Col, Row, Swap bool }

// Flip is the display transform of the plane the view shows.
func (v *View) Flip() Flip {
	if int(v.Orientation) < len(v.Flips) {
		return v.Flips[v.Orientation]
	}
	return Flip{}
}

// planeDelta maps an offset (dx, dy) on the screen to the offsets along
// the plane's column and row axes it covers, in screen pixels.
func (v *View) planeDelta(dx, dy float64) (dc, dr float64) {
	f := v.Flip()
	if f.Swap {
		dx, dy = dy, dx
	}
	if f.Col {
		dx = -dx
	}
	if f.Row {
		dy = -dy
	}
	return dx, dy
}

// screenDelta is planeDelta's inverse: the screen offset of offsets (dc,
// dr) in screen pixels along the plane's column and row axes.
func (v *View) screenDelta(dc, dr float64) (dx, dy float64) {
	f := v.Flip()
	if f.Col {
		dc = -dc
	}
	if f.Row {
		dr = -dr
	}
	if f.Swap {
		return dr, dc
	}
	return dc, dr
}

// At returns the view's index on axis a ('T', 'C', 'Z', 'Y' or 'X').
func (v *View) At(a byte) int {
	switch a {
	case 'T':
		return v.T
	case 'C':
		return v.C
	case 'Z':
		return v.Z
	case 'Y':
		return v.Y
	case 'X':
		return v.X
	}
	return 0
}

// SetAt sets the view's index on axis a.
func (v *View) SetAt(a byte, i int) {
	if _, _, normal := v.Orientation.Axes(); a == normal {
		v.Depth = 0
	}
	switch a {
	case 'T':
		v.T = i
	case 'C':
		v.C = i
	case 'Z':
		v.Z = i
	case 'Y':
		v.Y = i
	case 'X':
		v.X = i
	}
}

// PlaneSize returns the plane's level-0 size: columns and rows. An axis
// the data lacks has length 1.
func PlaneSize(m *loader.Meta, o Orientation) (cols, rows int) {
	row, col, _ := o.Axes()
	return m.Size(col), m.Size(row)
}

// Aspect is how many screen pixels a row takes per screen pixel of a
// column at the same zoom: the row axis's level-0 spacing over the column
// axis's, or 1 if either is missing or not a positive number.
func Aspect(m *loader.Meta, o Orientation) float64 {
	row, col, _ := o.Axes()
	r, c := m.AxisIndex(row), m.AxisIndex(col)
	if r < 0 || c < 0 {
		return 1
	}
	sr, sc := m.Levels[0].Scale[r], m.Levels[0].Scale[c]
	a := sr / sc
	if !(sr > 0 && sc > 0) || math.IsInf(a, 0) || a == 0 {
		return 1
	}
	return a
}

// Fit returns the zoom and centre that show the whole plane of view v
// as large as its viewport allows (laid as v.Flip says).
func Fit(m *loader.Meta, v View) (zoom float64, center Point) {
	cols, rows := PlaneSize(m, v.Orientation)
	return FitBox(m, v, Point{}, Point{float64(cols), float64(rows)})
}

// FitBox returns the zoom and centre that show the part [lo, hi) of the
// plane of view v of m (in level-0 samples, perhaps beyond the data: the
// layers over it) as large as v's viewport allows, laid as v.Flip says.
func FitBox(m *loader.Meta, v View, lo, hi Point) (zoom float64, center Point) {
	cols, rows := hi.Col-lo.Col, hi.Row-lo.Row
	center = Point{(lo.Col + hi.Col) / 2, (lo.Row + hi.Row) / 2}
	w, h := v.Width, v.Height
	if v.Flip().Swap {
		w, h = h, w
	}
	if w <= 0 || h <= 0 || !(cols > 0 && rows > 0) {
		return 1, center
	}
	zoom = min(float64(w)/cols, float64(h)/(rows*Aspect(m, v.Orientation)))
	return zoom, center
}

// zooms returns the screen pixels per level-0 sample along columns and
// rows, fitting the view first if its zoom is not a positive number.
func (v *View) zooms(m *loader.Meta) (zc, zr float64) {
	if !(v.Zoom > 0) || math.IsInf(v.Zoom, 0) {
		v.Zoom, v.Center = Fit(m, *v)
	}
	return v.Zoom, v.Zoom * Aspect(m, v.Orientation)
}

// ToPlane maps a viewport position (pixels from the top-left corner; pixel
// i covers [i, i+1)) to the plane position under it.
func (v View) ToPlane(m *loader.Meta, x, y float64) Point {
	zc, zr := v.zooms(m)
	dc, dr := v.planeDelta(x-float64(v.Width)/2, y-float64(v.Height)/2)
	return Point{Col: v.Center.Col + dc/zc, Row: v.Center.Row + dr/zr}
}

// ToScreen maps a plane position to the viewport position over it.
func (v View) ToScreen(m *loader.Meta, p Point) (x, y float64) {
	zc, zr := v.zooms(m)
	dx, dy := v.screenDelta((p.Col-v.Center.Col)*zc, (p.Row-v.Center.Row)*zr)
	return dx + float64(v.Width)/2, dy + float64(v.Height)/2
}

// Zoom limits: ZoomAbout keeps the zoom within them.
const (
	MinZoom = 1.0 / 65536
	MaxZoom = 4096
)

// ZoomAbout returns the view magnified by factor about the viewport
// position (x, y): the data under that point stays under it.
func (v View) ZoomAbout(m *loader.Meta, x, y, factor float64) View {
	p := v.ToPlane(m, x, y)
	v.zooms(m)
	if factor > 0 && !math.IsInf(factor, 0) {
		v.Zoom = max(MinZoom, min(MaxZoom, v.Zoom*factor))
	}
	zc, zr := v.zooms(m)
	dc, dr := v.planeDelta(x-float64(v.Width)/2, y-float64(v.Height)/2)
	v.Center = Point{Col: p.Col - dc/zc, Row: p.Row - dr/zr}
	return v
}

// Pan returns the view with the picture moved by (dx, dy) viewport pixels,
// as a drag moves it.
func (v View) Pan(m *loader.Meta, dx, dy float64) View {
	zc, zr := v.zooms(m)
	dc, dr := v.planeDelta(dx, dy)
	v.Center.Col -= dc / zc
	v.Center.Row -= dr / zr
	return v
}

// Location describes the data under a viewport position.
type Location struct {
	// Inside is true when the position is on the plane's data.
	Inside bool
	// Col and Row are the level-0 sample indices on the plane's column and
	// row axes, whose letters are ColAxis and RowAxis.
	Col, Row         int
	ColAxis, RowAxis byte
	// ColPhys and RowPhys are the physical positions of that sample's
	// centre (translation + index × spacing), in ColUnit and RowUnit ("" if
	// unknown).
	ColPhys, RowPhys float64
	ColUnit, RowUnit string
}

// Locate returns what lies under the viewport position (x, y): the sample
// and its physical position, for a hover read-out.
func (v View) Locate(m *loader.Meta, x, y float64) Location {
	p := v.ToPlane(m, x, y)
	row, col, _ := v.Orientation.Axes()
	loc := Location{
		Col: int(math.Floor(p.Col)), Row: int(math.Floor(p.Row)),
		ColAxis: col, RowAxis: row,
	}
	cols, rows := PlaneSize(m, v.Orientation)
	loc.Inside = p.Col >= 0 && p.Row >= 0 && loc.Col < cols && loc.Row < rows
	loc.ColPhys, loc.ColUnit = physical(m, col, loc.Col)
	loc.RowPhys, loc.RowUnit = physical(m, row, loc.Row)
	return loc
}

// physical is the physical position of level-0 sample i on axis a.
func physical(m *loader.Meta, a byte, i int) (float64, string) {
	k := m.AxisIndex(a)
	if k < 0 {
		return float64(i), ""
	}
	l := &m.Levels[0]
	return l.Translation[k] + float64(i)*l.Scale[k], m.Units[k]
}
