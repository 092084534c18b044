package session

import (
	"encoding/binary"
	"image"
	"math"

	"vastview/levels"
	"vastview/loader"
	"vastview/render"
	"vastview/render/oblique"
)

// layerPlane is oblique plane pl of base data as the plane of a layer
// of data lm laid over it by alignment al shows the same place: each
// output sample at the layer's point where the base's lies (the
// alignment maps each axis by a scale and a shift, so the plane's centre
// and directions map as they are); T the layer's time point under the
// base's t. ok is false for a layer without the three spatial axes, or
// whose time points do not reach t.
func layerPlane(base, lm *loader.Meta, al render.Alignment, pl oblique.Plane, t int) (lp oblique.Plane, ok bool) {
	for _, a := range []byte("ZYX") {
		if lm.AxisIndex(a) < 0 || base.AxisIndex(a) < 0 {
			return lp, false
		}
	}
	lt, in := al.Index('T', t)
	if !in {
		return lp, false
	}
	spb, spl := oblique.Spacing(base), oblique.Spacing(lm)
	lp = pl
	lp.T = lt
	for a, c := range []byte("ZYX") {
		// Base position x (a sample's centre at index × spacing) to the
		// layer's: index x/spb, its cell coordinate +0.5, aligned, back to
		// the centre's index −0.5, times the layer's spacing.
		f := func(x float64) float64 { return spl[a] * (al.Coord(c, x/spb[a]+0.5) - 0.5) }
		t0 := f(0)
		d := f(1) - t0
		lp.Center[a] = d*pl.Center[a] + t0
		lp.U[a], lp.V[a] = d*pl.U[a], d*pl.V[a]
	}
	return lp, true
}

// layerDrawing is what the painter keeps to draw one layer over oblique
// planes.
type layerDrawing struct {
	ob  obliqueDraw
	pic *image.RGBA // the layer's picture (an image layer's colours, a label layer's ids)
	tmp *image.RGBA // one channel of an image layer's
}

// drawObliqueLayers draws the layers of scene r over img, the picture of
// oblique plane pl of view v of the data, each sampled on the same plane
// through its alignment: label layers by the nearest sample, image layers
// as the view samples (v.Linear) through their channels' windows. It
// counts their missing and failed chunks in info and returns how many it
// drew.
func (p *planePainter) drawObliqueLayers(img *image.RGBA, info *render.Info, r *Scene, pl oblique.Plane, v render.View) (drawn int) {
	if len(p.lr) < len(r.layers) {
		lr := make([]render.Renderer, len(r.layers))
		copy(lr, p.lr)
		p.lr = lr
	}
	for len(p.lob) < len(r.layers) {
		p.lob = append(p.lob, &layerDrawing{})
	}
	base := r.d.Pyr.Meta()
	prio := levels.Visible
	for i, l := range r.layers {
		lm := l.d.Pyr.Meta()
		lp, ok := layerPlane(base, lm, l.al, pl, v.T)
		if !ok {
			continue
		}
		var src oblique.Source = l.d.Pyr
		if r.movie {
			src = movieSource{l.d.Pyr}
		}
		ld := p.lob[i]
		ld.pic = rgbaOf(ld.pic, pl.W, pl.H)
		k := oblique.ChooseLevel(lm, lp)
		var in oblique.Info
		if l.labels {
			lp.C = 0
			buf, dt, got := ld.ob.sampleBuf(src, r, lp, k, false, prio)
			in = got
			labelIDs(ld.pic.Pix, buf, dt, ld.ob.mask)
			render.OverlayLabels(img, ld.pic, l.style)
		} else {
			lv, _ := l.al.View(v, base, l.chans[0].C)
			chans := p.layerWindows(&p.lr[i], l, lv)
			in = oblique.Info{Complete: true}
			for j, ch := range chans {
				lp.C = ch.C
				buf, dt, got := ld.ob.sampleBuf(src, r, lp, k, v.Linear, prio)
				in.Level, in.Complete = got.Level, in.Complete && got.Complete
				in.Missing += got.Missing
				in.Failed += got.Failed
				if got.Err != nil {
					in.Err = got.Err
				}
				dst := ld.pic
				if j > 0 {
					ld.tmp = rgbaOf(ld.tmp, pl.W, pl.H)
					dst = ld.tmp
				}
				ld.ob.pt.Paint(dst.Pix, buf, dt, ch.Lo, ch.Hi, render.ColormapOrGray(ch.Colormap))
				for q, st := range ld.ob.mask {
					a := uint8(0)
					if st == oblique.Sampled {
						a = 255
					}
					if j == 0 {
						dst.Pix[4*q+3] = a
						continue
					}
					for c := 0; c < 3; c++ { // the channels' colours added, clamped
						ld.pic.Pix[4*q+c] = uint8(min(255, int(ld.pic.Pix[4*q+c])+int(dst.Pix[4*q+c])))
					}
				}
			}
			render.Overlay(img, ld.pic, l.style.Opacity, l.blend)
		}
		info.Missing += in.Missing
		info.Failed += in.Failed
		info.Complete = info.Complete && in.Complete
		if in.Err != nil && info.Err == nil {
			info.Err = in.Err
		}
		drawn++
	}
	return drawn
}

// rgbaOf is img if it is w×h, else a new picture of that size.
func rgbaOf(img *image.RGBA, w, h int) *image.RGBA {
	if img == nil || img.Rect.Dx() != w || img.Rect.Dy() != h {
		return image.NewRGBA(image.Rect(0, 0, w, h))
	}
	return img
}

// labelIDs writes the label ids of samples buf (of type dt) into pix, as
// render.RenderLabels draws them (render.LabelKey, a little-endian uint32
// a pixel), 0 where mask says there is no sample.
func labelIDs(pix, buf []byte, dt loader.DType, mask []uint8) {
	for i, st := range mask {
		var id uint32
		if st == oblique.Sampled {
			id = render.LabelKey(buf, dt, i)
		}
		binary.LittleEndian.PutUint32(pix[4*i:], id)
	}
}

// sampleAt is the sample of the layer's channel c under viewport
// position (x, y) of view v of the base (whose metadata is base), from
// the finest level in memory: on oblique plane pl when it is not nil,
// the layer's sample nearest the point the pixel there samples (see
// layerPlane); false where the layer has none in memory there.
func (l *layer) sampleAt(base *loader.Meta, v render.View, pl *oblique.Plane, c int, x, y float64) ([]byte, bool) {
	if pl == nil {
		lv, ok := l.al.View(v, base, c)
		if !ok {
			return nil, false
		}
		b, _, ok := render.SampleAt(l.d.Pyr, lv, x, y)
		return b, ok
	}
	lm := l.d.Pyr.Meta()
	lp, ok := layerPlane(base, lm, l.al, *pl, v.T)
	if !ok {
		return nil, false
	}
	lp.Center = lp.At(math.Floor(y), math.Floor(x))
	lp.W, lp.H, lp.C = 1, 1, c
	var s oblique.Sampler
	st := []uint8{0}
	s.Mask = st
	b := make([]byte, lm.DType.Size())
	s.Native(b, lp, l.d.Pyr, 0)
	return b, st[0] == oblique.Sampled
}
