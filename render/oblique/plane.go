// Package oblique samples planes of any orientation through a
// multi-resolution volume: it picks the level whose samples best match the
// output's pixel in physical units, lists the chunks the plane crosses
// (nearest its centre first), and samples from the chunks in memory with
// nearest or trilinear interpolation, drawing what is not in memory yet
// from coarser levels. It never waits for I/O.
//
// Positions are physical, in the spacing's unit, with a level-0 sample's
// centre at index × spacing; vectors are ordered Z, Y, X.
package oblique

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"vastview/loader"
)

// Vec is a position or direction in physical space, ordered Z, Y, X.
type Vec [3]float64

// The positions of the axes in a Vec.
const (
	Z = iota
	Y
	X
)

// Add returns a + b.
func (a Vec) Add(b Vec) Vec { return Vec{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }

// Scale returns s·a.
func (a Vec) Scale(s float64) Vec { return Vec{s * a[0], s * a[1], s * a[2]} }

// Dot returns a · b.
func (a Vec) Dot(b Vec) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

// Cross returns a × b in the right-handed frame whose axes are x, y, z.
func (a Vec) Cross(b Vec) Vec {
	// In x, y, z order: (ay bz − az by, az bx − ax bz, ax by − ay bx).
	x := a[Y]*b[Z] - a[Z]*b[Y]
	y := a[Z]*b[X] - a[X]*b[Z]
	z := a[X]*b[Y] - a[Y]*b[X]
	return Vec{z, y, x}
}

// Turn is a rotation by Deg degrees (right-handed) about the physical
// axis Axis ('x', 'y' or 'z').
type Turn struct {
	Axis byte
	Deg  float64
}

// ParseRotate reads "AXIS:DEG[,AXIS:DEG...]", as plane --rotate takes it.
func ParseRotate(s string) ([]Turn, error) {
	var ts []Turn
	for _, part := range strings.Split(s, ",") {
		a, d, ok := strings.Cut(strings.TrimSpace(part), ":")
		a = strings.ToLower(strings.TrimSpace(a))
		if !ok || len(a) != 1 || strings.IndexByte("xyz", a[0]) < 0 {
			return nil, fmt.Errorf("rotation %q: want AXIS:DEG with AXIS x, y or z", part)
		}
		deg, err := strconv.ParseFloat(strings.TrimSpace(d), 64)
		if err != nil || math.IsNaN(deg) || math.IsInf(deg, 0) {
			return nil, fmt.Errorf("rotation %q: %q is not a number of degrees", part, d)
		}
		ts = append(ts, Turn{a[0], deg})
	}
	return ts, nil
}

// Rotate returns a turned by t.
func (t Turn) Rotate(a Vec) Vec {
	th := t.Deg * math.Pi / 180
	c, s := tidy(math.Cos(th)), tidy(math.Sin(th))
	switch t.Axis {
	case 'x', 'X': // y -> z
		return Vec{s*a[Y] + c*a[Z], c*a[Y] - s*a[Z], a[X]}
	case 'y', 'Y': // z -> x
		return Vec{c*a[Z] - s*a[X], a[Y], s*a[Z] + c*a[X]}
	case 'z', 'Z': // x -> y
		return Vec{a[Z], s*a[X] + c*a[Y], c*a[X] - s*a[Y]}
	}
	return a
}

// tidy rounds a cosine or sine within 1e-12 of 0 or ±1 to it, so that
// quarter turns are exact.
func tidy(c float64) float64 {
	switch {
	case math.Abs(c) < 1e-12:
		return 0
	case math.Abs(c-1) < 1e-12:
		return 1
	case math.Abs(c+1) < 1e-12:
		return -1
	}
	return c
}

// Basis returns the plane's column direction u and row direction v, +X and
// +Y turned by each of ts in order, and its normal w = u × v.
func Basis(ts []Turn) (u, v, w Vec) {
	u, v = Vec{0, 0, 1}, Vec{0, 1, 0}
	for _, t := range ts {
		u, v = t.Rotate(u), t.Rotate(v)
	}
	return u, v, u.Cross(v)
}

// Plane is a grid of W×H samples in physical space: sample (i, j) (row i,
// column j) lies at Center + (j − (W−1)/2)·Pixel·U + (i − (H−1)/2)·Pixel·V.
// T and C are the indices on the time and channel axes, if the data has
// them.
type Plane struct {
	Center Vec
	U, V   Vec
	Pixel  float64
	W, H   int
	T, C   int
}

// At returns the physical position of sample (i, j).
func (p *Plane) At(i, j float64) Vec {
	a := (j - float64(p.W-1)/2) * p.Pixel
	b := (i - float64(p.H-1)/2) * p.Pixel
	var q Vec
	for k := range q {
		q[k] = p.Center[k] + a*p.U[k] + b*p.V[k]
	}
	return q
}

// Spacing returns level 0's spacing along Z, Y and X: 1 for an axis the
// data lacks, and 1 on every axis when one is not a positive finite number.
func Spacing(m *loader.Meta) Vec {
	s := Vec{1, 1, 1}
	l := &m.Levels[0]
	for k, a := range []byte("ZYX") {
		i := m.AxisIndex(a)
		if i < 0 {
			continue
		}
		v := l.Scale[i]
		if !(v > 0) || math.IsInf(v, 0) {
			return Vec{1, 1, 1}
		}
		s[k] = v
	}
	return s
}

// Extent returns the number of level-0 samples along Z, Y and X (1 for an
// axis the data lacks).
func Extent(m *loader.Meta) [3]int {
	return [3]int{m.Size('Z'), m.Size('Y'), m.Size('X')}
}

// levelGeom is level k's geometry along Z, Y and X: its sample q (a
// continuous index) lies at physical position q·scale − offset, where the
// physical frame is level 0's with sample centres at index × spacing.
type levelGeom struct {
	n, chunk [3]int
	scale    Vec
	offset   Vec // level 0's translation minus level k's: q = (P + offset)/scale
}

// geometry returns level k's geometry. Levels whose scale is unusable are
// taken to cover the same extent as level 0.
func geometry(m *loader.Meta, k int) levelGeom {
	var g levelGeom
	s0 := Spacing(m)
	l0, lk := &m.Levels[0], &m.Levels[k]
	for a, c := range []byte("ZYX") {
		i := m.AxisIndex(c)
		if i < 0 {
			g.n[a], g.chunk[a], g.scale[a] = 1, 1, 1
			continue
		}
		g.n[a], g.chunk[a] = lk.Shape[i], max(1, lk.Chunk[i])
		sk := lk.Scale[i]
		var t0, tk float64
		if i < len(l0.Translation) && i < len(lk.Translation) {
			t0, tk = l0.Translation[i], lk.Translation[i]
		}
		ok := sk > 0 && !math.IsInf(sk, 0) && l0.Scale[i] > 0 && !math.IsInf(l0.Scale[i], 0) &&
			!math.IsNaN(t0-tk) && !math.IsInf(t0-tk, 0)
		if k == 0 || !ok {
			// Level 0 (or no usable geometry): mean binning by the ratio of shapes.
			f := float64(l0.Shape[i]) / float64(max(1, lk.Shape[i]))
			g.scale[a] = s0[a] * f
			g.offset[a] = -(f - 1) / 2 * s0[a]
			continue
		}
		// Level k's scale relative to level 0's, applied to the spacing in use.
		g.scale[a] = s0[a] * sk / l0.Scale[i]
		g.offset[a] = (t0 - tk) * s0[a] / l0.Scale[i]
	}
	return g
}

// footprint returns the physical length along unit direction d that one
// level-k sample spans: 1/|d/scale|.
func (g *levelGeom) footprint(d Vec) float64 {
	var s float64
	for a := range d {
		x := d[a] / g.scale[a]
		if g.n[a] > 1 {
			s += x * x
		}
	}
	if s == 0 {
		return 0
	}
	return 1 / math.Sqrt(s)
}

// ChooseLevel returns the coarsest level whose samples are still no larger
// than the plane's pixel along both of its directions (a level's sample
// measured along a direction d is 1/|d/scale|, scale per axis in physical
// units, so anisotropic spacing counts); level 0 when even its samples are
// larger. Of levels alike along the plane, the finest is taken.
func ChooseLevel(m *loader.Meta, p Plane) int {
	best := 0
	g := geometry(m, 0)
	bu, bv := g.footprint(p.U), g.footprint(p.V)
	const tol = 1 + 1e-6
	for k := 1; k < len(m.Levels); k++ {
		g := geometry(m, k)
		fu, fv := g.footprint(p.U), g.footprint(p.V)
		if fu > p.Pixel*tol || fv > p.Pixel*tol {
			break
		}
		if fu > bu*tol || fv > bv*tol {
			best, bu, bv = k, fu, fv
		}
	}
	return best
}

// LevelScale returns how level k of m maps physical positions to its
// samples, as a Sampler maps them: position P (Z, Y, X) lies at the
// continuous index (P + offset) / scale on each axis.
func LevelScale(m *loader.Meta, k int) (scale, offset Vec) {
	g := geometry(m, k)
	return g.scale, g.offset
}
