package session

import (
	"image"
	"sync"
	"time"

	"vastview/levels"
	"vastview/loader"
	"vastview/render"
	"vastview/render/oblique"
)

// request asks the drawer for a scene.
type request struct {
	Scene
	asked time.Time // when the input that asked for it came
	play  bool      // playback: a frame with holes is dropped, not shown
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
	// Vol, for a frame of the 3-D view (alone, or the active panel of
	// four), says how it was drawn.
	Vol *Frame3D

	data      *Data
	proj      *projection    // what Projection was drawn from
	plane     *oblique.Plane // the plane sampled, for an oblique view
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
	p    painter // draws each scene: the drawing loop's one call into the renderers

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
}

func newDrawer(s *Session) *drawer {
	return &drawer{s: s, p: newPlanePainter(), want: make(chan request, 1), poke: make(chan struct{}, 1), quit: make(chan struct{}),
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

// again has the last scene drawn again, as when chunks arrive.
func (d *drawer) again() {
	select {
	case d.poke <- struct{}{}:
	default:
	}
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
		r.again = d.again
		f := d.p.paint(&r.Scene)
		f.asked = r.asked
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

// Plane returns the plane an oblique frame sampled (in the four panels,
// the active panel's), in physical units as `vastview plane --rotate`
// takes it; false for a frame of an axis-aligned plane.
func (f *Frame) Plane() (oblique.Plane, bool) {
	if f.plane == nil {
		return oblique.Plane{}, false
	}
	return *f.plane, true
}
