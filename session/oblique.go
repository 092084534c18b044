package session

import (
	"fmt"
	"image"
	"math"
	"strings"
	"unsafe"

	"vastview/levels"
	"vastview/loader"
	"vastview/render"
	"vastview/render/oblique"
)

// obliqueDraw is what the painter keeps to draw oblique planes: the
// sampler (and its chunks of recent frames), buffers and pictures in turn.
type obliqueDraw struct {
	s    oblique.Sampler
	pt   render.Painter
	nat  []byte
	flt  []float32
	mask []uint8
	bufs [3]*image.RGBA
	next int
}

// Oblique reports whether view v shows an oblique plane (turned, or
// sampled by trilinear interpolation), drawn through the volume rather
// than from one plane of the data.
func Oblique(v render.View) bool { return v.Turn != (render.Turn{}) || v.Linear }

// ObliquePlane is the plane oblique view v of data m samples: through the
// view's position (Center on the plane's axes, the index of the axis
// normal to it), the plane's column and row axes turned by v.Turn, one
// screen pixel of the column axis's spacing / Zoom a side, one sample a
// screen pixel. `vastview plane --rotate` of the same plane draws the same
// samples.
func ObliquePlane(m *loader.Meta, v render.View) oblique.Plane {
	if !(v.Zoom > 0) {
		v.Zoom, v.Center = render.Fit(m, v.Orientation, v.Width, v.Height)
	}
	row, col, normal := v.Orientation.Axes()
	sp := oblique.Spacing(m)
	slot := map[byte]int{'Z': oblique.Z, 'Y': oblique.Y, 'X': oblique.X}
	var u0, v0, idx oblique.Vec
	u0[slot[col]], v0[slot[row]] = 1, 1
	if f := v.Flip(); f.Col || f.Row { // the display transform: a flipped axis runs backwards
		u0[slot[col]], v0[slot[row]] = flipSign(f.Col), flipSign(f.Row)
	}
	idx[slot[col]] = v.Center.Col - 0.5
	idx[slot[row]] = v.Center.Row - 0.5
	idx[slot[normal]] = float64(v.At(normal))
	p := oblique.Plane{U: v.Turn.Apply(u0), V: v.Turn.Apply(v0), Pixel: sp[slot[col]] / v.Zoom,
		W: v.Width, H: v.Height, T: v.T, C: v.C}
	for a := range idx {
		p.Center[a] = idx[a] * sp[a]
	}
	return p
}

// paintOblique draws the oblique plane of scene r (in the four panels,
// the active panel's): sampled from the level whose samples best match a
// screen pixel, what is not in memory yet from coarser levels (and asked
// for, nearest the centre first), in the view's channel, window and
// colormap; the background outside the data.
func (p *planePainter) paintOblique(r *Scene) *Frame {
	pyr := r.d.Pyr
	m := pyr.Meta()
	v := r.view
	var pl oblique.Plane
	if n := pyr.Refreshes(); n != p.refreshes {
		p.refreshes = n
		p.r.Forget()
		p.ob.s.Forget()
		for i := range p.pob {
			p.pob[i].s.Forget()
		}
	}
	k := -1
	switch {
	case r.sampled != nil:
		pl, k = r.sampled.plane, r.sampled.level
		v.Width, v.Height = pl.W, pl.H
		v.T, v.C = pl.T, pl.C
	case r.ortho != nil:
		pn := &r.ortho.panels[r.ortho.active]
		pl, v.Zoom, v.Center = pn.plane, pn.view.Zoom, pn.view.Center
	default:
		v.Width, v.Height = max(1, min(16384, v.Width)), max(1, min(16384, v.Height))
		if !(v.Zoom > 0) {
			v.Zoom, v.Center = render.FitBox(m, v.Orientation, v.Width, v.Height, r.fitLo, r.fitHi)
		}
		pl = ObliquePlane(m, v)
	}
	if k < 0 {
		k = oblique.ChooseLevel(m, pl)
	}
	auto := v.Lo == v.Hi
	if auto {
		v.Lo, v.Hi = p.autoWindow(r.d, v)
	}
	drawn := v
	if drawn.Lo == drawn.Hi {
		drawn.Lo, drawn.Hi = 0, 1
	}
	img, info := p.samplePicture(&p.ob, r, pl, k, drawn, levels.Visible)
	if r.scaleBar && (r.sampled != nil || r.ortho != nil) {
		drawPlaneScaleBar(img, m, pl)
	} else if r.scaleBar {
		render.DrawScaleBar(img, m, drawn)
	}
	if r.stampAxis != 0 {
		render.DrawStamp(img, m, drawn, stampText(m, drawn, r.stampAxis))
	}
	if r.sampled == nil && r.ortho == nil {
		drawEdges(img, m, drawn)
	}
	ri := render.Info{Level: k, Complete: info.Complete, Missing: info.Missing, Unfilled: info.Unfilled,
		Failed: info.Failed, Err: info.Err}
	f := &Frame{Img: img, View: v, Info: ri, data: r.d, gen: r.gen, auto: auto, plane: &pl}
	f.readTotal, _ = pyr.BytesRead()
	return f
}

