package cli

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"path/filepath"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
	"vastview/render"
	"vastview/render/oblique"
	"vastview/session"
)

// rotateOfTurn writes turn t as --rotate x:C,y:B,z:A, its Euler angles:
// R = Rz(A)·Ry(B)·Rx(C).
func rotateOfTurn(t render.Turn) string {
	r := t.Matrix()
	var m [3][3]float64 // x, y, z order
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			m[2-i][2-j] = r[i][j]
		}
	}
	deg := func(r float64) float64 { return r * 180 / math.Pi }
	b := -math.Asin(max(-1, min(1, m[2][0])))
	a := math.Atan2(m[1][0], m[0][0])
	c := math.Atan2(m[2][1], m[2][2])
	return fmt.Sprintf("x:%.15g,y:%.15g,z:%.15g", deg(c), deg(b), deg(a))
}

// panelRotate is the --rotate of the plane of the four panels' panel
// (xy, xz, yz) of a view turned by t: the XZ panel's columns and rows are
// the turned X and Z (X and Y turned first by 90° about x), the YZ
// panel's the turned Y and Z (then by 90° about z).
var panelRotate = map[string]string{"xy": "", "xz": "x:90,", "yz": "x:90,z:90,"}

// fourFrames is a session showing the four panels of vol.tif, w×h each
// (with the 2-pixel gutter between), and a function returning the next
// complete frame whose active panel is the one named, with a plane.
func fourFrames(t *testing.T, path string, w, h int) (*session.Session, func(panel string) *session.Frame) {
	t.Helper()
	s := openView(t, path, 2*w+2, 2*h+2)
	s.Rune('4')
	next := func(panel string) *session.Frame {
		t.Helper()
		f := s.frame("the turned "+panel+" panel", func(f *session.Frame) bool {
			// The view as it is now, not one on the way to it (a frame
			// asked for before a turn or a click may still come).
			cur := s.View()
			_, ok := f.Plane()
			return ok && f.Panel == panel && f.View.Turn == cur.Turn && f.View.Z == cur.Z && f.View.Y == cur.Y && f.View.X == cur.X
		})
		// The picture, kept: the session draws into it again two frames
		// later.
		img := *f.Img
		img.Pix = append([]uint8(nil), f.Img.Pix...)
		f.Img = &img
		return f
	}
	return s.Session, next
}

// panelOrigin is where panel i of the four (xy, xz, yz, max) of w×h
// pixels each lies in the picture.
func panelOrigin(i, w, h int) image.Point { return image.Pt((i%2)*(w+2), (i/2)*(h+2)) }

