package volume

import (
	"image"
	"math"
	"runtime"
	"slices"
	"sync/atomic"
	"unsafe"

	"vastview/levels"
	"vastview/loader"
	"vastview/render"
	"vastview/render/oblique"
)

// The tile of the picture one task renders.
const (
	tileW = 64
	tileH = 32
)

// Renderer casts rays through volumes. It keeps its buffers and worker
// goroutines from frame to frame, so that rendering the same or a similar
// picture again allocates nothing. It is not safe for concurrent use (it
// runs its own workers); the zero value is ready to use. Close releases
// the workers (they also end when the Renderer is garbage).
type Renderer struct {
	// Workers is the number of goroutines rendering tiles at once; 0 is
	// GOMAXPROCS.
	Workers int
	// NoSkip samples every slice of every tile, even where the chunks'
	// ranges say it changes nothing (to measure what skipping saves).
	NoSkip bool

	f      *frame
	pool   *pool
	handle *handle

	missed  map[missKey]struct{}
	ml      missList   // the image's chunks missing
	lml     []missList // each label layer's
	nlab    int        // the label layers of the last picture
	lk      []int32    // each ray's nearest label surface: its slice, id and colour
	lid     []uint32
	lcol    [][3]float32
	trans   []float32
	painter render.Painter
	vals    []float32
	scratch []byte
}

type missKey struct {
	level int32
	idx   [5]int32
	n     int8
}

type missEntry struct {
	dist float64
	key  missKey
}

// frame is the state of the frame being rendered, shared by the workers.
type frame struct {
	ws []*worker

	p      oblique.Plane
	src    oblique.Source
	meta   *loader.Meta
	level  int
	o      Options
	w      oblique.Vec // the rays' direction
	step   float64     // D
	sp     oblique.Vec // level 0's spacing
	n      [3]int      // level 0's extent
	margin [3]float64  // in level-0 indices, for the rays' range in the volume
	clipLo [3]float64  // the clip box in level-0 indices, inclusive
	clipHi [3]float64
	// clipped: the rays keep to [clipLo, clipHi] (a clip box, or a labels
	// pass, which keeps to the image's box).
	clipped bool

	// A labels pass: the layer, how the image's physical positions map
	// to the layer's (x·lscale + lshift on each axis), and where each
	// ray's first label is (lk: its slice, MaxInt32 for none; lcol: its
	// shaded colour, W×H each).
	lab            *Labels
	lscale, lshift oblique.Vec
	lk             []int32
	lid            []uint32
	lcol           [][3]float32
	// An image pass under labels: stop (W×H), when set, ends each ray
	// before that slice (the label's); trans (W×H) is multiplied by what
	// each ray lets through (1 − its opacity).
	stop  []int32
	trans []float32

	vals   []float32 // projections: W×H values
	pix    []byte    // colours: the picture's pixels
	stride int
	cm     *render.Colormap
	lo, hi float64
	alpha  [256]float32 // Alpha: opacity per ramp entry
	isoB   int          // Iso: the gradient's half span in output samples
	isoM   int          // and in steps
	rgb    [256][3]float32

	noSkip        bool
	tilesX, tiles int
	next          atomic.Int64
}

// worker is one goroutine's buffers.
type worker struct {
	s       oblique.Sampler
	ls      oblique.Sampler // the labels passes'
	buf     [][]float32     // the slices sampled, in a ring (Iso: 2·isoM + 1)
	mask    [][]uint8
	acc     []float32
	sum     []float64
	cnt     []int32
	ka, kb  []int32
	col     [][4]float32
	hit     []int32
	hk      []int32  // labels pass: the slice of each ray's hit
	hid     []uint32 // and the id there
	nat     []byte   // labels pass: a slice's ids as stored
	missed  map[missKey]struct{}
	sk      skipper
	thr     float32 // MIP, MinIP: the running max (min) a slice must pass to change a ray
	sampled int64
	skipped int64
	failed  int
	err     error
	done    bool // every chunk of the level was in memory
}

