package session

import (
	"context"
	"errors"
	"fmt"
	"image"

	"vastview/loader"
	"vastview/render"
	"vastview/render/oblique"
)

// Picture is a view of data to draw off the window, complete: what
// `vastview plane --out .png` writes and what each frame of a movie
// shows. It is drawn by the painter the window draws with, so the
// command line and the screen show the same picture. It holds its data
// (and the layers laid over it) until Close. A Picture is not safe for
// concurrent use.
type Picture struct {
	sc     Scene
	projs  []*projection // its own, closed by Close
	layers []*Data       // held for the picture, released by Close
}

// NewPicture is a picture of view v of d, v.Width × v.Height pixels (a
// Zoom of 0 fits the plane), with the scale bar drawn if scaleBar is set.
// It holds d until Close.
func NewPicture(d *Data, v render.View, scaleBar bool) (*Picture, error) {
	if !d.acquire() {
		return nil, errors.New("the data is closed")
	}
	if !(v.Zoom > 0) {
		v.Zoom, v.Center = render.Fit(d.Pyr.Meta(), v)
	}
	return &Picture{sc: Scene{d: d, view: v, scaleBar: scaleBar}}, nil
}

// AddLabels lays the labels of ld over the picture, aligned by physical
// coordinates (see render.Align), at opacity 0..1, in the file's colours.
// The picture holds ld until Close.
func (pc *Picture) AddLabels(ld *Data, opacity float64) error {
	al, err := render.Align(pc.sc.d.Pyr.Meta(), ld.Pyr.Meta())
	if err != nil {
		return err
	}
	if !ld.acquire() {
		return errors.New("the labels are closed")
	}
	pc.layers = append(pc.layers, ld)
	pc.sc.layers = append(pc.sc.layers, layerDraw{d: ld, al: al, labels: true,
		style: render.LabelStyle{Opacity: opacity, Palette: ld.Pyr.Meta().Palette}})
	return nil
}

// Project has the picture show the projection by op along the axis
// normal to its plane over level-0 planes a..b (inclusive) instead of the
// plane.
func (pc *Picture) Project(op loader.Projection, a, b int) error {
	m := pc.sc.d.Pyr.Meta()
	_, _, normal := pc.sc.view.Orientation.Axes()
	if m.AxisIndex(normal) < 0 {
		return fmt.Errorf("no %c axis to project along", normal)
	}
	if n := m.Size(normal); a < 0 || b < a || b >= n {
		return fmt.Errorf("slab %d:%d is outside %c 0..%d", a, b, normal+'a'-'A', n-1)
	}
	pc.sc.proj = newProjection(pc.sc.d.Pyr, op, normal, a, b)
	pc.projs = append(pc.projs, pc.sc.proj)
	return nil
}

// Sample has the picture show plane pl through the volume, in any
// orientation, instead of the view's plane: sampled from level k (a
// computed level from the ones it covers), nearest or, with linear,
// trilinear, pl.W × pl.H pixels, the background where the plane leaves
// the data. The view gives the channel, window and colormap, drawn as the
// window draws a turned plane (see ObliquePlane).
func (pc *Picture) Sample(pl oblique.Plane, k int, linear bool) error {
	m := pc.sc.d.Pyr.Meta()
	if k < 0 || k >= len(m.Levels) {
		return fmt.Errorf("no level %d (%d with the computed ones)", k, len(m.Levels))
	}
	if pl.W < 1 || pl.H < 1 {
		return fmt.Errorf("a plane of %d×%d samples", pl.W, pl.H)
	}
	pc.sc.sampled = &sampledPlane{plane: pl, level: k}
	pc.sc.view.Linear = linear
	pc.sc.view.Width, pc.sc.view.Height = pl.W, pl.H
	return nil
}

// ProjectSlab has the plane Sample gave drawn as the projection by op
// along its normal over slab sl's planes.
func (pc *Picture) ProjectSlab(op loader.Projection, sl oblique.Slab) error {
	if pc.sc.sampled == nil {
		return errors.New("a slab of no plane")
	}
	if sl.B < sl.A || !(sl.Step > 0) || sl.B-sl.A >= 1<<16 {
		return fmt.Errorf("slab %d:%d of step %v", sl.A, sl.B, sl.Step)
	}
	pc.sc.slab = &obliqueSlab{op: op, slab: &sl}
	return nil
}

// Close releases the data the picture holds.
func (pc *Picture) Close() {
	for _, p := range pc.projs {
		p.close()
	}
	pc.sc.d.Release()
	for _, l := range pc.layers {
		l.Release()
	}
}

// Draw draws the picture complete, from the levels its size needs, the
// windows left to choose chosen by auto-contrast as the window chooses
// them; it waits for the chunks it needs, and fails when one cannot be
// read or ctx ends.
func (pc *Picture) Draw(ctx context.Context) (*image.RGBA, error) {
	wake, stop := pc.arrivals()
	defer stop()
	sc := pc.sc
	sc.movie = true // its chunks asked for first come, first served
	f, err := drawComplete(ctx, newPlanePainter(), &sc, wake)
	if err != nil {
		return nil, err
	}
	return f.Img, nil
}

// arrivals is a channel that receives when chunks of the picture's data
// or layers arrive (at most one waiting), and the function that stops it.
func (pc *Picture) arrivals() (<-chan struct{}, func()) {
	wake := make(chan struct{}, 1)
	var unsubs []func()
	for _, d := range append([]*Data{pc.sc.d}, pc.layers...) {
		events, unsub := d.Pyr.Subscribe()
		unsubs = append(unsubs, unsub)
		go func() {
			for range events {
				select {
				case wake <- struct{}{}:
				default:
				}
			}
		}()
	}
	return wake, func() {
		for _, u := range unsubs {
			u()
		}
	}
}

// drawComplete paints sc with p until the frame is complete, waiting on
// wake for chunks to arrive; it fails when chunks the frame needs failed
// to load (the error of the first) or ctx ends. sc's prefetch is asked
// for with the first drawing only.
func drawComplete(ctx context.Context, p painter, sc *Scene, wake <-chan struct{}) (*Frame, error) {
	for {
		f := p.paint(sc)
		if f.Info.Complete {
			return f, nil
		}
		if f.Info.Settled() && f.Info.Failed > 0 {
			if f.Info.Err == nil {
				return nil, fmt.Errorf("%d chunks could not be read", f.Info.Failed)
			}
			return nil, f.Info.Err
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		sc.dir = 0 // read ahead once a frame
	}
}