// TestFourPanelsTurned: with the view turned (W, D, Q) the four panels'
// XY, XZ and YZ panels show the turned frame's u-v, u-w and v-w planes
// through one position, each, pixel for pixel, the picture `plane
// --rotate` draws of its plane (but the crosshair and the panel's name):
// the XY panel as the view's turn, the XZ panel turned first by x:90,
// the YZ panel by x:90,z:90. The three planes are at right angles and
// cross at the position.
func TestFourPanelsTurned(t *testing.T) {
	testtool.RequirePython(t, "numpy", "tifffile", "zarr")
	dir := t.TempDir()
	testtool.RunPython(t, obliqueVolumes, dir)
	path := filepath.Join(dir, "vol.tif")
	const w, h = 160, 120
	s, next := fourFrames(t, path, w, h)
	s.Hover(w/2, h/2, true)
	for _, r := range "wdq" {
		s.Rune(r)
	}
	names := []string{"xy", "xz", "yz"}
	frames := map[string]*session.Frame{}
	planes := map[string]oblique.Plane{}
	for i, name := range names {
		o := panelOrigin(i, w, h)
		s.Hover(float64(o.X+w/2), float64(o.Y+h/2), true)
		f := next(name)
		frames[name] = f
		planes[name], _ = f.Plane()
		if f.View.Turn == (render.Turn{}) {
			t.Fatalf("panel %s: the view is not turned", name)
		}
	}
	m := s.Meta()
	turn := frames["xy"].View.Turn
	// At right angles, all through one point.
	pxy, pxz, pyz := planes["xy"], planes["xz"], planes["yz"]
	for _, c := range []struct {
		name string
		a, b oblique.Vec
	}{{"xz u = xy u", pxz.U, pxy.U}, {"yz u = xy v", pyz.U, pxy.V}, {"xz v = yz v", pxz.V, pyz.V}} {
		for k := range c.a {
			if math.Abs(c.a[k]-c.b[k]) > 1e-12 {
				t.Fatalf("%s: %v, %v", c.name, c.a, c.b)
			}
		}
	}
	if d := pxz.V.Dot(pxy.U.Cross(pxy.V)); math.Abs(d-1) > 1e-12 {
		t.Fatalf("the XZ panel's rows are not along the XY plane's normal: w·v = %v", d)
	}
	// The point where the three planes cross lies on each.
	sp := oblique.Spacing(m)
	for _, name := range names {
		f := frames[name]
		pos := oblique.Vec{float64(f.View.Z) * sp[0], float64(f.View.Y) * sp[1], float64(f.View.X) * sp[2]}
		pl := planes[name]
		if d := pos.Add(pl.Center.Scale(-1)).Dot(pl.U.Cross(pl.V)); math.Abs(d) > 1e-9 {
			t.Fatalf("panel %s's plane is %v away from the position", name, d)
		}
	}
	// Each panel's picture, in the frame whose active panel is the XY one
	// (the others drawn as the panels beside it), is plane --rotate's.
	f := frames["xy"]
	for i, name := range names {
		pl := planes[name]
		rot := panelRotate[name] + rotateOfTurn(turn)
		ts, err := oblique.ParseRotate(rot)
		if err != nil {
			t.Fatal(err)
		}
		u, v, _ := oblique.Basis(ts)
		for k := range u {
			if math.Abs(u[k]-pl.U[k]) > 1e-9 || math.Abs(v[k]-pl.V[k]) > 1e-9 {
				t.Fatalf("panel %s: --rotate %s makes u %v v %v, the panel's plane %v %v", name, rot, u, v, pl.U, pl.V)
			}
		}
		level := oblique.ChooseLevel(m, pl)
		args := []string{"plane", path, "--rotate", rot, "--interp", "nearest",
			"--center", fmt.Sprintf("%.17g,%.17g,%.17g", pl.Center[0]/sp[0], pl.Center[1]/sp[1], pl.Center[2]/sp[2]),
			"--pixel", fmt.Sprintf("%.17g", pl.Pixel), "--size", fmt.Sprintf("%d,%d", pl.H, pl.W),
			"--level", fmt.Sprint(level), "--level-range", fmt.Sprintf("%v,%v", f.View.Lo, f.View.Hi)}
		if f.View.Colormap != "" {
			args = append(args, "--colormap", f.View.Colormap)
		}
		raw, png := filepath.Join(dir, name+".raw"), filepath.Join(dir, name+".png")
		mustRun(t, append(args, "--out", raw)...)
		mustRun(t, append(args, "--out", png)...)
		samples, want := readFile(t, raw), testtool.ReadPNG(t, png)
		o := panelOrigin(i, w, h)
		inside, differ := 0, 0
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				got := f.Img.RGBAAt(o.X+x, o.Y+y)
				if got == (color.RGBA{R: 255, G: 210, B: 0, A: 255}) || x < 40 && y >= h-30 {
					continue // the crosshair, the panel's name
				}
				r, g, b, _ := want.At(x, y).RGBA()
				exp := [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8)}
				if loader.Uint16.At(samples, y*w+x) != 0 {
					inside++
				}
				if [3]uint8{got.R, got.G, got.B} != exp {
					differ++
					if differ < 5 {
						t.Errorf("panel %s: pixel (%d, %d) is %v, plane %v draws %v", name, x, y, got, args, exp)
					}
				}
			}
		}
		if differ > 0 {
			t.Fatalf("panel %s: %d pixels differ", name, differ)
		}
		if inside < 2000 {
			t.Fatalf("panel %s: only %d pixels on the data", name, inside)
		}
	}
}

