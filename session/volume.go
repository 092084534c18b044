package session

import (
	"errors"
	"image"
	"math"

	"vastview/levels"
	"vastview/render"
	"vastview/render/oblique"
	volren "vastview/render/volume"
)

// castScene is a 3-D rendering drawn instead of the view's plane: rays
// cast through the volume from the samples of a plane along its normal
// (see Picture.Cast); the view gives the channels, windows and colormap.
type castScene struct {
	plane oblique.Plane
	level int
	opts  volren.Options
}

// volumeDraw is what the painter keeps to draw 3-D renderings: the
// renderer (its workers and buffers) and pictures in turn.
type volumeDraw struct {
	r    volren.Renderer
	bufs [3]*image.RGBA
	next int
}

// paintVolume draws the 3-D rendering of scene r from the level it
// names, what is not in memory from coarser levels (and asked for,
// nearest the centre first), through the view's windows (those left to
// choose chosen by auto-contrast) and colormaps, with the label layers
// as the 3-D view draws them; an Iso threshold that is NaN is the middle
// of the first window.
func (p *planePainter) paintVolume(r *Scene) *Frame {
	pyr := r.d.Pyr
	cs := r.cast
	v := r.view
	pl := cs.plane
	v.Width, v.Height = pl.W, pl.H
	v.T, v.C = pl.T, pl.C
	auto := v.Lo == v.Hi
	var chans []render.Channel
	if len(v.Channels) > 0 {
		chans = make([]render.Channel, len(v.Channels))
		copy(chans, v.Channels)
		for i := range chans {
			if ch := &chans[i]; ch.Lo == ch.Hi {
				auto = true
				ch.Lo, ch.Hi = p.autoWindow(r.d, render.ChannelView(v, *ch))
			}
		}
		v.Channels = chans
		v.Lo, v.Hi = chans[0].Lo, chans[0].Hi
	} else if auto {
		v.Lo, v.Hi = p.autoWindow(r.d, v)
	}
	o := cs.opts
	o.Window = [2]float64{v.Lo, v.Hi}
	if o.Window[0] == o.Window[1] {
		o.Window = [2]float64{0, 1}
	}
	o.Colormap = render.ColormapOrGray(v.Colormap)
	if math.IsNaN(o.Iso) {
		o.Iso = (o.Window[0] + o.Window[1]) / 2
	}
	vd := &p.vol
	vd.next = (vd.next + 1) % len(vd.bufs)
	img := vd.bufs[vd.next]
	if img == nil || img.Rect.Dx() != pl.W || img.Rect.Dy() != pl.H {
		img = image.NewRGBA(image.Rect(0, 0, pl.W, pl.H))
		vd.bufs[vd.next] = img
	}
	o.Labels = sceneLabels(r, pl, cs.level, 0, nil)
	info := vd.r.RenderRGBA(img, pl, pyr, cs.level, o, chans)
	vd.r.Request(pyr, levels.Visible, r.gen)
	ri := render.Info{Level: info.Level, Complete: info.Complete, Missing: info.Missing,
		Failed: info.Failed, Err: info.Err}
	f := &Frame{Img: img, View: v, Info: ri, data: r.d, gen: r.gen, auto: auto}
	f.readTotal, _ = pyr.BytesRead()
	return f
}

// Cast has the picture show a 3-D rendering instead of the view's plane:
// one ray per sample of pl (pl.W × pl.H pixels) along its normal, through
// level k, as o says (see volren.Renderer.RenderRGBA); the view gives the
// channel (or channels), windows and colormap. An o.Iso of NaN is the
// middle of the window.
func (pc *Picture) Cast(pl oblique.Plane, k int, o volren.Options) error {
	if err := pc.Sample(pl, k, o.Interp == oblique.Linear); err != nil {
		return err
	}
	pc.sc.sampled = nil
	pc.sc.cast = &castScene{plane: pl, level: k, opts: o}
	return nil
}

// Orbit has the movie show 3-D renderings (see Picture.Cast) instead of
// the view's plane: frame i cast through plane frames[i] (the camera
// turning about the volume, say), from level k, as o says. Write then
// writes one frame per plane (MovieOptions.From and To pick some), their
// series named NAME_a0000.png, ...
func (mv *Movie) Orbit(frames []oblique.Plane, k int, o volren.Options) error {
	if len(frames) == 0 {
		return errors.New("an orbit of no frames")
	}
	for _, pl := range frames {
		if err := mv.Cast(pl, k, o); err != nil {
			return err
		}
	}
	mv.orbit = frames
	return nil
}

// orbitAxis names the frames of an orbit in a series.
const orbitAxis = 'A'