func (r *Renderer) workers() int {
	if r.Workers > 0 {
		return r.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// setup readies a frame of p, the rays sampling level of src; the rays'
// geometry (step, extent, clipping) is that of the image of metadata geo
// (nil: src's). lab, when not nil, makes it a labels pass over src.
func (r *Renderer) setup(p oblique.Plane, src oblique.Source, level int, o Options, geo *loader.Meta, lab *Labels) *frame {
	if r.f == nil {
		r.f = &frame{}
		r.missed = map[missKey]struct{}{}
	}
	f := r.f
	nw := r.workers()
	for len(f.ws) < nw {
		f.ws = append(f.ws, &worker{missed: map[missKey]struct{}{}})
	}
	if r.pool != nil && len(r.pool.start) != nw-1 {
		r.pool.stop()
		r.pool, r.handle = nil, nil
	}
	if r.pool == nil && nw > 1 {
		r.pool, r.handle = newPool(f, nw-1)
	}
	m := src.Meta()
	if geo == nil {
		geo = m
	}
	level = max(0, min(len(m.Levels)-1, level))
	f.p, f.src, f.meta, f.level, f.o = p, src, m, level, o
	f.lab, f.stop, f.trans, f.vals, f.pix = lab, nil, nil, nil, nil
	f.lscale, f.lshift = oblique.Vec{1, 1, 1}, oblique.Vec{}
	if lab != nil {
		f.lscale, f.lshift = lab.mapping()
		f.p.T, f.p.C = lab.T, 0
		f.o.Mode, f.o.Iso, f.o.Interp = Iso, 0.5, oblique.Nearest
	}
	f.noSkip = r.NoSkip
	_, _, f.w = basisOf(p)
	f.sp, f.n = oblique.Spacing(geo), oblique.Extent(geo)
	smallest := math.Inf(1)
	for a, c := range []byte("ZYX") {
		if geo.AxisIndex(c) >= 0 {
			smallest = min(smallest, f.sp[a])
		}
	}
	if math.IsInf(smallest, 0) {
		smallest = 1
	}
	f.step = o.Step
	if !(f.step > 0) || math.IsInf(f.step, 0) {
		f.step = smallest
	}
	// The rays' range is found with a margin of a sample of the level
	// (whose extent may differ from level 0's by that much) and a step;
	// the sampler then says which samples are inside. A labels pass
	// keeps to the image's box exactly.
	lv := &m.Levels[level]
	msp := oblique.Spacing(m)
	f.clipped = !o.Clip.IsZero() || lab != nil
	span := 0.0 // a sample of the level, in the image's physical units
	for a, c := range []byte("ZYX") {
		f.margin[a] = 1
		if i := m.AxisIndex(c); i >= 0 && lv.Shape[i] > 0 {
			s := float64(m.Shape[i]) / float64(lv.Shape[i])
			f.margin[a] = s + 1
			span = max(span, msp[a]*s/math.Abs(f.lscale[a]))
		}
		f.margin[a] += f.step / f.sp[a]
		f.clipLo[a], f.clipHi[a] = math.Inf(-1), math.Inf(1)
		if lab != nil {
			// The points whose nearest sample of the image is inside.
			f.clipLo[a], f.clipHi[a] = -0.5-1e-9, float64(f.n[a])-0.5-2e-9
		}
		if !o.Clip.IsZero() {
			// The points whose nearest sample is inside: the sampler's
			// rounding moves points on a boundary up by a snap.
			f.clipLo[a] = max(f.clipLo[a], float64(o.Clip.Lo[a])-0.5-1e-9)
			f.clipHi[a] = min(f.clipHi[a], float64(o.Clip.Hi[a])-0.5-2e-9)
		}
	}
	// Iso's gradient spans at least the level's largest sample.
	f.isoB = int(max(1, min(8, math.Ceil(span/p.Pixel-1e-9))))
	f.isoM = int(max(1, min(8, math.Ceil(span/f.step-1e-9))))
	f.tilesX = (p.W + tileW - 1) / tileW
	f.tiles = f.tilesX * ((p.H + tileH - 1) / tileH)
	for _, w := range f.ws[:nw] {
		w.reserve(f)
		clear(w.missed)
		w.sampled, w.skipped, w.failed, w.err, w.done = 0, 0, 0, nil, true
		w.sk.prepare(f)
	}
	if o.Mode == Alpha {
		op := o.Opacity
		if !(op > 0) || op > 1 {
			op = 1
		}
		e := f.step / smallest
		for i := range f.alpha {
			a := op * float64(i) / 255
			if e != 1 {
				a = 1 - math.Pow(1-a, e)
			}
			f.alpha[i] = float32(a)
		}
	}
	return f
}

// basisOf returns the plane's directions and its normal w = u × v, made
// unit length.
func basisOf(p oblique.Plane) (u, v, w oblique.Vec) {
	w = p.U.Cross(p.V)
	if l := math.Sqrt(w.Dot(w)); l > 0 {
		w = w.Scale(1 / l)
	}
	return p.U, p.V, w
}

// run renders every tile of the frame set up, with the workers.
func (r *Renderer) run(f *frame) {
	f.next.Store(0)
	if r.pool != nil {
		r.pool.run()
		return
	}
	f.work(0)
}

// Render casts one ray per output sample of p (W×H, row-major into dst,
// which must hold that many) through level of src, and writes what the
// projection mode o.Mode gives: the max, min or mean of each ray's
// samples, 0 for a ray that meets none. Alpha and Iso give no values
// (use RenderRGBA): dst is zeroed. It never waits for I/O: samples whose
// chunks are not in memory come from coarser levels.
func (r *Renderer) Render(dst []float32, p oblique.Plane, src oblique.Source, level int, o Options) Info {
	if p.W <= 0 || p.H <= 0 {
		return Info{Level: level, Complete: true}
	}
	dst = dst[:p.W*p.H]
	if !o.Mode.Projects() {
		clear(dst)
		return Info{Level: level, Complete: true}
	}
	f := r.setup(p, src, level, o, nil, nil)
	f.vals, f.pix = dst, nil
	r.run(f)
	info := r.start(f)
	r.gather(f, &info)
	r.nlab = 0
	return r.order(f, info, &r.ml)
}

// RenderRGBA draws the picture of p through level of src into dst (its
// pixels from the origin, W×H of them; dst's bounds must hold them): the
// projections through the window and colormap, Alpha and Iso as their
// modes say, on black. Each channel of chans is rendered in its window and
// colormap and the colours added, each byte clamped at 255, as the 2-D
// composite adds them; with no channels, channel p.C is drawn in
// o.Window and o.Colormap. It never waits for I/O.
func (r *Renderer) RenderRGBA(dst *image.RGBA, p oblique.Plane, src oblique.Source, level int, o Options, chans []render.Channel) Info {
	if p.W <= 0 || p.H <= 0 {
		return Info{Level: level, Complete: true}
	}
	var lab Info
	r.nlab = 0
	if len(o.Labels) > 0 {
		lab = r.castLabels(p, src.Meta(), o)
		r.trans = growF(r.trans, p.W*p.H)
		for i := range r.trans {
			r.trans[i] = 1
		}
	}
	var info Info
	if len(chans) == 0 {
		cm := o.Colormap
		if cm == nil {
			cm = render.ColormapOrGray("gray")
		}
		f := r.channel(dst.Pix, dst.Stride, p, src, level, o, cm, o.Window[0], o.Window[1])
		info = r.start(f)
		r.gather(f, &info)
		info = r.order(f, info, &r.ml)
	} else {
		info = r.channels(dst, p, src, level, o, chans)
	}
	if len(o.Labels) > 0 {
		r.drawLabels(dst.Pix, dst.Stride, p, o.Mode)
		info.add(lab)
	}
	return info
}

// channels draws and adds the channels chans (see RenderRGBA).
func (r *Renderer) channels(dst *image.RGBA, p oblique.Plane, src oblique.Source, level int, o Options, chans []render.Channel) Info {
	var f *frame
	var info Info
	for i, ch := range chans {
		q := p
		q.C = ch.C
		cm := render.ColormapOrGray(ch.Colormap)
		if i == 0 {
			f = r.channel(dst.Pix, dst.Stride, q, src, level, o, cm, ch.Lo, ch.Hi)
			info = r.start(f)
			r.gather(f, &info)
			continue
		}
		n := p.H * dst.Stride
		if cap(r.scratch) < n {
			r.scratch = make([]byte, n)
		}
		sc := r.scratch[:n]
		f = r.channel(sc, dst.Stride, q, src, level, o, cm, ch.Lo, ch.Hi)
		r.gather(f, &info)
		for y := 0; y < p.H; y++ {
			render.AddPixels(dst.Pix[y*dst.Stride:y*dst.Stride+4*p.W], sc[y*dst.Stride:y*dst.Stride+4*p.W])
		}
	}
	return r.order(f, info, &r.ml)
}

// channel draws one channel into pix (rows stride bytes apart).
func (r *Renderer) channel(pix []byte, stride int, p oblique.Plane, src oblique.Source, level int, o Options,
	cm *render.Colormap, lo, hi float64) *frame {
	f := r.setup(p, src, level, o, nil, nil)
	f.cm, f.lo, f.hi = cm, lo, hi
	if len(o.Labels) > 0 {
		// Under label surfaces: what is behind one is hidden.
		f.trans = r.trans
		if o.Mode == Alpha || o.Mode == Iso {
			f.stop = r.lk
		}
	}
	if o.Mode.Projects() {
		n := p.W * p.H
		if cap(r.vals) < n {
			r.vals = make([]float32, n)
		}
		f.vals, f.pix = r.vals[:n], nil
		r.run(f)
		b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(f.vals))), 4*n)
		for y := 0; y < p.H; y++ {
			r.painter.Paint(pix[y*stride:y*stride+4*p.W], b[4*y*p.W:4*(y+1)*p.W], loader.Float32, lo, hi, cm)
		}
		return f
	}
	for i, c := range cm.LUT {
		f.rgb[i] = [3]float32{float32(c[0]), float32(c[1]), float32(c[2])}
	}
	f.vals, f.pix, f.stride = nil, pix, stride
	r.run(f)
	return f
}

