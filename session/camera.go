package session

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"vastview/loader"
	"vastview/render"
	"vastview/render/oblique"
)

// Camera is the 3-D view's camera: orthographic, one ray per screen pixel
// along the screen's depth axis, through an oblique plane (see
// Camera.Plane) that shares the oblique planes' machinery, so that
// `vastview render` of the arguments Camera.Args gives draws what the
// window shows. The zero Camera looks along +Z at the whole volume, as
// XY is seen. A Camera is a value: safe to copy and share.
type Camera struct {
	// Turn is the rotation of the screen's axes in physical space: the
	// screen's right, down and depth directions are Turn applied to +X,
	// +Y and +Z.
	Turn render.Turn
	// Zoom magnifies: at 1 (or 0) the volume's diagonal fits the
	// viewport's smaller side whatever the rotation.
	Zoom float64
	// Center is the point the view is centred on, in level-0 sample
	// indices Z, Y, X; Centered false means the volume's centre.
	Center   [3]float64
	Centered bool
}

// frontCamera is the camera a file's 3-D view starts with: along Z at
// the whole volume, its XY plane the way the 2-D view shows it — mirrored
// as the display convention mirrors that plane, so that an anatomical
// volume is seen as its axial plane is (turned half a turn, never
// mirrored: a camera's axes keep their handedness).
func frontCamera(m *loader.Meta, c Convention) Camera {
	f := Flips(m, c)[render.XY]
	sx, sy := 1.0, 1.0
	if f.Col {
		sx = -1
	}
	if f.Row {
		sy = -1
	}
	if !f.Swap {
		if sx == 1 && sy == 1 {
			return Camera{}
		}
		// Rows and columns Z, Y, X: right = sx·X, down = sy·Y, depth their cross product.
		return Camera{Turn: render.TurnOf([3][3]float64{{sx * sy, 0, 0}, {0, sy, 0}, {0, 0, sx}})}
	}
	// Swapped: right = sy·Y, down = sx·X, depth their cross product −sx·sy·Z.
	return Camera{Turn: render.TurnOf([3][3]float64{{-sx * sy, 0, 0}, {0, 0, sy}, {0, sx, 0}})}
}

// Turns is the camera's rotation as `--rotate` takes it: turns about x,
// then y, then z (Euler angles), which oblique.Basis turns back into the
// screen's axes. The camera's plane is built from them, so that the
// degrees printed (exactly, see Args) give the same plane.
func (c Camera) Turns() []oblique.Turn {
	u := oblique.Vec(c.Turn.Apply([3]float64{0, 0, 1}))
	v := oblique.Vec(c.Turn.Apply([3]float64{0, 1, 0}))
	w := u.Cross(v)
	// R = Rz(γ)·Ry(β)·Rx(α) in x, y, z order; u = R·x̂, v = R·ŷ, w = R·ẑ.
	deg := 180 / math.Pi
	sb := max(-1, min(1, -u[oblique.Z]))
	beta := math.Asin(sb)
	var alpha, gamma float64
	if math.Abs(sb) < 1-1e-12 {
		alpha = math.Atan2(v[oblique.Z], w[oblique.Z])
		gamma = math.Atan2(u[oblique.Y], u[oblique.X])
	} else { // gimbal lock: all of the turn about z
		gamma = math.Atan2(-v[oblique.X], v[oblique.Y])
	}
	return []oblique.Turn{{Axis: 'x', Deg: alpha * deg}, {Axis: 'y', Deg: beta * deg}, {Axis: 'z', Deg: gamma * deg}}
}

// center is the camera's centre in level-0 sample indices.
func (c Camera) center(m *loader.Meta) [3]float64 {
	if c.Centered {
		return c.Center
	}
	n := oblique.Extent(m)
	return [3]float64{float64(n[0]-1) / 2, float64(n[1]-1) / 2, float64(n[2]-1) / 2}
}

// zoom is the camera's magnification (1 when unset).
func (c Camera) zoom() float64 {
	if !(c.Zoom > 0) || math.IsInf(c.Zoom, 0) {
		return 1
	}
	return c.Zoom
}

// fitPixel is the pixel, in physical units, at which the diagonal of
// data m's box fits the smaller side of a w × h viewport.
func fitPixel(m *loader.Meta, w, h int) float64 {
	sp, n := oblique.Spacing(m), oblique.Extent(m)
	var d float64
	for a := range sp {
		e := float64(n[a]) * sp[a]
		d += e * e
	}
	return math.Sqrt(d) / float64(max(1, min(w, h)))
}

