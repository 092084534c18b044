package session

import (
	"image"
	"math"

	"vastview/levels"
	"vastview/loader"
	"vastview/render"
	"vastview/render/oblique"
)

// The four panels of a turned view (or one sampled trilinearly) show
// three mutually orthogonal oblique planes of the turned frame through
// the shared position: the XY panel the frame's u-v plane, the XZ panel
// its u-w plane, the YZ panel its v-w plane (u, v and w being X, Y and Z
// turned by the view's Turn). Each panel keeps its own zoom and centre
// (render.Point, in the level-0 samples of its unturned plane): its
// picture's centre lies at the volume's centre, moved onto the plane
// through the position along the plane's normal, then by the centre's
// offset from the plane's middle, in physical units along the plane's
// column and row directions. Moving the position within a panel's plane
// therefore leaves that panel's picture where it is; moving it across
// slides the plane along its normal. The fourth panel stays the maximum
// projection along Z.

// turnedPanelPlane is the plane panel view v (its orientation's plane
// turned by v.Turn, zoom and centre as above, v.Zoom > 0) of data m shows
// through position at (level-0 indices Z, Y, X; a sample's centre at its
// index).
func turnedPanelPlane(m *loader.Meta, v render.View, at oblique.Vec) oblique.Plane {
	row, col, _ := v.Orientation.Axes()
	sp, n := oblique.Spacing(m), oblique.Extent(m)
	r, c := axisSlot(row), axisSlot(col)
	var c0, r0 oblique.Vec
	c0[c], r0[r] = 1, 1
	C, R := oblique.Vec(v.Turn.Apply(c0)), oblique.Vec(v.Turn.Apply(r0)) // the plane's column and row axes
	u0, v0 := planeAxes(v)                                               // the screen's, laid as the view lays the plane
	U, V := oblique.Vec(v.Turn.Apply(u0)), oblique.Vec(v.Turn.Apply(v0))
	W := U.Cross(V)
	var p, mid oblique.Vec
	for a := range p {
		p[a], mid[a] = at[a]*sp[a], float64(n[a]-1)/2*sp[a]
	}
	o := mid.Add(W.Scale(p.Add(mid.Scale(-1)).Dot(W)))
	du := (v.Center.Col - float64(n[c])/2) * sp[c]
	dv := (v.Center.Row - float64(n[r])/2) * sp[r]
	return oblique.Plane{Center: o.Add(C.Scale(du)).Add(R.Scale(dv)), U: U, V: V, Pixel: sp[c] / v.Zoom,
		W: v.Width, H: v.Height, T: v.T, C: v.C}
}

// axisSlot is the place of spatial axis a ('Z', 'Y' or 'X') in an
// oblique.Vec.
func axisSlot(a byte) int {
	switch a {
	case 'Z':
		return oblique.Z
	case 'Y':
		return oblique.Y
	}
	return oblique.X
}

// planeScreen is where physical position p lies over plane pl's picture,
// in pixels from its top-left corner (pixel j covering [j, j+1)), when p
// is on the plane.
func planeScreen(pl *oblique.Plane, p oblique.Vec) (x, y float64) {
	d := p.Add(pl.Center.Scale(-1))
	return d.Dot(pl.U)/pl.Pixel + float64(pl.W)/2, d.Dot(pl.V)/pl.Pixel + float64(pl.H)/2
}

// position is the shared position of the panels for view v: the
// position a click chose (level-0 indices, between samples) while the
// view's indices are still the samples nearest it, else those indices.
func (o *orthoState) position(v render.View) oblique.Vec {
	if o.atFor == [3]int{v.Z, v.Y, v.X} {
		return o.at
	}
	return oblique.Vec{float64(v.Z), float64(v.Y), float64(v.X)}
}

// setPosition makes at (level-0 indices Z, Y, X) the shared position,
// the view's indices the samples nearest it.
func (o *orthoState) setPosition(m *loader.Meta, v *render.View, at oblique.Vec) {
	n := oblique.Extent(m)
	for a, c := range []byte("ZYX") {
		v.SetAt(c, clampInt(int(math.Floor(at[a]+0.5)), 0, n[a]-1))
	}
	o.at, o.atFor = at, [3]int{v.Z, v.Y, v.X}
}