// start begins the Info of a picture: no chunk missing yet.
func (r *Renderer) start(f *frame) Info {
	clear(r.missed)
	return Info{Level: f.level, Complete: true}
}

// gather adds the workers' results of frame f to info and the missing
// chunks to the Renderer's.
func (r *Renderer) gather(f *frame, info *Info) {
	for _, w := range f.ws[:r.workers()] {
		info.Samples += w.sampled
		info.Skipped += w.skipped
		info.Failed += w.failed
		if info.Err == nil {
			info.Err = w.err
		}
		if !w.done {
			info.Complete = false
		}
		for k := range w.missed {
			r.missed[k] = struct{}{}
		}
	}
}

// missList is the chunks of one source missing from a picture, nearest
// the central ray first.
type missList struct {
	src    oblique.Source // a labels pass's layer (the image's is given to Request)
	level  int
	miss   []missEntry
	reqs   [][]int
	reqBuf []int
}

// order lists the missing chunks of frame f in ml, nearest the central
// ray first, and returns info with their number.
func (r *Renderer) order(f *frame, info Info, ml *missList) Info {
	ml.miss, ml.reqs, ml.reqBuf = ml.miss[:0], ml.reqs[:0], ml.reqBuf[:0]
	m := f.meta
	lv := &m.Levels[f.level]
	sp := oblique.Spacing(m)
	// The central ray, in the physical space of the data sampled.
	c, w := mulVec(f.p.Center, f.lscale).Add(f.lshift), mulVec(f.w, f.lscale)
	if l := math.Sqrt(w.Dot(w)); l > 0 {
		w = w.Scale(1 / l)
	}
	for k := range r.missed {
		var x oblique.Vec
		for a, ch := range []byte("ZYX") {
			i := m.AxisIndex(ch)
			if i < 0 || int(k.n) <= i {
				continue
			}
			s := int(k.idx[i]) * lv.Chunk[i]
			e := min(lv.Shape[i], s+lv.Chunk[i])
			q := float64(s+e-1) / 2
			f0 := float64(m.Shape[i]) / float64(max(1, lv.Shape[i]))
			x[a] = ((q+0.5)*f0 - 0.5) * sp[a]
		}
		d := x.Add(c.Scale(-1))
		d = d.Add(w.Scale(-d.Dot(w)))
		ml.miss = append(ml.miss, missEntry{d.Dot(d), k})
	}
	slices.SortFunc(ml.miss, func(a, b missEntry) int {
		switch {
		case a.dist < b.dist:
			return -1
		case a.dist > b.dist:
			return 1
		}
		for i := range a.key.idx {
			if c := int(a.key.idx[i]) - int(b.key.idx[i]); c != 0 {
				return c
			}
		}
		return 0
	})
	n := len(m.Axes)
	if cap(ml.reqBuf) < n*len(ml.miss) {
		ml.reqBuf = make([]int, 0, n*len(ml.miss))
	}
	for _, e := range ml.miss {
		at := len(ml.reqBuf)
		for i := 0; i < n; i++ {
			ml.reqBuf = append(ml.reqBuf, int(e.key.idx[i]))
		}
		ml.reqs = append(ml.reqs, ml.reqBuf[at:at+n:at+n])
	}
	ml.level = f.level
	info.Missing = len(ml.reqs)
	return info
}

