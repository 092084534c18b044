package session

import (
	"image"
	"slices"

	"vastview/levels"
	"vastview/render"
)

// Scene is what one picture shows: a view of data and what is drawn over
// it (layers, a projection instead of the plane, the four panels, the
// scale bar, a stamp), with the hints that say how its chunks are asked
// for. The window's drawing loop, a movie's frames and the picture of
// `vastview plane --out .png` are all scenes drawn by a painter, so
// what the command line writes is what the window shows.
type Scene struct {
	d    *Data
	view render.View
	gen  uint64 // the view's generation: requests of older ones are dropped
	dir  int    // direction of motion through the planes, for prefetch
	// ahead is how many chunk layers playback reads ahead, in the
	// background (requests no new view drops), besides the usual few.
	ahead int
	// layers are drawn over the data, bottom first.
	layers []layerDraw
	// fitLo and fitHi bound the part of the plane a fitted view shows.
	fitLo, fitHi render.Point
	// scaleBar draws the scale bar over the picture (and its layers).
	scaleBar bool
	// stampAxis, when not 0, has the position along it (the time for T)
	// written on the picture.
	stampAxis byte
	// movie draws a movie's frame: its chunks are asked for in the
	// background (see movieSource).
	movie bool
	// proj, when set, is drawn instead of the plane: the projection
	// along the axis normal to it (without the layers).
	proj *projection
	// ortho, when set, lays four panels out (see orthoDraw); view is the
	// active panel's.
	ortho *orthoDraw
	// sampled, when set, is drawn instead of the view's plane: a plane
	// through the volume given outright, sampled from one level (see
	// Picture.Sample); the view gives its channel, window and colormap.
	sampled *sampledPlane
	// slab, when set, has an oblique plane (turned, or sampled as given)
	// drawn as the projection along its normal.
	slab *obliqueSlab
	// dragged is set while a turned plane is dragged: once a frame of it
	// has taken longer than dragFrameBudget, the rest of the drag is
	// drawn one level coarser (as BigDataViewer draws coarser while the
	// view moves), and the view is drawn again when the drag ends.
	dragged bool
	// cast, when set, is drawn instead of the view's plane: a 3-D
	// rendering (see Picture.Cast).
	cast *castScene
	// vol, when set, has the 3-D view drawn: instead of the plane, or
	// as the fourth of the four panels.
	vol *volumeScene
	// again, when set, has the scene drawn again (its Frame incomplete)
	// without waiting for chunks: the 3-D view refines in steps, a newer
	// scene going first.
	again func()
}

// painter draws scenes: the seam between the drawing loops (the
// session's drawer, Movie.render, Scene.Picture) and the renderers. Paint
// never blocks on I/O: it draws what the pyramids hold now, asks them for
// the rest (Frame.Info says what is missing), and chooses the windows the
// view leaves to auto-contrast. A painter keeps state between calls
// (buffers in turn, caches of panels and windows) and is used by one
// goroutine at a time.
//
// planePainter draws axis-aligned planes (and their projections and
// four-panel layout). A renderer of another kind of view (an oblique
// plane sampled through the volume, a 3-D rendering) joins as another
// painter: it reads the scene's data (d.Pyr, a render.Source), its view
// (size, windows, colormaps) and overlays, and returns a Frame whose Img
// is view.Width × view.Height, whose View has the windows it chose and
// whose Info counts the chunks still missing; the loop then redraws it as
// they arrive.
type painter interface {
	paint(sc *Scene) *Frame
}

// planePainter is the painter of axis-aligned planes.
type planePainter struct {
	r         render.Renderer
	refreshes uint64                     // the pyramid's Refreshes at the last frame
	lr        []render.Renderer          // one per layer drawn
	pr        [numPanels]render.Renderer // the four panels' (but the active one's)
	panels    [numPanels]panelCache      // what each was last drawn from
	obufs     [3]*image.RGBA             // the four-panel pictures, in turn
	onext     int
	windows   map[*Data][]render.Channel // image layers' windows, once chosen from built levels
	ob        obliqueDraw                // oblique planes' (see paintOblique)
	pob       [numPanels]obliqueDraw     // turned panels' (but the active one's)
	tpanels   [numPanels]turnedPanelCache
	lob       []*layerDrawing // layers' over oblique planes (see drawObliqueLayers)
	vol       volumeDraw      // 3-D renderings' (see paintVolume)
	v3d       view3dDraw      // the 3-D view's (see view3dDraw.paint)
	// slowDrag is set when a frame of the turned plane dragged now took
	// longer than dragFrameBudget (see Scene.dragged).
	slowDrag bool
}

func newPlanePainter() *planePainter { return &planePainter{} }