// samplePicture samples plane pl of scene r's data at level k (coarser
// levels where its chunks are not in memory) into the next of o's
// pictures, through drawn's window and colormap, the background where
// the plane leaves the data, and asks for the missing chunks at prio.
func (p *planePainter) samplePicture(o *obliqueDraw, r *Scene, pl oblique.Plane, k int, drawn render.View,
	prio levels.Priority) (*image.RGBA, oblique.Info) {
	pyr := r.d.Pyr
	m := pyr.Meta()
	n := pl.W * pl.H
	if cap(o.mask) < n {
		o.mask = make([]uint8, n)
	}
	o.mask = o.mask[:n]
	o.s.Mask = o.mask
	var buf []byte
	dt := m.DType
	var info oblique.Info
	if drawn.Linear {
		if cap(o.flt) < n {
			o.flt = make([]float32, n)
		}
		o.flt = o.flt[:n]
		info = o.s.Float(o.flt, pl, pyr, k, oblique.Linear)
		buf, dt = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(o.flt))), 4*n), loader.Float32
	} else {
		if cap(o.nat) < n*dt.Size() {
			o.nat = make([]byte, n*dt.Size())
		}
		o.nat = o.nat[:n*dt.Size()]
		info = o.s.Native(o.nat, pl, pyr, k)
		buf = o.nat
	}
	o.s.Request(pyr, prio, r.gen)
	o.next = (o.next + 1) % len(o.bufs)
	img := o.bufs[o.next]
	if img == nil || img.Rect.Dx() != pl.W || img.Rect.Dy() != pl.H {
		img = image.NewRGBA(image.Rect(0, 0, pl.W, pl.H))
		o.bufs[o.next] = img
	}
	o.pt.Paint(img.Pix, buf, dt, drawn.Lo, drawn.Hi, render.ColormapOrGray(drawn.Colormap))
	for i, st := range o.mask {
		if st != oblique.Sampled {
			q := img.Pix[4*i : 4*i+4 : 4*i+4]
			q[0], q[1], q[2], q[3] = obliqueBackground[0], obliqueBackground[1], obliqueBackground[2], 255
		}
	}
	return img, info
}

// sampledPlane is a plane through the volume drawn as it is given,
// sampled from one level (see Picture.Sample).
type sampledPlane struct {
	plane oblique.Plane
	level int
}

// drawPlaneScaleBar draws the scale bar of plane pl (of data m) into img,
// its picture: one sample of the picture is pl.Pixel in the unit of m's
// X axis.
func drawPlaneScaleBar(img *image.RGBA, m *loader.Meta, pl oblique.Plane) {
	unit := ""
	if i := m.AxisIndex('X'); i >= 0 && i < len(m.Units) {
		unit = m.Units[i]
	}
	sm := loader.NewMeta(m.Format, "YX", []int{pl.H, pl.W}, m.DType, []int{pl.H, pl.W},
		[]float64{pl.Pixel, pl.Pixel}, []string{unit, unit})
	render.DrawScaleBar(img, sm, render.View{Zoom: 1, Width: pl.W, Height: pl.H,
		Center: render.Point{Col: float64(pl.W) / 2, Row: float64(pl.H) / 2}})
}

// obliqueBackground is the colour outside the data and where no level has
// data in memory yet, as the plane renderer draws them.
var obliqueBackground = [3]uint8{32, 32, 32}

// turnStep and fineTurnStep are the degrees a turn key turns the plane,
// without and with Shift.
const (
	turnStep     = 5.0
	fineTurnStep = 1.0
)

// turnKey turns the plane by one key's step (Shift: a fine one).
func (s *Session) turnKey(a Action) {
	deg := turnStep
	if s.Modifiers().Shift {
		deg = fineTurnStep
	}
	axis := map[Action]int{ActTurnUp: 0, ActTurnDown: 0, ActTurnLeft: 1, ActTurnRight: 1, ActRollLeft: 2, ActRollRight: 2}[a]
	if a == ActTurnDown || a == ActTurnLeft || a == ActRollLeft {
		deg = -deg
	}
	s.Turn(axis, deg)
}

// Turn turns the plane by deg degrees (right-handed) about the screen's
// horizontal axis (axis 0, pointing right), its vertical axis (1, pointing
// down) or the axis into the screen (2), through the view's centre; in
// the four panels, the active panel's axes, the frame of all three planes
// turning about the position they show. A
// plane of data with fewer than three spatial axes of more than one sample
// is not turned.
func (s *Session) Turn(axis int, deg float64) {
	s.update(func(m *loader.Meta) bool {
		if m.Size('Z') < 2 || m.Size('Y') < 2 || m.Size('X') < 2 {
			return false
		}
		if !s.ortho.on && !(s.view.Zoom > 0) {
			s.view.Zoom, s.view.Center = render.Fit(m, s.view.Orientation, s.view.Width, s.view.Height)
		}
		pl := ObliquePlane(m, s.view)
		d := [3]oblique.Vec{pl.U, pl.V, pl.U.Cross(pl.V)}[axis]
		s.view.Turn = s.view.Turn.About(d, deg)
		if !s.ortho.on {
			s.fitted = false
		}
		return true
	})
}

