package session

import (
	"fmt"
	"image"
	"math"
	"strconv"
	"time"

	"vastview/levels"
	"vastview/loader"
	"vastview/render"
	"vastview/render/oblique"
	raycast "vastview/render/volume"
)

// screenScales are the fractions of the viewport's pixels the 3-D view
// is drawn at while its camera moves (BigDataViewer's screen scales),
// shown upscaled by repeating pixels; at rest it is drawn at 1.
var screenScales = []float64{1, 1.0 / 2, 1.0 / 4, 1.0 / 8}

// movingBudget is the time a frame drawn while the camera moves should
// take: the screen scale is chosen for it from the times of the last
// frames.
const movingBudget = 40 * time.Millisecond

// view3dDraw is what the painter keeps to draw the 3-D view: the ray
// caster (its workers and chunks), pictures in turn, the screen scale
// used while moving, and the level the picture at rest has been refined
// to.
type view3dDraw struct {
	r     raycast.Renderer
	bufs  [3]*image.RGBA
	next  int
	small *image.RGBA
	scale int  // index of screenScales while moving
	began bool // scale was chosen: the first moving frame is drawn at 1/4
	// The refinement at rest: what was drawn last (see view3dKey), the
	// level it was drawn from (first at a reduced screen scale, unless
	// full), its picture and how complete it was.
	key   view3dKey
	level int
	full  bool
	last  *image.RGBA
	info  render.Info
	f3    *Frame3D
	labs  []raycast.Labels // the label layers drawn, frame after frame
	drawn int              // how many the last picture drew
}

// view3dKey is everything a picture of the 3-D view depends on: a
// picture drawn complete with the same key is shown again as it is (a
// step through the planes of the four panels does not change it).
type view3dKey struct {
	d         *Data
	refreshes uint64
	cam       Camera
	mode      raycast.Mode
	interp    oblique.Interp
	iso, opac float64
	clip      raycast.Box
	plane     raycast.ClipPlane
	clipped   bool
	w, h      int
	lo, hi    float64
	colormap  string
	t, c      int
	chans     string
	labels    string // the label layers drawn (see labelsKey)
}

// target returns the next of the pictures, w × h.
func (o *view3dDraw) target(w, h int) *image.RGBA {
	o.next = (o.next + 1) % len(o.bufs)
	b := o.bufs[o.next]
	if b == nil || b.Rect.Dx() != w || b.Rect.Dy() != h {
		b = image.NewRGBA(image.Rect(0, 0, w, h))
		o.bufs[o.next] = b
	}
	return b
}

// levelStep is the distance between a ray's samples at level k of data
// m: the smallest of its spacings, in physical units.
func levelStep(m *loader.Meta, k int) float64 {
	sp := oblique.Spacing(m)
	step := math.Inf(1)
	for a, c := range []byte("ZYX") {
		i := m.AxisIndex(c)
		if i < 0 || m.Levels[0].Shape[i] < 2 {
			continue
		}
		f := float64(m.Levels[0].Shape[i]) / float64(max(1, m.Levels[k].Shape[i]))
		step = min(step, sp[a]*f)
	}
	if math.IsInf(step, 0) {
		return 1
	}
	return step
}

// budgetLevel is the finest level of data m whose samples inside box
// (the zero Box: all) fit in half of budget bytes, so that a picture
// drawn from it stays within the chunk cache.
func budgetLevel(m *loader.Meta, budget int64, box raycast.Box) int {
	if budget <= 0 {
		return 0
	}
	n0 := oblique.Extent(m)
	for k := range m.Levels {
		bytes := float64(m.DType.Size())
		for a, c := range []byte("ZYX") {
			nk := 1
			if i := m.AxisIndex(c); i >= 0 {
				nk = m.Levels[k].Shape[i]
			}
			frac := 1.0
			if !box.IsZero() && n0[a] > 0 {
				frac = float64(box.Hi[a]-box.Lo[a]) / float64(n0[a])
			}
			bytes *= math.Ceil(float64(nk) * frac)
		}
		if bytes <= float64(budget)/2 {
			return k
		}
	}
	return len(m.Levels) - 1
}