// paint draws one scene, choosing the auto-contrast window first if
// the view has none.
func (p *planePainter) paint(r *Scene) *Frame {
	if r.cast != nil {
		return p.paintVolume(r)
	}
	single3D := r.vol != nil && r.ortho == nil // the 3-D view alone: drawn below
	if (Oblique(r.view) || r.sampled != nil) && r.proj == nil && !single3D {
		if r.ortho == nil {
			return p.paintOblique(r)
		}
		f := p.paintOblique(r)
		p.compose(r, f)
		return f
	}
	p.ob.last = nil
	pyr := r.d.Pyr
	v := r.view
	if !(v.Zoom > 0) {
		v.Zoom, v.Center = render.FitBox(pyr.Meta(), v, r.fitLo, r.fitHi)
	}
	// Windows still to choose are chosen now, by auto-contrast; until
	// that can be done they are drawn as 0..1 and stay to choose.
	var src render.Source = pyr
	if r.proj != nil {
		src = r.proj
	}
	if r.movie {
		src = movieSource{src}
	}
	choose := func(v render.View) (lo, hi float64) {
		if r.proj != nil { // from the projection's values in view
			lo, hi, _ = p.r.ViewRange(onProjection(v), r.proj)
			return lo, hi
		}
		return p.autoWindow(r.d, v)
	}
	// pick chooses the windows v leaves to choose: the view as chosen,
	// the view as drawn (0..1 where none could be chosen yet), and whether
	// any was left to choose.
	pick := func(v render.View) (chosen, drawn render.View, auto bool) {
		auto = v.Lo == v.Hi
		if len(v.Channels) > 0 {
			chans := slices.Clone(v.Channels)
			for i := range chans {
				if ch := &chans[i]; ch.Lo == ch.Hi {
					auto = true
					ch.Lo, ch.Hi = choose(render.ChannelView(v, *ch))
				}
				if chans[i].C == v.C && v.Lo == v.Hi {
					v.Lo, v.Hi = chans[i].Lo, chans[i].Hi // the current channel's, as chosen
				}
			}
			v.Channels = chans
		}
		if v.Lo == v.Hi {
			single := v
			single.Channels = nil
			v.Lo, v.Hi = choose(single)
		}
		drawn = v
		if drawn.Lo == drawn.Hi {
			drawn.Lo, drawn.Hi = 0, 1
		}
		if len(v.Channels) > 0 {
			drawn.Channels = slices.Clone(v.Channels)
			for i := range drawn.Channels {
				if ch := &drawn.Channels[i]; ch.Lo == ch.Hi {
					ch.Lo, ch.Hi = 0, 1
				}
			}
		}
		return v, drawn, auto
	}
	unchosen := v // the windows as asked for: those to choose are 0, 0
	v, drawn, auto := pick(v)
	if r.vol != nil && r.ortho == nil {
		img, info, f3 := p.v3d.paint(r, drawn, v.Width, v.Height)
		f := &Frame{Img: img, View: v, Info: info, Vol: f3, Panel: panel3D, Layers: p.v3d.drawn, data: r.d, gen: r.gen, auto: auto}
		f.readTotal, _ = pyr.BytesRead()
		return f
	}
	if n := pyr.Refreshes(); n != p.refreshes {
		p.refreshes = n
		p.r.Forget()
	}
	if !r.d.shown.Load() && !r.movie && r.proj == nil {
		// Until the first image, the view's own full-resolution plane is
		// asked for first: it can be drawn long before a level computed
		// from many planes.
		p.r.RequestFinest(drawn, pyr, r.gen, firstPlaneBytes)
	}
	rendered := drawn
	if r.proj != nil {
		rendered = onProjection(drawn)
	}
	img, info := p.r.Render(rendered, src, r.gen)
	if r.proj != nil && auto {
		// A projection's windows are chosen from its complete frame, not
		// from the coarser levels shown until then: an incomplete frame
		// leaves them to choose; the frame that completes (its chunks
		// may have come while the windows were chosen) chooses them again
		// from what it holds, and is drawn again if they changed.
		if !info.Complete {
			v.Lo, v.Hi, v.Channels = unchosen.Lo, unchosen.Hi, unchosen.Channels
		} else if v2, drawn2, _ := pick(unchosen); !sameWindows(v2, v) {
			v, drawn = v2, drawn2
			img, info = p.r.Render(onProjection(drawn), src, r.gen)
		}
	}
	if r.dir != 0 && r.proj == nil {
		p.r.Prefetch(drawn, src, r.gen, r.dir, 0, levels.Prefetch)
		if r.ahead > 0 {
			p.r.Prefetch(drawn, src, r.gen, r.dir, r.ahead, levels.Background)
		}
	}
	layers := 0
	if len(r.layers) > 0 && r.proj == nil {
		layers = p.drawLayers(img, &info, r, drawn)
	}
	if r.scaleBar {
		render.DrawScaleBar(img, pyr.Meta(), drawn)
	}
	if r.stampAxis != 0 {
		render.DrawStamp(img, pyr.Meta(), drawn, stampText(pyr.Meta(), drawn, r.stampAxis))
	}
	if r.ortho == nil { // the four panels get theirs over the crosshairs
		drawEdges(img, pyr.Meta(), drawn)
	}
	f := &Frame{Img: img, View: v, Info: info, Layers: layers, data: r.d, gen: r.gen, auto: auto}
	if r.proj != nil {
		f.Projection, f.Slab, f.proj = r.proj.op, [2]int{r.proj.a, r.proj.b}, r.proj
	}
	if r.ortho != nil {
		p.compose(r, f)
	}
	f.readTotal, _ = pyr.BytesRead()
	return f
}