// Plane is the plane the camera casts its rays through in a w × h
// viewport of data m: its centre the camera's, its axes the screen's, a
// pixel of fitPixel/Zoom; rays go along U × V.
func (c Camera) Plane(m *loader.Meta, w, h int) oblique.Plane {
	p := oblique.Plane{Pixel: fitPixel(m, w, h) / c.zoom(), W: max(1, w), H: max(1, h)}
	p.U, p.V, _ = oblique.Basis(c.Turns())
	sp, idx := oblique.Spacing(m), c.center(m)
	for a := range idx {
		p.Center[a] = idx[a] * sp[a]
	}
	return p
}

// Args is the camera in a w × h viewport of data m as the options of
// `vastview render` (--rotate, --center, --pixel, --size), every number
// printed so that it reads back exactly.
func (c Camera) Args(m *loader.Meta, w, h int) []string {
	p := c.Plane(m, w, h)
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	var rot []string
	for _, t := range c.Turns() {
		rot = append(rot, string(t.Axis)+":"+f(t.Deg))
	}
	idx := c.center(m)
	return []string{"--rotate", strings.Join(rot, ","), "--center", f(idx[0]) + "," + f(idx[1]) + "," + f(idx[2]),
		"--pixel", f(p.Pixel), "--size", fmt.Sprintf("%d,%d", p.H, p.W)}
}

// sphere maps viewport position (x, y) of a w × h viewport onto the
// arcball, the unit sphere over the viewport's smaller side, in screen
// coordinates (right, down, into the screen): the half toward the viewer;
// a position beyond the ball is on its rim.
func sphere(x, y float64, w, h int) [3]float64 {
	r := float64(max(1, min(w, h))) / 2
	px, py := (x-float64(w)/2)/r, (y-float64(h)/2)/r
	d := px*px + py*py
	if d >= 1 {
		n := math.Sqrt(d)
		return [3]float64{px / n, py / n, 0}
	}
	return [3]float64{px, py, -math.Sqrt(1 - d)}
}

// Arcball is the camera after a drag from viewport position (x0, y0) to
// (x1, y1) of a w × h viewport: the volume turns about its centre as a
// trackball under the pointer does, the point of the ball under (x0, y0)
// coming under (x1, y1).
func (c Camera) Arcball(x0, y0, x1, y1 float64, w, h int) Camera {
	p0, p1 := sphere(x0, y0, w, h), sphere(x1, y1, w, h)
	a := [3]float64{p0[1]*p1[2] - p0[2]*p1[1], p0[2]*p1[0] - p0[0]*p1[2], p0[0]*p1[1] - p0[1]*p1[0]}
	n := math.Sqrt(a[0]*a[0] + a[1]*a[1] + a[2]*a[2])
	dot := max(-1, min(1, p0[0]*p1[0]+p0[1]*p1[1]+p0[2]*p1[2]))
	if n < 1e-12 {
		return c
	}
	th := math.Atan2(n, dot) * 180 / math.Pi
	// The axis in physical space: screen axes u, v, w are Turn's images of X, Y, Z.
	u, v, wv := c.Turn.Apply([3]float64{0, 0, 1}), c.Turn.Apply([3]float64{0, 1, 0}), c.Turn.Apply([3]float64{1, 0, 0})
	var ax [3]float64
	for k := range ax {
		ax[k] = (a[0]*u[k] + a[1]*v[k] + a[2]*wv[k]) / n
	}
	// Turning the volume by θ about the axis turns the screen's axes in
	// it by −θ.
	c.Turn = c.Turn.About(ax, -th)
	return c
}

// Zoomed is the camera magnified by factor about the view's centre.
func (c Camera) Zoomed(factor float64) Camera {
	z := c.zoom() * factor
	if z > 0 && !math.IsInf(z, 0) {
		c.Zoom = max(1.0/64, min(4096, z))
	}
	return c
}

// Panned is the camera of data m in a w × h viewport after a drag by
// (dx, dy) pixels: the picture follows the pointer.
func (c Camera) Panned(m *loader.Meta, w, h int, dx, dy float64) Camera {
	p := c.Plane(m, w, h)
	sp, idx := oblique.Spacing(m), c.center(m)
	for a := range idx {
		idx[a] -= (dx*p.U[a] + dy*p.V[a]) * p.Pixel / sp[a]
	}
	c.Center, c.Centered = idx, true
	return c
}

// Orbit is the camera after the volume turned by deg degrees about the
// screen's vertical axis through the view's centre, its front going right
// as under a drag to the right: a turntable's step.
func (c Camera) Orbit(deg float64) Camera {
	c.Turn = c.Turn.About(c.Turn.Apply([3]float64{0, 1, 0}), deg)
	return c
}

// valid reports whether the camera's numbers are usable: finite, its
// Turn a rotation.
func (c Camera) valid() bool {
	if rememberedTurn(c.Turn[:]) != c.Turn {
		return false
	}
	for _, x := range append(c.Center[:], c.Zoom) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