// paint draws the 3-D view of scene r at w × h pixels, through the
// windows, colormap and channels of v (the view as drawn). While the
// camera moves it is drawn from a coarse level at a reduced screen scale;
// at rest, after one such picture, it is refined level by level at full
// scale, each frame drawn from the level after the last one drawn
// complete (the scene drawn again at once for the next), down to the
// level whose samples match the screen's pixels (no finer than the chunk
// cache holds), samples not in memory from coarser levels, the chunks
// missing asked for nearest the centre first.
func (o *view3dDraw) paint(r *Scene, v render.View, w, h int) (*image.RGBA, render.Info, *Frame3D) {
	pyr := r.d.Pyr
	m := pyr.Meta()
	vs := r.vol
	opts := vs.opts
	opts.Window = [2]float64{v.Lo, v.Hi}
	opts.Colormap = render.ColormapOrGray(v.Colormap)
	if !vs.isoSet {
		opts.Iso = (v.Lo + v.Hi) / 2
	}
	chans := v.Channels
	w, h = max(1, w), max(1, h)
	full := vs.cam.Plane(m, w, h)
	full.T, full.C = v.T, v.C
	finest := max(oblique.ChooseLevel(m, full), budgetLevel(m, vs.budget, opts.Clip))
	quarter := scaledPlane(full, 1.0/4)
	coarse := max(finest, oblique.ChooseLevel(m, quarter))
	var src oblique.Source = pyr
	if r.movie {
		src = movieSource{pyr}
	}
	key := view3dKey{d: r.d, refreshes: pyr.Refreshes(), cam: vs.cam, mode: opts.Mode, interp: opts.Interp, iso: opts.Iso,
		opac: opts.Opacity, clip: opts.Clip, clipped: opts.ClipPlane != nil, w: w, h: h, lo: v.Lo, hi: v.Hi,
		colormap: v.Colormap, t: v.T, c: v.C, chans: fmt.Sprint(chans), labels: labelsKey(r.layers)}
	if opts.ClipPlane != nil {
		key.plane = *opts.ClipPlane
	}
	if !vs.moving && key == o.key && o.last != nil && o.info.Complete {
		return o.last, o.info, o.f3
	}
	t0 := time.Now()
	f3 := &Frame3D{Mode: opts.Mode, Scale: 1}
	defer func() { f3.Took = time.Since(t0) }()
	out := o.target(w, h)
	var info raycast.Info
	k := finest
	if !o.began {
		o.scale, o.began = 2, true
	}
	if key != o.key && !vs.moving {
		// A new view at rest: a first picture at the screen scale of
		// moving frames, if reduced, then at full scale level by level.
		o.key, o.level, o.full = key, coarse, screenScales[o.scale] == 1
		if r.again == nil { // a picture or a movie's frame: the final one only
			o.level, o.full = finest, true
		}
	}
	again := false
	if vs.moving || !o.full {
		s := screenScales[o.scale]
		ps := scaledPlane(full, s)
		k = max(finest, oblique.ChooseLevel(m, ps))
		opts.Step = levelStep(m, k)
		opts.Labels = o.labels3D(r, ps, k, vs.budget)
		if o.small == nil || o.small.Rect.Dx() != ps.W || o.small.Rect.Dy() != ps.H {
			o.small = image.NewRGBA(image.Rect(0, 0, ps.W, ps.H))
		}
		t1 := time.Now()
		info = o.r.RenderRGBA(o.small, ps, src, k, opts, chans)
		o.adapt(time.Since(t1))
		upscale(out, o.small)
		f3.Scale = s
		if vs.moving {
			o.key = view3dKey{} // refine from the start once the camera rests
		} else {
			o.full, again = true, true
		}
	} else {
		k = max(finest, min(o.level, len(m.Levels)-1))
		opts.Step = levelStep(m, k)
		opts.Labels = o.labels3D(r, full, k, vs.budget)
		info = o.r.RenderRGBA(out, full, src, k, opts, chans)
		if info.Complete && k > finest {
			o.level, again = k-1, true // the next level, in the next frame
		}
		f3.Args = render3DArgs(m, vs.cam, w, h, k, opts)
	}
	if again && r.again != nil {
		r.again()
	}
	prio := levels.Visible
	if r.movie {
		prio = levels.Background
	}
	o.r.Request(src, prio, r.gen)
	// Complete only at the finest level and full screen scale: the
	// drawing loop draws again until then.
	final := k == finest && f3.Scale == 1 && !vs.moving
	ri := render.Info{Level: k, Complete: info.Complete && final, Missing: info.Missing,
		Failed: info.Failed, Err: info.Err}
	if info.Complete && !final {
		ri.Missing = max(1, ri.Missing)
	}
	f3.Complete = ri.Complete
	o.last, o.info, o.f3 = out, ri, f3
	return out, ri, f3
}

// labels3D are the visible label layers of scene r as the 3-D view draws
// them (see sceneLabels).
func (o *view3dDraw) labels3D(r *Scene, p oblique.Plane, k int, budget int64) []raycast.Labels {
	o.labs = sceneLabels(r, p, k, budget, o.labs[:0])
	o.drawn = len(o.labs)
	return o.labs
}