// sameWindows reports whether two views have the same windows.
func sameWindows(a, b render.View) bool {
	if a.Lo != b.Lo || a.Hi != b.Hi || len(a.Channels) != len(b.Channels) {
		return false
	}
	for i := range a.Channels {
		if a.Channels[i].Lo != b.Channels[i].Lo || a.Channels[i].Hi != b.Channels[i].Hi {
			return false
		}
	}
	return true
}

// onProjection is view v drawn on a projection along the axis normal to
// its plane, whose one plane is at 0 on that axis.
func onProjection(v render.View) render.View {
	_, _, normal := v.Orientation.Axes()
	v.SetAt(normal, 0)
	return v
}

// autoWindow is the window auto-contrast chooses for view v of one
// channel: from the channel's coarsest level once the levels are built
// (before, asking for it could mean computing the whole volume), until
// then from the values on screen, as ImageJ does; 0, 0 when nothing of it
// is in memory yet.
func (p *planePainter) autoWindow(data *Data, v render.View) (lo, hi float64) {
	return autoWindow(&p.r, data, v)
}

// autoWindow is planePainter.autoWindow with renderer r looking at the values
// in view.
func autoWindow(r *render.Renderer, data *Data, v render.View) (lo, hi float64) {
	if data.Built() {
		if cr, ok := render.ChannelRange(data.Pyr, contrastChannel(v)); ok {
			return cr.Lo, cr.Hi
		}
	}
	if lo, hi, ok := r.ViewRange(v, data.Pyr); ok {
		return lo, hi
	}
	return 0, 0
}

// contrastChannel is the channel auto-contrast looks at: the view's, or
// every channel for colour pixels drawn as one picture.
func contrastChannel(v render.View) int {
	if v.Colormap == render.RGB {
		return -1
	}
	return v.C
}

// drawLayers draws the layers of r over img, the frame of view v of the
// data, each aligned with it, and counts their missing and failed chunks
// in info: the frame is complete when every layer is too. It returns how
// many it drew.
func (p *planePainter) drawLayers(img *image.RGBA, info *render.Info, r *Scene, v render.View) (drawn int) {
	if len(p.lr) < len(r.layers) {
		lr := make([]render.Renderer, len(r.layers))
		copy(lr, p.lr)
		p.lr = lr
	}
	base := r.d.Pyr.Meta()
	for i, l := range r.layers {
		c := 0
		if !l.labels {
			c = l.chans[0].C
		}
		lv, ok := l.al.View(v, base, c)
		if !ok {
			continue // the layer does not reach this plane
		}
		rr := &p.lr[i]
		var pyr render.Source = l.d.Pyr
		if r.movie {
			pyr = movieSource{l.d.Pyr}
		}
		var in render.Info
		if l.labels {
			var ids *image.RGBA
			ids, in = rr.RenderLabels(lv, pyr, r.gen)
			render.OverlayLabels(img, ids, l.style)
		} else {
			lv.Channels = p.layerWindows(rr, l, lv)
			var pic *image.RGBA
			pic, in = rr.RenderLayer(lv, pyr, r.gen)
			render.Overlay(img, pic, l.style.Opacity, l.blend)
		}
		if r.dir != 0 {
			rr.Prefetch(lv, pyr, r.gen, r.dir, 0, levels.Prefetch)
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

// layerWindows are the channels of an image layer with their windows:
// those the file gives, else auto-contrast's, chosen from the coarsest
// level once the layer's levels are built (and kept), from the values in
// view until then.
func (p *planePainter) layerWindows(rr *render.Renderer, l layerDraw, v render.View) []render.Channel {
	if w, ok := p.windows[l.d]; ok {
		return w
	}
	chans := slices.Clone(l.chans)
	for i := range chans {
		if ch := &chans[i]; ch.Lo == ch.Hi {
			ch.Lo, ch.Hi = autoWindow(rr, l.d, render.ChannelView(v, *ch))
			if ch.Lo == ch.Hi {
				ch.Lo, ch.Hi = 0, 1
			}
		}
	}
	if l.d.Built() {
		if p.windows == nil || len(p.windows) > 16 { // forget layers long gone
			p.windows = map[*Data][]render.Channel{}
		}
		p.windows[l.d] = chans
	}
	return chans
}
