package session

import (
	"encoding/binary"
	"fmt"
	"image"
	"math"
	"runtime"
	"strings"
	"time"
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
	pj   oblique.Projector // projections along the normal
	vals []float64         // a projection's values, for its window
	// last is the picture of the last frame the painter drew if it was an
	// oblique one (nil otherwise): what no level in memory can give yet
	// keeps its pixels rather than turning to background.
	last     *image.RGBA
	lastData *Data
}

// obliqueSlab is a projection of an oblique plane along its normal w: op
// over planes D apart (D: the data's smallest spacing), the planes of
// slab when it is set, else thick planes about the plane (offsets
// −(thick−1)/2 on), or every plane that meets the data (thick 0).
type obliqueSlab struct {
	op    loader.Projection
	thick int
	slab  *oblique.Slab
}

// of is the slab of plane pl of data m.
func (os *obliqueSlab) of(m *loader.Meta, pl oblique.Plane) oblique.Slab {
	if os.slab != nil {
		return *os.slab
	}
	d := SlabStep(m)
	if os.thick <= 0 {
		return oblique.SlabAll(m, pl, d)
	}
	a := -(os.thick - 1) / 2
	return oblique.Slab{A: a, B: a + os.thick - 1, Step: d}
}

// SlabStep is the step between the planes of a projection of an oblique
// plane of data m along its normal: the smallest spacing of its spatial
// axes.
func SlabStep(m *loader.Meta) float64 {
	sp := oblique.Spacing(m)
	d := math.Inf(1)
	for a, c := range []byte("ZYX") {
		if m.AxisIndex(c) >= 0 {
			d = min(d, sp[a])
		}
	}
	if math.IsInf(d, 0) {
		return 1
	}
	return d
}

// Oblique reports whether view v shows an oblique plane (turned, or
// sampled by trilinear interpolation), drawn through the volume rather
// than from one plane of the data.
func Oblique(v render.View) bool { return v.Turn != (render.Turn{}) || v.Linear }

// ObliquePlane is the plane oblique view v of data m samples: through the
// view's position (Center on the plane's axes, the index of the axis
// normal to it, plus Depth when turned), the plane's column and row axes
// turned by v.Turn, one screen pixel of the column axis's spacing / Zoom
// a side, one sample a screen pixel. `vastview plane --rotate` of the same plane draws the same
// samples.
func ObliquePlane(m *loader.Meta, v render.View) oblique.Plane {
	if !(v.Zoom > 0) {
		v.Zoom, v.Center = render.Fit(m, v)
	}
	row, col, normal := v.Orientation.Axes()
	sp := oblique.Spacing(m)
	slot := map[byte]int{'Z': oblique.Z, 'Y': oblique.Y, 'X': oblique.X}
	var idx oblique.Vec
	u0, v0 := planeAxes(v)
	idx[slot[col]] = v.Center.Col - 0.5
	idx[slot[row]] = v.Center.Row - 0.5
	idx[slot[normal]] = float64(v.At(normal))
	if v.Turn != (render.Turn{}) {
		idx[slot[normal]] += v.Depth
	}
	p := oblique.Plane{U: v.Turn.Apply(u0), V: v.Turn.Apply(v0), Pixel: sp[slot[col]] / v.Zoom,
		W: v.Width, H: v.Height, T: v.T, C: v.C}
	for a := range idx {
		p.Center[a] = idx[a] * sp[a]
	}
	return p
}