// sceneLabels appends to labs the label layers of scene r as a 3-D
// rendering of plane p from level k of the image draws them: each sampled
// at the image's ray points through its alignment, from its level whose
// samples are no larger than the image's at level k (no finer than half
// of budget bytes holds, when budget is not 0), at the layer's time point
// under the image's.
func sceneLabels(r *Scene, p oblique.Plane, k int, budget int64, labs []raycast.Labels) []raycast.Labels {
	base := r.d.Pyr.Meta()
	for _, l := range r.layers {
		if !l.labels {
			continue
		}
		lm := l.d.Pyr.Meta()
		q := p
		q.Pixel = levelStep(base, k)
		lp, ok := layerPlane(base, lm, l.al, q, p.T)
		if !ok {
			continue
		}
		// layerPlane maps each axis by a scale and a shift: the image's
		// origin and unit steps give them.
		var scale, shift oblique.Vec
		var probe oblique.Plane
		probe.U, probe.V = oblique.Vec{1, 1, 1}, oblique.Vec{}
		mp, _ := layerPlane(base, lm, l.al, probe, p.T)
		scale, shift = mp.U, mp.Center
		var src oblique.Source = l.d.Pyr
		if r.movie {
			src = movieSource{l.d.Pyr}
		}
		lk := max(oblique.ChooseLevel(lm, lp), budgetLevel(lm, budget, raycast.Box{}))
		labs = append(labs, raycast.Labels{Src: src, Level: lk, T: lp.T, Scale: scale, Shift: shift,
			Palette: l.style.Palette, Selected: l.style.Selected})
	}
	return labs
}

// labelsKey names the label layers of layers as the 3-D view draws them:
// a picture of other ones is drawn again.
func labelsKey(layers []layerDraw) string {
	key := ""
	for _, l := range layers {
		if l.labels {
			key += fmt.Sprintf("%p:%d:%d:%d;", l.d, l.style.Selected, len(l.style.Palette), l.d.Pyr.Refreshes())
		}
	}
	return key
}

// adapt chooses the screen scale of the next frame drawn while moving
// from the time the last took: coarser when it took longer than the
// budget, finer when the next finer (four times the pixels) would fit.
func (o *view3dDraw) adapt(took time.Duration) {
	switch {
	case took > movingBudget && o.scale < len(screenScales)-1:
		o.scale++
	case 4*took < movingBudget*3/4 && o.scale > 0:
		o.scale--
	}
}

// scaledPlane is plane p drawn at screen scale s: as many pixels times s
// along each side (at least one), each covering as much more.
func scaledPlane(p oblique.Plane, s float64) oblique.Plane {
	if s >= 1 {
		return p
	}
	w, h := max(1, int(math.Ceil(float64(p.W)*s))), max(1, int(math.Ceil(float64(p.H)*s)))
	p.Pixel *= float64(p.W) / float64(w)
	p.W, p.H = w, h
	return p
}

// upscale fills dst with src enlarged by repeating its pixels (nearest).
func upscale(dst, src *image.RGBA) {
	w, h := dst.Rect.Dx(), dst.Rect.Dy()
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	cols := make([]int, w)
	for x := range cols {
		cols[x] = 4 * min(sw-1, (2*x+1)*sw/(2*w))
	}
	for y := 0; y < h; y++ {
		sy := min(sh-1, (2*y+1)*sh/(2*h))
		srow := src.Pix[sy*src.Stride:]
		drow := dst.Pix[y*dst.Stride : y*dst.Stride+4*w]
		for x, c := range cols {
			copy(drow[4*x:4*x+4], srow[c:c+4])
		}
	}
}

// render3DArgs are the options of `vastview render` that draw what the
// 3-D view draws with camera c at w × h from level k with opts (the
// window and colormap aside).
func render3DArgs(m *loader.Meta, c Camera, w, h, k int, opts raycast.Options) []string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	a := append(c.Args(m, w, h), "--mode", opts.Mode.String(), "--level", strconv.Itoa(k), "--step", f(opts.Step),
		"--interp", opts.Interp.String())
	if opts.Mode == raycast.Iso {
		a = append(a, "--iso", f(opts.Iso))
	}
	if opts.Mode == raycast.Alpha && opts.Opacity > 0 {
		a = append(a, "--opacity", f(opts.Opacity))
	}
	return a
}

// panel3D draws the 3-D view as the fourth of the four panels, w × h,
// through the windows of frame f (the active panel's), and counts what it
// misses in f's Info: while it refines the frame is drawn again, but its
// planes' panels, complete, make it complete (a plane's frame is not held
// back by the 3-D view's refinement; Frame3D.Complete says where that is).
func (p *planePainter) panel3D(r *Scene, f *Frame, w, h int) *image.RGBA {
	v := f.View
	if v.Lo == v.Hi {
		v.Lo, v.Hi = 0, 1
	}
	img, in, f3 := p.v3d.paint(r, v, w, h)
	f.Vol = f3
	f.Info.Missing += in.Missing
	f.Info.Failed += in.Failed
	if in.Err != nil && f.Info.Err == nil {
		f.Info.Err = in.Err
	}
	return img
}