// TestFourPanelsTurnedClick: a click in a turned panel moves the shared
// position to the point the sample clicked lies at, in 3-D: the panel
// clicked stays as it was, its crosshair through the pixel clicked; the
// other two planes slide along their normals to pass through that point.
func TestFourPanelsTurnedClick(t *testing.T) {
	testtool.RequirePython(t, "numpy", "tifffile", "zarr")
	dir := t.TempDir()
	testtool.RunPython(t, obliqueVolumes, dir)
	path := filepath.Join(dir, "vol.tif")
	const w, h = 160, 120
	s, next := fourFrames(t, path, w, h)
	s.Hover(w/2, h/2, true)
	for _, r := range "wwdq" {
		s.Rune(r)
	}
	names := []string{"xy", "xz", "yz"}
	before := map[string]oblique.Plane{}
	for i, name := range names {
		o := panelOrigin(i, w, h)
		s.Hover(float64(o.X+w/2), float64(o.Y+h/2), true)
		before[name], _ = next(name).Plane()
	}
	m := s.Meta()
	sp := oblique.Spacing(m)
	n := oblique.Extent(m)
	inside := func(p oblique.Vec) bool {
		for k := range p {
			if q := p[k] / sp[k]; !(q >= 0.5 && q <= float64(n[k])-1.5) {
				return false
			}
		}
		return true
	}
	for i, click := range []image.Point{{57, 33}, {101, 66}, {30, 57}} {
		name := names[i]
		o := panelOrigin(i, w, h)
		pl := before[name]
		// The pixel nearest the one asked for, on the same column, whose
		// sample is well inside the data.
		for d := 0; !inside(pl.At(float64(click.Y), float64(click.X))); d++ {
			if d > h {
				t.Fatalf("panel %s: no sample inside the data on column %d", name, click.X)
			}
			click.Y = (click.Y + d*(1-2*(d%2)) + h) % h
		}
		s.Click(float64(o.X+click.X)+0.5, float64(o.Y+click.Y)+0.5)
		p := pl.At(float64(click.Y), float64(click.X))
		f := next(name)
		got, _ := f.Plane()
		if !samePlane(got, pl) {
			t.Fatalf("click in panel %s moved its plane from %+v to %+v", name, pl, got)
		}
		v := s.View()
		want := [3]int{int(math.Floor(p[0]/sp[0] + 0.5)), int(math.Floor(p[1]/sp[1] + 0.5)), int(math.Floor(p[2]/sp[2] + 0.5))}
		if [3]int{v.Z, v.Y, v.X} != want {
			t.Fatalf("click in panel %s at %v: position %v, the sample nearest %v is %v", name, click, [3]int{v.Z, v.Y, v.X}, p, want)
		}
		// The crosshair of the panel clicked goes through the pixel clicked.
		cross := color.RGBA{R: 255, G: 210, B: 0, A: 255}
		if f.Img.RGBAAt(o.X+click.X, o.Y+5) != cross || f.Img.RGBAAt(o.X+5, o.Y+click.Y) != cross {
			t.Fatalf("click in panel %s at %v: no crosshair through it", name, click)
		}
		for j, other := range names {
			if other == name {
				continue
			}
			oo := panelOrigin(j, w, h)
			s.Hover(float64(oo.X+w/2), float64(oo.Y+h/2), true)
			op, _ := next(other).Plane()
			if d := p.Add(op.Center.Scale(-1)).Dot(op.U.Cross(op.V)); math.Abs(d) > 1e-9 {
				t.Fatalf("after a click in panel %s the %s plane is %v away from the point clicked", name, other, d)
			}
			before[other] = op
		}
		s.Hover(float64(o.X+w/2), float64(o.Y+h/2), true)
		before[name], _ = next(name).Plane()
	}
}