// dragFrameBudget is the time a frame of a turned plane being dragged
// may take to sample before the rest of the drag is drawn one level
// coarser: a steeply turned plane's samples each fall on a cache line of
// their own, and at the level matching the screen a frame can take
// several times the 33 ms of 30 frames a second (docs/PERFORMANCE.md).
var dragFrameBudget = 20 * time.Millisecond

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
			v.Zoom, v.Center = render.FitBox(m, v, r.fitLo, r.fitHi)
		}
		pl = ObliquePlane(m, v)
	}
	if k < 0 {
		k = oblique.ChooseLevel(m, pl)
		if r.dragged && p.slowDrag {
			k = min(k+1, len(m.Levels)-1)
		}
	}
	if !r.dragged {
		p.slowDrag = false
	}
	started := time.Now()
	auto := v.Lo == v.Hi
	var img *image.RGBA
	var info oblique.Info
	var sl oblique.Slab
	if r.slab != nil {
		// A projection along the normal: its window from its own values,
		// once it is complete.
		sl = r.slab.of(m, pl)
		if r.sampled == nil {
			// Drawn from a coarser level, the planes of the slab are
			// taken as far apart as its samples are along the normal.
			sl.Stride = oblique.LevelStride(m, pl, k)
		}
		buf, dt, in := p.projectBuf(&p.ob, r, pl, sl, k, v.Linear, levels.Visible)
		info = in
		if auto && info.Complete {
			v.Lo, v.Hi = p.ob.window(buf, dt)
		}
		drawn := v
		if drawn.Lo == drawn.Hi {
			drawn.Lo, drawn.Hi = 0, 1
		}
		img = p.ob.picture(buf, dt, pl.W, pl.H, drawn, nil)
	} else {
		if auto {
			v.Lo, v.Hi = p.autoWindow(r.d, v)
		}
		drawn := v
		if drawn.Lo == drawn.Hi {
			drawn.Lo, drawn.Hi = 0, 1
		}
		img, info = p.samplePicture(&p.ob, r, pl, k, drawn, levels.Visible)
	}
	drawn := v
	if drawn.Lo == drawn.Hi {
		drawn.Lo, drawn.Hi = 0, 1
	}
	if r.dragged && time.Since(started) > dragFrameBudget {
		p.slowDrag = true
	}
	ri := render.Info{Level: k, Complete: info.Complete, Missing: info.Missing, Unfilled: info.Unfilled,
		Failed: info.Failed, Err: info.Err}
	layers := 0
	if len(r.layers) > 0 && r.slab == nil {
		layers = p.drawObliqueLayers(img, &ri, r, pl, drawn)
	}
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
	f := &Frame{Img: img, View: v, Info: ri, Layers: layers, data: r.d, gen: r.gen, auto: auto, plane: &pl}
	if r.slab != nil {
		f.Projection, f.Slab = r.slab.op, [2]int{sl.A, sl.B}
	}
	f.readTotal, _ = pyr.BytesRead()
	return f
}

// samplePicture samples plane pl of scene r's data at level k (coarser
// levels where its chunks are not in memory) into the next of o's
// pictures, through drawn's window and colormap, the background where
// the plane leaves the data, and asks for the missing chunks at prio.
func (p *planePainter) samplePicture(o *obliqueDraw, r *Scene, pl oblique.Plane, k int, drawn render.View,
	prio levels.Priority) (*image.RGBA, oblique.Info) {
	buf, dt, info := o.sampleBuf(r.d.Pyr, r, pl, k, drawn.Linear, prio)
	var keep *Data // whose last picture may stand where no level holds data yet
	if r.sampled == nil && info.Failed == 0 {
		keep = r.d
	}
	return o.picture(buf, dt, pl.W, pl.H, drawn, keep), info
}

// projectBuf projects slab sl of plane pl of scene r's data at level k
// (coarser levels where its chunks are not in memory) along the plane's
// normal by the slab's op into o's buffers, noting in o's mask where it
// has data, and asks for the missing chunks at prio. It returns the
// values (the data's type for the max and min of nearest samples, else
// float32).
func (p *planePainter) projectBuf(o *obliqueDraw, r *Scene, pl oblique.Plane, sl oblique.Slab, k int, linear bool,
	prio levels.Priority) ([]byte, loader.DType, oblique.Info) {
	pyr := r.d.Pyr
	m := pyr.Meta()
	n := pl.W * pl.H
	if cap(o.mask) < n {
		o.mask = make([]uint8, n)
	}
	o.mask = o.mask[:n]
	o.pj.Mask = o.mask
	o.pj.S.Workers = workers(r)
	op := r.slab.op
	var info oblique.Info
	var buf []byte
	dt := m.DType
	if linear || op == loader.ProjectMean {
		dt = loader.Float32
	}
	if linear {
		if cap(o.flt) < n {
			o.flt = make([]float32, n)
		}
		o.flt = o.flt[:n]
		info = o.pj.Float(o.flt, pl, sl, pyr, k, oblique.Linear, op)
		buf = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(o.flt))), 4*n)
	} else {
		if cap(o.nat) < n*dt.Size() {
			o.nat = make([]byte, n*dt.Size())
		}
		o.nat = o.nat[:n*dt.Size()]
		info = o.pj.Native(o.nat, pl, sl, pyr, k, op)
		buf = o.nat
	}
	o.pj.Request(pyr, prio, r.gen)
	return buf, dt, info
}