// Missing returns the chunks of the image's level last rendered that
// were not in memory, nearest the central ray first (those of label
// layers are asked for by Request). The slices are the Renderer's, valid
// until its next call.
func (r *Renderer) Missing() (level int, idxs [][]int) { return r.ml.level, r.ml.reqs }

// Request asks src for the chunks Missing lists, and each label layer of
// the last picture for those it missed, at priority prio for the view
// generation gen.
func (r *Renderer) Request(src oblique.Source, prio levels.Priority, gen uint64) {
	if len(r.ml.reqs) > 0 {
		src.Request(prio, gen, r.ml.level, r.ml.reqs...)
	}
	for _, ml := range r.lml[:r.nlab] {
		if len(ml.reqs) > 0 {
			ml.src.Request(prio, gen, ml.level, ml.reqs...)
		}
	}
}

// Forget drops the chunks the workers remember from recent frames.
func (r *Renderer) Forget() {
	if r.f != nil {
		for _, w := range r.f.ws {
			w.s.Forget()
			w.ls.Forget()
		}
	}
}

// Close stops the Renderer's worker goroutines; it may be used again
// afterwards (they start again).
func (r *Renderer) Close() {
	if r.pool != nil {
		r.pool.stop()
		r.pool, r.handle = nil, nil
	}
}
