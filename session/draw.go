package session

import (
	"image"
	"slices"
	"sync"
	"time"

	"vastview/levels"
	"vastview/loader"
	"vastview/render"
)

// request asks the drawer for a view.
type request struct {
	d     *Data
	view  render.View
	gen   uint64
	asked time.Time // when the input that asked for it came
	dir   int       // direction of motion through the planes, for prefetch
	play  bool      // playback: a frame with holes is dropped, not shown
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
}

// Frame is one finished picture and what it shows. Img stays unchanged
// until two more frames have been taken.
type Frame struct {
	Img  *image.RGBA
	View render.View // as drawn: zoom and window chosen when the view left them open
	Info render.Info
	// Layers is how many layers were drawn over the data (those visible
	// that reach its plane).
	Layers int
	// Projection is what was drawn along the axis normal to the plane
	// (NoProjection: the plane), over planes Slab[0]..Slab[1].
	Projection loader.Projection
	Slab       [2]int
	// Panel names the active panel of the four-panel layout ("" for one
	// plane): View is its view, Img shows all four.
	Panel string

	data      *Data
	proj      *projection // what Projection was drawn from
	gen       uint64
	asked     time.Time
	auto      bool  // the window was chosen by auto-contrast
	readTotal int64 // bytes read for views of the data when it was drawn
}

// firstPlaneBytes bounds the full-resolution data read for the first image.
const firstPlaneBytes = 64 << 20

// refineEvery spaces the redraws of an incomplete frame as chunks arrive.
const refineEvery = 50 * time.Millisecond

// drawer renders on its own goroutine: the newest request, and again when
// chunks arrive while the last frame is incomplete. Frames go out through
// one slot and at most one pending OnFrame call, so nothing queues up
// while a key is held.
type drawer struct {
	s    *Session
	want chan request // capacity 1: only the newest request waits
	poke chan struct{}
	quit chan struct{}
	done chan struct{}
	r    render.Renderer

	// The latest-frame slot. The renderer draws into three buffers in
	// turn, so at most two frames may be drawn after the one on screen
	// before the host takes the newest: the drawer waits for room.
	slotMu  sync.Mutex
	latest  *Frame
	untaken int  // frames drawn since the host last took one
	pending bool // OnFrame called, TakeFrame not yet
	taken   chan struct{}

	mu        sync.Mutex
	unsub     func()
	following *Data
	layerSubs []func() // the subscriptions to the layers' pyramids
	refreshes uint64   // the pyramid's Refreshes at the last frame

	lr      []render.Renderer          // one per layer drawn
	pr      [numPanels]render.Renderer // the four panels' (but the active one's)
	panels  [numPanels]panelCache      // what each was last drawn from
	obufs   [3]*image.RGBA             // the four-panel pictures, in turn
	onext   int
	windows map[*Data][]render.Channel // image layers' windows, once chosen from built levels
}

func newDrawer(s *Session) *drawer {
	return &drawer{s: s, want: make(chan request, 1), poke: make(chan struct{}, 1), quit: make(chan struct{}),
		done: make(chan struct{}), taken: make(chan struct{}, 1)}
}

// ask replaces any waiting request by r; it never blocks.
func (d *drawer) ask(r request) {
	for {
		select {
		case d.want <- r:
			return
		default:
			select {
			case <-d.want:
			default:
			}
		}
	}
}

// follow redraws on the arrivals of data's pyramid (and notes its failed
// loads) instead of the previous data's.
func (d *drawer) follow(data *Data) {
	events, unsub := data.Pyr.Subscribe()
	d.mu.Lock()
	if d.unsub != nil {
		d.unsub()
	}
	d.unsub, d.following = unsub, data
	d.mu.Unlock()
	go d.forward(data, events)
}

// forward redraws on the events of data's pyramid until they end, noting
// its failed loads.
func (d *drawer) forward(data *Data, events <-chan levels.Event) {
	for e := range events {
		if e.Err != nil {
			data.failed(e.Err, d.s.clock.Now())
		}
		select {
		case d.poke <- struct{}{}:
		default:
		}
	}
}

// followLayers redraws on the arrivals of the layers' pyramids too (those
// of ds, replacing the layers followed before).
func (d *drawer) followLayers(ds []*Data) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, unsub := range d.layerSubs {
		unsub()
	}
	d.layerSubs = nil
	for _, data := range ds {
		events, unsub := data.Pyr.Subscribe()
		d.layerSubs = append(d.layerSubs, unsub)
		go d.forward(data, events)
	}
}

// stop ends the drawing goroutine and waits for it.
func (d *drawer) stop() {
	close(d.quit)
	<-d.done
	d.mu.Lock()
	if d.unsub != nil {
		d.unsub()
		d.unsub = nil
	}
	for _, unsub := range d.layerSubs {
		unsub()
	}
	d.layerSubs = nil
	d.mu.Unlock()
}

func (d *drawer) run() {
	defer close(d.done)
	var last request
	var lastFrame *Frame
	var drawn time.Time
	for {
		var r request
		select {
		case <-d.quit:
			return
		case r = <-d.want:
		case <-d.poke:
			if lastFrame == nil || lastFrame.Info.Settled() && !lastFrame.autoPending() {
				continue
			}
			// Redraws for arriving chunks come at most every refineEvery,
			// leaving the cores to the loads, except while part of the
			// view is blank; a new view goes first.
			r = last
			if wait := refineEvery - time.Since(drawn); wait > 0 && lastFrame.Info.Unfilled == 0 {
				select {
				case <-d.quit:
					return
				case r = <-d.want:
				case <-time.After(wait):
				}
			}
		}
		if !d.waitRoom() {
			return
		}
		select {
		case r = <-d.want: // a newer view came while waiting
		default:
		}
		drawn = time.Now()
		f := d.draw(r)
		last, lastFrame = r, f
		if r.play && f.Info.Unfilled > 0 && d.onScreen(r.d) {
			continue // playback drops a frame with holes: its chunks are asked for
		}
		d.publish(f)
	}
}

