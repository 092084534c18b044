package volume

import (
	"math"
	"unsafe"

	"vastview/loader"
	"vastview/render"
	"vastview/render/oblique"
)

// Labels is a label volume drawn in 3-D with the image, as opaque
// surfaces: each ray of the picture shows the first sample (front to
// back, at the image's ray points P + k·D·w inside the image's box and
// the clipping, nearest sampling, never interpolated) whose label id is
// not 0, in that label's colour (the 2-D palette: Palette, else
// render.LabelColour), shaded by the gradient of the labelled region as
// Iso shades its surface.
//
// How the surfaces and the image's rendering combine, as a volume viewer
// with segmentation meshes shows them: the projections (MIP, MinIP,
// Mean) have no depth, so a ray that meets a label shows the label's
// surface over them; Iso and Alpha have depth: the image's rays end at
// the label's surface, an isosurface in front of it hides it, and a
// translucent rendering in front of it is composited over it (the
// surface gets what the samples in front let through). Several layers:
// the nearest surface of any, the upper layer's (later in
// Options.Labels) on a tie.
type Labels struct {
	// Src holds the ids (its channel 0).
	Src oblique.Source
	// Level is Src's level the ids are read from (samples not in memory
	// come from coarser levels, as the image's do, and are listed).
	Level int
	// T is Src's time point.
	T int
	// Scale and Shift map the image's physical positions to Src's: x·Scale
	// + Shift on each axis (Z, Y, X). The zero Scale is the identity.
	Scale, Shift oblique.Vec
	// Palette, when the file gives its labels colours, is the colour of
	// each id below its length (as render.LabelStyle.Palette).
	Palette [][3]uint16
	// Selected, when not 0, is the only label drawn.
	Selected uint32
}

// mapping returns the map of the image's physical positions to Src's.
func (l *Labels) mapping() (scale, shift oblique.Vec) {
	if l.Scale == (oblique.Vec{}) {
		return oblique.Vec{1, 1, 1}, l.Shift
	}
	return l.Scale, l.Shift
}

// id is the label of sample i of buf (of type dt), 0 for one not drawn.
func (l *Labels) id(buf []byte, dt loader.DType, i int) uint32 {
	id := render.LabelKey(buf, dt, i)
	if l.Selected != 0 && id != l.Selected {
		return 0
	}
	return id
}

// colour is the colour of label id.
func (l *Labels) colour(id uint32) [3]float32 {
	if int64(id) < int64(len(l.Palette)) {
		c := l.Palette[id]
		return [3]float32{float32(c[0] >> 8), float32(c[1] >> 8), float32(c[2] >> 8)}
	}
	c := render.LabelColour(id)
	return [3]float32{float32(c[0]), float32(c[1]), float32(c[2])}
}

func mulVec(a, b oblique.Vec) oblique.Vec { return oblique.Vec{a[0] * b[0], a[1] * b[1], a[2] * b[2]} }

// toLayer is plane q of the image as the layer's plane at the same
// place.
func (f *frame) toLayer(q oblique.Plane) oblique.Plane {
	q.Center = mulVec(q.Center, f.lscale).Add(f.lshift)
	q.U, q.V = mulVec(q.U, f.lscale), mulVec(q.V, f.lscale)
	return q
}

// labelMask turns the ids just sampled (w.nat) into the slice in buffer
// b: 1 where a label is drawn, else 0.
func (w *worker) labelMask(f *frame, b, n int) {
	vals, mask := w.buf[b][:n], w.mask[b][:n]
	dt := f.meta.DType
	if f.lab.Selected == 0 && !dt.Float() {
		// An integer id is 0 exactly when its bytes are (samples outside
		// the data, or not in memory, are 0).
		switch dt.Size() {
		case 1:
			nonZero(vals, w.nat[:n])
		case 2:
			nonZero(vals, unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(w.nat))), n))
		case 4:
			nonZero(vals, unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(w.nat))), n))
		default:
			nonZero(vals, unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(w.nat))), n))
		}
		return
	}
	for i := range vals {
		v := float32(0)
		if mask[i] == oblique.Sampled && f.lab.id(w.nat, dt, i) != 0 {
			v = 1
		}
		vals[i] = v
	}
}

// nonZero sets each of vals to 1 where ids holds a value other than 0,
// else to 0.
func nonZero[T uint8 | uint16 | uint32 | uint64](vals []float32, ids []T) {
	ids = ids[:len(vals)]
	for i, v := range ids {
		vals[i] = float32(b2i(v != 0))
	}
}

// castLabels runs the labels pass of every layer of o.Labels over plane
// p of the image of metadata geo: r.lk and r.lcol get each ray's nearest
// label surface. It returns what was missing.
func (r *Renderer) castLabels(p oblique.Plane, geo *loader.Meta, o Options) Info {
	n := p.W * p.H
	r.lk, r.lid, r.lcol = grow(r.lk, n), grow(r.lid, n), grow(r.lcol, n)
	for i := range r.lk {
		r.lk[i] = math.MaxInt32
	}
	clear(r.lid)
	for len(r.lml) < len(o.Labels) {
		r.lml = append(r.lml, missList{})
	}
	r.nlab = len(o.Labels)
	all := Info{Complete: true}
	for i := range o.Labels {
		l := &o.Labels[i]
		f := r.setup(p, l.Src, l.Level, o, geo, l)
		f.lk, f.lid, f.lcol = r.lk, r.lid, r.lcol
		r.run(f)
		info := r.start(f)
		r.gather(f, &info)
		info = r.order(f, info, &r.lml[i])
		r.lml[i].src = l.Src
		all.add(info)
	}
	return all
}

// LabelIDs returns the id of the label surface each ray of the last
// RenderRGBA shows (W×H, row-major; 0: none), empty when it drew no label
// layers. The slice is the Renderer's, valid until its next call.
func (r *Renderer) LabelIDs() []uint32 {
	if r.nlab == 0 {
		return nil
	}
	return r.lid
}

// drawLabels lays the label surfaces of the last labels pass over the
// picture in dst (W×H from the origin, rows stride bytes apart) rendered
// in mode: over the projections; added, through what the rays let
// through (r.trans), to the others.
func (r *Renderer) drawLabels(pix []byte, stride int, p oblique.Plane, mode Mode) {
	for y := 0; y < p.H; y++ {
		row := pix[y*stride : y*stride+4*p.W]
		for x := 0; x < p.W; x++ {
			o := y*p.W + x
			if r.lk[o] == math.MaxInt32 {
				continue
			}
			c := &r.lcol[o]
			px := row[4*x : 4*x+4]
			if mode.Projects() {
				px[0], px[1], px[2] = uint8(min(255, c[0]+0.5)), uint8(min(255, c[1]+0.5)), uint8(min(255, c[2]+0.5))
				continue
			}
			t := r.trans[o]
			for k := 0; k < 3; k++ {
				px[k] = uint8(min(255, float32(px[k])+t*c[k]+0.5))
			}
		}
	}
}

// sampler is the worker's sampler for frame f: a labels pass has its
// own, so that the image's chunks it remembers stay.
func (w *worker) sampler(f *frame) *oblique.Sampler {
	if f.lab != nil {
		return &w.ls
	}
	return &w.s
}
