package render

import "math"

// Turn is a rotation of the plane a view shows, about the view's centre,
// in physical space (index × spacing). It holds the rotation matrix minus
// the identity, so that the zero Turn is no rotation; the matrix acts on
// vectors ordered Z, Y, X.
type Turn [9]float64

// Matrix returns the rotation matrix, rows and columns ordered Z, Y, X.
func (t Turn) Matrix() (r [3][3]float64) {
	for i := range 3 {
		for j := range 3 {
			r[i][j] = t[3*i+j]
		}
		r[i][i]++
	}
	return r
}

// TurnOf returns the Turn of rotation matrix r.
func TurnOf(r [3][3]float64) (t Turn) {
	for i := range 3 {
		for j := range 3 {
			t[3*i+j] = r[i][j]
		}
		t[4*i]--
	}
	return t
}

// Apply returns r·a for the Turn's matrix r.
func (t Turn) Apply(a [3]float64) (b [3]float64) {
	r := t.Matrix()
	for i := range 3 {
		b[i] = r[i][0]*a[0] + r[i][1]*a[1] + r[i][2]*a[2]
	}
	return b
}

// About returns the rotation by deg degrees (right-handed) about the unit
// vector axis (Z, Y, X order) followed by t, kept orthonormal: turning an
// already turned plane about the screen's axes.
func (t Turn) About(axis [3]float64, deg float64) Turn {
	// Rodrigues' formula in x, y, z order, then back to Z, Y, X.
	x, y, z := axis[2], axis[1], axis[0]
	th := deg * math.Pi / 180
	c, s := math.Cos(th), math.Sin(th)
	k := 1 - c
	rxyz := [3][3]float64{
		{c + x*x*k, x*y*k - z*s, x*z*k + y*s},
		{y*x*k + z*s, c + y*y*k, y*z*k - x*s},
		{z*x*k - y*s, z*y*k + x*s, c + z*z*k},
	}
	var r [3][3]float64 // Z, Y, X order
	for i := range 3 {
		for j := range 3 {
			r[i][j] = rxyz[2-i][2-j]
		}
	}
	old := t.Matrix()
	var out [3][3]float64
	for i := range 3 {
		for j := range 3 {
			out[i][j] = r[i][0]*old[0][j] + r[i][1]*old[1][j] + r[i][2]*old[2][j]
		}
	}
	return TurnOf(orthonormal(out))
}

// orthonormal makes the columns of r orthonormal again (Gram–Schmidt),
// against the rounding of many small turns.
func orthonormal(r [3][3]float64) [3][3]float64 {
	col := func(j int) [3]float64 { return [3]float64{r[0][j], r[1][j], r[2][j]} }
	dot := func(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
	norm := func(a [3]float64) [3]float64 {
		n := math.Sqrt(dot(a, a))
		return [3]float64{a[0] / n, a[1] / n, a[2] / n}
	}
	a := norm(col(0))
	b := col(1)
	d := dot(a, b)
	b = norm([3]float64{b[0] - d*a[0], b[1] - d*a[1], b[2] - d*a[2]})
	// The third column, the image of X, is (image of Y) × (image of Z),
	// computed in x, y, z order, so that det r = 1.
	ax, ay, az := b[2], b[1], b[0]
	bx, by, bz := a[2], a[1], a[0]
	cx, cy, cz := ay*bz-az*by, az*bx-ax*bz, ax*by-ay*bx
	c := [3]float64{cz, cy, cx}
	for i := range 3 {
		r[i][0], r[i][1], r[i][2] = a[i], b[i], c[i]
	}
	return r
}