// ToggleLinear switches the sampling of turned planes between the nearest
// sample and trilinear interpolation.
func (s *Session) ToggleLinear() {
	s.update(func(m *loader.Meta) bool {
		s.view.Linear = !s.view.Linear
		return true
	})
}

// obliqueStatus says how an oblique view is sampled, for the status bar.
func obliqueStatus(v render.View) string {
	how := "nearest"
	if v.Linear {
		how = "trilinear"
	}
	if v.Turn == (render.Turn{}) {
		return how
	}
	return "turned, " + how
}

// rememberedTurn is the Turn a remembered view holds: none unless it is
// nine finite numbers making a rotation (columns of unit length, at right
// angles).
func rememberedTurn(f []float64) render.Turn {
	var t render.Turn
	if len(f) != len(t) {
		return t
	}
	copy(t[:], f)
	r := t.Matrix()
	for i := range 3 {
		for j := range 3 {
			d := r[0][i]*r[0][j] + r[1][i]*r[1][j] + r[2][i]*r[2][j]
			want := 0.0
			if i == j {
				want = 1
			}
			if !(math.Abs(d-want) < 1e-6) {
				return render.Turn{}
			}
		}
	}
	return t
}

// obliqueHoverText describes the data under viewport position (x, y) of
// oblique view v of p, showing plane pl: the level-0 sample nearest the position the pixel
// there samples (its indices and the physical position of its centre)
// and its value, from the finest level in memory; "" off the data.
func obliqueHoverText(p oblique.Source, pl oblique.Plane, v render.View, x, y float64) string {
	m := p.Meta()
	P := pl.At(math.Floor(y), math.Floor(x))
	sp, n := oblique.Spacing(m), oblique.Extent(m)
	var idx [3]int
	for a := range idx {
		q := P[a] / sp[a]
		if !(q >= -0.5 && q <= float64(n[a])-0.5) {
			return ""
		}
		idx[a] = min(n[a]-1, int(math.Floor(q+0.5)))
	}
	one := oblique.Plane{Center: P, U: pl.U, V: pl.V, Pixel: pl.Pixel, W: 1, H: 1, T: v.T, C: v.C}
	var s oblique.Sampler
	b := make([]byte, m.DType.Size())
	if info := s.Native(b, one, p, 0); info.Unfilled > 0 {
		b = nil
	}
	var t strings.Builder
	var pos []string
	for a, c := range []byte("ZYX") {
		if m.AxisIndex(c) < 0 {
			continue
		}
		fmt.Fprintf(&t, "%c %d  ", c, idx[a])
		unit := ""
		if i := m.AxisIndex(c); i < len(m.Units) {
			unit = m.Units[i]
		}
		pos = append(pos, phys(m.Levels[0].Translation[m.AxisIndex(c)]+float64(idx[a])*sp[a], unit))
	}
	fmt.Fprintf(&t, " (%s)", strings.Join(pos, ", "))
	if an, ok := anatomyOf(m); ok { // the voxel's world position (World Space)
		t.WriteString("   " + an.worldText([3]int{idx[oblique.X], idx[oblique.Y], idx[oblique.Z]}))
	}
	for _, c := range []byte("TC") {
		if m.Size(c) > 1 {
			fmt.Fprintf(&t, "  %c %d", c, v.At(c))
		}
	}
	if b != nil {
		fmt.Fprintf(&t, "   value %s", valueText(m, m.DType, b))
	}
	return t.String()
}

// dragDegrees and fineDragDegrees are the degrees a drag turning the plane
// turns it per screen pixel, without and with Shift (Ctrl+Shift+drag).
const (
	dragDegrees     = 0.25
	fineDragDegrees = 0.05
)

// planeTurned reports whether view v's plane is turned out of the XY, XZ
// and YZ planes: its normal is not along an axis of the data.
func planeTurned(v render.View) bool {
	_, _, normal := v.Orientation.Axes()
	var n [3]float64
	n[strings.IndexByte("ZYX", normal)] = 1
	off := 0
	for _, c := range v.Turn.Apply(n) {
		if math.Abs(c) > 1e-9 {
			off++
		}
	}
	return off > 1
}

// dragTurn turns the plane as a drag by (dx, dy) pixels does: a
// horizontal drag about the screen's vertical axis, a vertical one about
// its horizontal axis, the side under the pointer following it.
func (s *Session) dragTurn(dx, dy float64, fine bool) {
	k := dragDegrees
	if fine {
		k = fineDragDegrees
	}
	if dx != 0 {
		s.Turn(1, -dx*k)
	}
	if dy != 0 {
		s.Turn(0, dy*k)
	}
}

// flipSign is -1 for a flipped axis, else 1.
func flipSign(flipped bool) float64 {
	if flipped {
		return -1
	}
	return 1
}