// autoPending reports whether a window of the frame is still to be
// chosen.
func (f *Frame) autoPending() bool {
	if !f.auto {
		return false
	}
	for _, ch := range f.View.Channels {
		if ch.Lo == ch.Hi {
			return true
		}
	}
	return f.View.Lo == f.View.Hi
}

// onScreen reports whether a frame of data was taken since it was opened.
func (d *drawer) onScreen(data *Data) bool {
	d.s.mu.Lock()
	defer d.s.mu.Unlock()
	return d.s.shown != nil && d.s.shown.data == data
}

// waitRoom waits until a frame may be drawn without touching the buffer on
// screen; false when the drawer stops.
func (d *drawer) waitRoom() bool {
	for {
		d.slotMu.Lock()
		room := d.untaken < 2
		d.slotMu.Unlock()
		if room {
			return true
		}
		select {
		case <-d.taken:
		case <-d.quit:
			return false
		}
	}
}

// publish puts f in the slot and calls OnFrame unless a call is waiting.
func (d *drawer) publish(f *Frame) {
	d.slotMu.Lock()
	d.latest = f
	d.untaken++
	call := !d.pending
	d.pending = true
	d.slotMu.Unlock()
	if call && d.s.opts.OnFrame != nil {
		d.s.opts.OnFrame()
	}
}

// take returns the newest frame (nil if none) and lets OnFrame be called
// again.
func (d *drawer) take() *Frame {
	d.slotMu.Lock()
	f := d.latest
	d.latest = nil
	d.untaken, d.pending = 0, false
	d.slotMu.Unlock()
	select {
	case d.taken <- struct{}{}:
	default:
	}
	return f
}

// draw renders one request, choosing the auto-contrast window first if
// the view has none.
func (d *drawer) draw(r request) *Frame {
	pyr := r.d.Pyr
	v := r.view
	if !(v.Zoom > 0) {
		v.Zoom, v.Center = render.FitBox(pyr.Meta(), v.Orientation, v.Width, v.Height, r.fitLo, r.fitHi)
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
			lo, hi, _ = d.r.ViewRange(onProjection(v), r.proj)
			return lo, hi
		}
		return d.autoWindow(r.d, v)
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
	if n := pyr.Refreshes(); n != d.refreshes {
		d.refreshes = n
		d.r.Forget()
	}
	if !r.d.shown.Load() && !r.movie && r.proj == nil {
		// Until the first image, the view's own full-resolution plane is
		// asked for first: it can be drawn long before a level computed
		// from many planes.
		d.r.RequestFinest(drawn, pyr, r.gen, firstPlaneBytes)
	}
	rendered := drawn
	if r.proj != nil {
		rendered = onProjection(drawn)
	}
	img, info := d.r.Render(rendered, src, r.gen)
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
			img, info = d.r.Render(onProjection(drawn), src, r.gen)
		}
	}
	if r.dir != 0 && r.proj == nil {
		d.r.Prefetch(drawn, src, r.gen, r.dir, 0, levels.Prefetch)
		if r.ahead > 0 {
			d.r.Prefetch(drawn, src, r.gen, r.dir, r.ahead, levels.Background)
		}
	}
	layers := 0
	if len(r.layers) > 0 && r.proj == nil {
		layers = d.drawLayers(img, &info, r, drawn)
	}
	if r.scaleBar {
		render.DrawScaleBar(img, pyr.Meta(), drawn)
	}
	if r.stampAxis != 0 {
		render.DrawStamp(img, pyr.Meta(), drawn, stampText(pyr.Meta(), drawn, r.stampAxis))
	}
	f := &Frame{Img: img, View: v, Info: info, Layers: layers, data: r.d, gen: r.gen, asked: r.asked, auto: auto}
	if r.proj != nil {
		f.Projection, f.Slab, f.proj = r.proj.op, [2]int{r.proj.a, r.proj.b}, r.proj
	}
	if r.ortho != nil {
		d.compose(r, f)
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
func (d *drawer) autoWindow(data *Data, v render.View) (lo, hi float64) {
	return autoWindow(&d.r, data, v)
}

// autoWindow is drawer.autoWindow with renderer r looking at the values
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
func (d *drawer) drawLayers(img *image.RGBA, info *render.Info, r request, v render.View) (drawn int) {
	if len(d.lr) < len(r.layers) {
		lr := make([]render.Renderer, len(r.layers))
		copy(lr, d.lr)
		d.lr = lr
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
		rr := &d.lr[i]
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
			lv.Channels = d.layerWindows(rr, l, lv)
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
func (d *drawer) layerWindows(rr *render.Renderer, l layerDraw, v render.View) []render.Channel {
	if w, ok := d.windows[l.d]; ok {
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
		if d.windows == nil || len(d.windows) > 16 { // forget layers long gone
			d.windows = map[*Data][]render.Channel{}
		}
		d.windows[l.d] = chans
	}
	return chans
}
