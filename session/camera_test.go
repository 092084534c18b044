package session

import (
	"math"
	"math/rand/v2"
	"testing"

	"vastview/loader"
	"vastview/render/oblique"
)

func near(a, b oblique.Vec, tol float64) bool {
	for k := range a {
		if math.Abs(a[k]-b[k]) > tol {
			return false
		}
	}
	return true
}

func screenAxes(c Camera) (u, v, w oblique.Vec) {
	u = oblique.Vec(c.Turn.Apply([3]float64{0, 0, 1}))
	v = oblique.Vec(c.Turn.Apply([3]float64{0, 1, 0}))
	return u, v, u.Cross(v)
}

// A drag from the ball's centre to its rim turns the volume a quarter
// turn, the front coming to the side the pointer went.
func TestArcballQuarterTurns(t *testing.T) {
	const w, h = 400, 300
	for _, tc := range []struct {
		name       string
		x1, y1     float64
		u, v, axis oblique.Vec
	}{
		// Right: the front (−Z) comes to the right, the right (+X) goes to the back.
		{"right", w/2 + h/2, h / 2, oblique.Vec{-1, 0, 0}, oblique.Vec{0, 1, 0}, oblique.Vec{0, 0, 1}},
		// Down: the front comes down, the bottom (+Y) goes to the back.
		{"down", w / 2, h, oblique.Vec{0, 0, 1}, oblique.Vec{-1, 0, 0}, oblique.Vec{0, 1, 0}},
		// Left: the front comes to the left.
		{"left", w/2 - h/2, h / 2, oblique.Vec{1, 0, 0}, oblique.Vec{0, 1, 0}, oblique.Vec{0, 0, -1}},
	} {
		c := Camera{}.Arcball(w/2, h/2, tc.x1, tc.y1, w, h)
		u, v, ww := screenAxes(c)
		if !near(u, tc.u, 1e-12) || !near(v, tc.v, 1e-12) || !near(ww, tc.axis, 1e-12) {
			t.Errorf("%s: u %v v %v w %v, want %v %v %v", tc.name, u, v, ww, tc.u, tc.v, tc.axis)
		}
	}
}

// The point of the ball under the pointer where a drag starts is under
// the pointer where it ends, from any camera.
func TestArcballFollowsPointer(t *testing.T) {
	const w, h = 640, 480
	rng := rand.New(rand.NewPCG(1, 2))
	c := Camera{}
	for range 200 {
		x0, y0 := 160+rng.Float64()*320, 80+rng.Float64()*320
		x1, y1 := x0+rng.Float64()*80-40, y0+rng.Float64()*80-40
		p0, p1 := sphere(x0, y0, w, h), sphere(x1, y1, w, h)
		if p0[2] == 0 || p1[2] == 0 {
			continue
		}
		u, v, ww := screenAxes(c)
		var world oblique.Vec // the ball's point under (x0, y0), in physical space
		for k := range world {
			world[k] = p0[0]*u[k] + p0[1]*v[k] + p0[2]*ww[k]
		}
		c = c.Arcball(x0, y0, x1, y1, w, h)
		u, v, ww = screenAxes(c)
		got := oblique.Vec{world.Dot(u), world.Dot(v), world.Dot(ww)}
		if !near(got, oblique.Vec(p1), 1e-9) {
			t.Fatalf("drag (%v,%v)→(%v,%v): the point is at %v on screen, want %v", x0, y0, x1, y1, got, p1)
		}
	}
}

// The degrees Turns gives, turned back into axes as `--rotate` does, are
// the camera's axes.
func TestCameraTurnsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	c := Camera{}
	cams := []Camera{c, c.Arcball(200, 150, 350, 150, 400, 300), c.Arcball(200, 150, 200, 300, 400, 300)}
	for range 100 {
		c = c.Arcball(200, 150, 200+rng.Float64()*300-150, 150+rng.Float64()*300-150, 400, 300)
		cams = append(cams, c)
	}
	for _, c := range cams {
		u, v, _ := oblique.Basis(c.Turns())
		cu, cv, _ := screenAxes(c)
		if !near(u, cu, 1e-9) || !near(v, cv, 1e-9) {
			t.Fatalf("turns %v give u %v v %v, want %v %v", c.Turns(), u, v, cu, cv)
		}
	}
}

// The zero camera looks at the volume's centre along +Z as XY is seen,
// the box's diagonal fitting the smaller side; zoom, pan and orbit move
// it as the picture should.
func TestCameraPlane(t *testing.T) {
	m := loader.NewMeta("mem", "ZYX", []int{11, 40, 60}, loader.Uint8, []int{11, 40, 60}, []float64{4, 1, 1}, nil)
	var c Camera
	p := c.Plane(m, 300, 200)
	diag := math.Sqrt(44*44 + 40*40 + 60*60)
	if !near(p.Center, oblique.Vec{20, 19.5, 29.5}, 1e-12) || p.U != (oblique.Vec{0, 0, 1}) || p.V != (oblique.Vec{0, 1, 0}) ||
		math.Abs(p.Pixel-diag/200) > 1e-12 || p.W != 300 || p.H != 200 {
		t.Fatalf("plane %+v", p)
	}
	if z := c.Zoomed(2).Plane(m, 300, 200); math.Abs(z.Pixel-p.Pixel/2) > 1e-12 {
		t.Errorf("zoom 2: pixel %v, want %v", z.Pixel, p.Pixel/2)
	}
	// A drag right by 10 pixels moves the data right: the centre goes left.
	pc := c.Panned(m, 300, 200, 10, 0).Plane(m, 300, 200)
	if !near(pc.Center, oblique.Vec{20, 19.5, 29.5 - 10*p.Pixel}, 1e-9) {
		t.Errorf("pan: centre %v", pc.Center)
	}
	u, _, w := screenAxes(c.Orbit(90))
	if !near(u, oblique.Vec{-1, 0, 0}, 1e-12) || !near(w, oblique.Vec{0, 0, 1}, 1e-12) {
		t.Errorf("orbit 90: u %v w %v", u, w)
	}
}