// samePlane reports whether two planes are the same up to rounding.
func samePlane(a, b oblique.Plane) bool {
	for k := 0; k < 3; k++ {
		if math.Abs(a.Center[k]-b.Center[k]) > 1e-9 || math.Abs(a.U[k]-b.U[k]) > 1e-12 || math.Abs(a.V[k]-b.V[k]) > 1e-12 {
			return false
		}
	}
	return a.Pixel == b.Pixel && a.W == b.W && a.H == b.H && a.T == b.T && a.C == b.C
}

// TestMovieOfTurnedFourPanels: a movie along Z of the four panels of a
// turned view moves their shared position plane by plane: in each frame
// the XY panel shows its plane slid along its normal to the position,
// as plane --rotate draws it.
func TestMovieOfTurnedFourPanels(t *testing.T) {
	testtool.RequirePython(t, "numpy", "tifffile", "zarr")
	dir := t.TempDir()
	testtool.RunPython(t, obliqueVolumes, dir)
	path := filepath.Join(dir, "vol.tif")
	const w, h = 160, 120
	s, next := fourFrames(t, path, w, h)
	s.Hover(w/2, h/2, true)
	for _, r := range "wdq" {
		s.Rune(r)
	}
	s.SetWindow(1000, 4000) // the movie's window, not one auto-contrast chooses again
	f := next("xy")
	pl, _ := f.Plane()
	z0 := f.View.Z
	out := filepath.Join(dir, "movie")
	done := make(chan *session.Export, 1)
	if _, err := s.ExportMovie(out, session.MovieOptions{Axis: 'Z', From: z0 - 1, To: z0 + 1}, func(e *session.Export) { done <- e }); err != nil {
		t.Fatal(err)
	}
	if e := <-done; e.Err() != nil {
		t.Fatal(e.Err())
	}
	names, _ := filepath.Glob(filepath.Join(out, "*.png"))
	if len(names) != 3 {
		t.Fatalf("frames %v", names)
	}
	sp := []float64{2.5, 1, 0.75}
	normal := pl.U.Cross(pl.V)
	for k, name := range names {
		c := pl.Center.Add(normal.Scale(float64(k-1) * sp[0] * normal[0]))
		args := []string{"plane", path, "--rotate", rotateOfTurn(f.View.Turn), "--interp", "nearest",
			"--center", fmt.Sprintf("%.17g,%.17g,%.17g", c[0]/sp[0], c[1]/sp[1], c[2]/sp[2]),
			"--pixel", fmt.Sprintf("%.17g", pl.Pixel), "--size", fmt.Sprintf("%d,%d", h, w),
			"--level", fmt.Sprint(f.Info.Level), "--level-range", fmt.Sprintf("%v,%v", f.View.Lo, f.View.Hi)}
		png := filepath.Join(dir, "m.png")
		mustRun(t, append(args, "--out", png)...)
		want, got := testtool.ReadPNG(t, png), testtool.ReadPNG(t, name)
		bad := 0
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				gr, gg, gb, _ := got.At(x, y).RGBA()
				if [3]uint32{gr >> 8, gg >> 8, gb >> 8} == [3]uint32{255, 210, 0} || x < 40 && y >= h-30 {
					continue // the crosshair, the panel's name
				}
				r, g, b, _ := want.At(x, y).RGBA()
				if [3]uint32{gr >> 8, gg >> 8, gb >> 8} != [3]uint32{r >> 8, g >> 8, b >> 8} {
					bad++
				}
			}
		}
		if bad > 0 {
			t.Errorf("frame %s: %d of %d pixels of the XY panel differ from plane %v", name, bad, w*h, args)
		}
	}
}