// turnedLayout sets the planes of the turned panels of od (views already
// laid out) through position at of data m, fitting the panels that fit.
func (od *orthoDraw) turnedLayout(m *loader.Meta, at oblique.Vec) {
	od.turned, od.pos, od.sp = true, at, oblique.Spacing(m)
	for i := range od.panels {
		p := &od.panels[i]
		if !(p.view.Zoom > 0) {
			p.view.Zoom, p.view.Center = render.FitBox(m, p.view, p.fitLo, p.fitHi)
		}
		if i == panelProj {
			continue
		}
		p.plane = turnedPanelPlane(m, p.view, at)
		p.crossX, p.crossY = planeScreen(&p.plane, od.physical(at))
	}
}

// moveTurned moves the shared position of turned panels to i along axis
// a (a movie's step): each plane slides along its normal to it.
func (od *orthoDraw) moveTurned(a byte, i int) {
	if a != 'Z' && a != 'Y' && a != 'X' {
		return
	}
	at := od.pos
	at[axisSlot(a)] = float64(i)
	d := od.physical(at).Add(od.physical(od.pos).Scale(-1))
	od.pos = at
	for j := 0; j < panelProj; j++ {
		p := &od.panels[j]
		w := p.plane.U.Cross(p.plane.V)
		p.plane.Center = p.plane.Center.Add(w.Scale(d.Dot(w)))
		p.crossX, p.crossY = planeScreen(&p.plane, od.physical(at))
	}
}

// physical is the physical position of level-0 indices at.
func (od *orthoDraw) physical(at oblique.Vec) oblique.Vec {
	return oblique.Vec{at[0] * od.sp[0], at[1] * od.sp[1], at[2] * od.sp[2]}
}

// clickTurnedLocked moves the shared position to the point the sample
// under panel position (x, y) of the active turned panel lies at; it
// reports whether that point is inside the data.
func (s *Session) clickTurnedLocked(m *loader.Meta, x, y float64) bool {
	v := s.view
	od := s.orthoDrawLocked(&Scene{d: s.data, view: v})
	if od == nil || s.ortho.active == panelProj {
		return false
	}
	pl := od.panels[s.ortho.active].plane
	p := pl.At(math.Floor(y), math.Floor(x))
	sp, n := oblique.Spacing(m), oblique.Extent(m)
	var at oblique.Vec
	for a := range at {
		at[a] = p[a] / sp[a]
		if !(at[a] >= -0.5 && at[a] <= float64(n[a])-0.5) {
			return false
		}
	}
	s.ortho.setPosition(m, &s.view, at)
	return true
}

// turnedPanelCache is what a turned panel other than the active one was
// last drawn from.
type turnedPanelCache struct {
	img       *image.RGBA
	plane     oblique.Plane
	level     int
	lo, hi    float64
	colormap  string
	linear    bool
	complete  bool
	data      *Data
	refreshes uint64
	bar       bool
}

// turnedPanel draws turned panel i other than the active one (view v
// with frame f's window) through the oblique sampler, its chunks asked
// for after the active panel's, and counts what it misses in f's Info. A
// panel drawn complete from the same plane is not drawn again.
func (p *planePainter) turnedPanel(r *Scene, i int, v render.View, f *Frame) *image.RGBA {
	m := r.d.Pyr.Meta()
	pl := r.ortho.panels[i].plane
	k := oblique.ChooseLevel(m, pl)
	last := &p.tpanels[i]
	key := turnedPanelCache{plane: pl, level: k, lo: v.Lo, hi: v.Hi, colormap: v.Colormap, linear: v.Linear,
		data: r.d, refreshes: p.refreshes, bar: r.scaleBar}
	if last.img != nil && last.complete {
		was := *last
		was.img, was.complete = nil, false
		if was == key {
			return last.img
		}
	}
	img, info := p.samplePicture(&p.pob[i], r, pl, k, v, levels.Prefetch)
	f.Info.Missing += info.Missing
	f.Info.Failed += info.Failed
	f.Info.Complete = f.Info.Complete && info.Complete
	if r.scaleBar {
		drawPlaneScaleBar(img, m, pl)
	}
	key.img, key.complete = img, info.Complete
	*last = key
	return img
}

// drawCross draws a crosshair across pane through (x, y), pixels from its
// top-left corner.
func drawCross(pane *image.RGBA, x, y float64) {
	b := pane.Rect
	if xi := b.Min.X + int(math.Floor(x)); x >= 0 && xi < b.Max.X {
		for yy := b.Min.Y; yy < b.Max.Y; yy++ {
			pane.SetRGBA(xi, yy, crosshairColour)
		}
	}
	if yi := b.Min.Y + int(math.Floor(y)); y >= 0 && yi < b.Max.Y {
		for xx := b.Min.X; xx < b.Max.X; xx++ {
			pane.SetRGBA(xx, yi, crosshairColour)
		}
	}
}