// window is the auto-contrast window of values buf (of type dt) where
// o's mask says there is data: their 0.1 and 99.9 percentiles, of at
// most about 260,000 of them.
func (o *obliqueDraw) window(buf []byte, dt loader.DType) (lo, hi float64) {
	n := len(o.mask)
	step := max(1, n>>18)
	o.vals = o.vals[:0]
	for i := 0; i < n; i += step {
		if o.mask[i] == oblique.Sampled {
			if v := dt.At(buf, i); !math.IsNaN(v) && !math.IsInf(v, 0) {
				o.vals = append(o.vals, v)
			}
		}
	}
	if len(o.vals) == 0 {
		return 0, 0
	}
	return render.Quantiles(o.vals)
}

// workers is how many workers sample a frame of scene r: every core, but
// one while a drag turns or moves the plane, whose frames come at the
// pointer's rate and whose window then keeps the other cores busy (a
// second worker made the drag's frames no sooner and its slowest later:
// docs/PERFORMANCE.md).
func workers(r *Scene) int {
	if r.dragged {
		return 1
	}
	return runtime.GOMAXPROCS(0)
}

// sampleBuf samples plane pl of pyr at level k (coarser levels where its
// chunks are not in memory) into o's buffers, noting in o's mask where it
// has data, and asks for the missing chunks at prio for scene r's view
// generation. It returns the samples: float32 with linear on data of more
// than 16 bits, else the data's type.
func (o *obliqueDraw) sampleBuf(pyr oblique.Source, r *Scene, pl oblique.Plane, k int, linear bool,
	prio levels.Priority) ([]byte, loader.DType, oblique.Info) {
	m := pyr.Meta()
	n := pl.W * pl.H
	if cap(o.mask) < n {
		o.mask = make([]uint8, n)
	}
	o.mask = o.mask[:n]
	o.s.Mask = o.mask
	// Each worker samples a band of rows (the chunk look-ups of a pyramid
	// and of its derived data are safe for concurrent use).
	o.s.Workers = workers(r)
	var buf []byte
	dt := m.DType
	var info oblique.Info
	if linear && dt.Size() > 2 {
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
		if linear {
			// 8- and 16-bit values rounded to the type, as BigDataViewer
			// shows them: coloured through the type's table.
			info = o.s.Rounded(o.nat, pl, pyr, k)
		} else {
			info = o.s.Native(o.nat, pl, pyr, k)
		}
		buf = o.nat
	}
	o.s.Request(pyr, prio, r.gen)
	return buf, dt, info
}

// picture paints values buf (of type dt, w×h) into the next of o's
// pictures through drawn's window and colormap, the background where o's
// mask says there is no data; where no level in memory has data yet, the
// last picture's pixels when it was of the same size and of data keep
// (nil: none kept).
func (o *obliqueDraw) picture(buf []byte, dt loader.DType, w, h int, drawn render.View, keep *Data) *image.RGBA {
	o.next = (o.next + 1) % len(o.bufs)
	img := o.bufs[o.next]
	if img == nil || img.Rect.Dx() != w || img.Rect.Dy() != h {
		img = image.NewRGBA(image.Rect(0, 0, w, h))
		o.bufs[o.next] = img
	}
	o.pt.Paint(img.Pix, buf, dt, drawn.Lo, drawn.Hi, render.ColormapOrGray(drawn.Colormap))
	// What no level holds yet keeps the last frame's pixels, unless that
	// frame was of other data or a size, or chunks failed to load (what
	// cannot come is not shown as if it were there).
	prev := o.last
	if prev == nil || prev == img || prev.Rect != img.Rect || keep == nil || o.lastData != keep {
		prev = nil
	}
	for i, st := range o.mask {
		switch {
		case st == oblique.Sampled:
		case st == oblique.Unfilled && prev != nil:
			copy(img.Pix[4*i:4*i+4], prev.Pix[4*i:4*i+4])
		default:
			q := img.Pix[4*i : 4*i+4 : 4*i+4]
			q[0], q[1], q[2], q[3] = obliqueBackground[0], obliqueBackground[1], obliqueBackground[2], 255
		}
	}
	o.last, o.lastData = img, keep
	return img
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
	unit := unitOf(m)
	sm := loader.NewMeta(m.Format, "YX", []int{pl.H, pl.W}, m.DType, []int{pl.H, pl.W},
		[]float64{pl.Pixel, pl.Pixel}, []string{unit, unit})
	render.DrawScaleBar(img, sm, render.View{Zoom: 1, Width: pl.W, Height: pl.H,
		Center: render.Point{Col: float64(pl.W) / 2, Row: float64(pl.H) / 2}})
}

// unitOf is the unit of data m's X axis, that of oblique planes' pixels.
func unitOf(m *loader.Meta) string {
	if i := m.AxisIndex('X'); i >= 0 && i < len(m.Units) {
		return m.Units[i]
	}
	return ""
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
			s.view.Zoom, s.view.Center = render.Fit(m, s.view)
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

// PlaneTurned reports whether view v's plane is turned out of the XY, XZ
// and YZ planes: its normal is not along an axis of the data.
func PlaneTurned(v render.View) bool {
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

// planeAxes are the directions of the screen's right and down over
// view v's plane before its turn: its column and row axes, swapped and
// flipped as the view's display transform says.
func planeAxes(v render.View) (u0, v0 oblique.Vec) {
	row, col, _ := v.Orientation.Axes()
	f := v.Flip()
	u0[axisSlot(col)], v0[axisSlot(row)] = flipSign(f.Col), flipSign(f.Row)
	if f.Swap {
		u0, v0 = v0, u0
	}
	return u0, v0
}

// flipSign is -1 for a flipped axis, else 1.
func flipSign(flipped bool) float64 {
	if flipped {
		return -1
	}
	return 1
}

// slabHoverText is the read-out of the projection by op along the normal
// of oblique plane pl (of view v of p) over the planes slab[0]..slab[1]
// at viewport position (x, y), from the finest levels in memory: "   max
// 1234"; "" where the projection has no value in memory.
func slabHoverText(p oblique.Source, pl oblique.Plane, v render.View, op loader.Projection, slab [2]int, x, y float64) string {
	m := p.Meta()
	one := pl
	one.Center = pl.At(math.Floor(y), math.Floor(x))
	one.W, one.H, one.T, one.C = 1, 1, v.T, v.C
	var pj oblique.Projector
	st := []uint8{0}
	pj.Mask = st
	sl := oblique.Slab{A: slab[0], B: slab[1], Step: SlabStep(m)}
	var b []byte
	dt := m.DType
	if v.Linear {
		f := []float32{0}
		pj.Float(f, one, sl, p, 0, oblique.Linear, op)
		b, dt = binary.LittleEndian.AppendUint32(nil, math.Float32bits(f[0])), loader.Float32
	} else {
		if op == loader.ProjectMean {
			dt = loader.Float32
		}
		b = make([]byte, dt.Size())
		pj.Native(b, one, sl, p, 0, op)
	}
	if st[0] != oblique.Sampled {
		return ""
	}
	return fmt.Sprintf("   %s %s", op, valueText(m, dt, b))
}
