package ui

import (
	"image"
	"sync"
	"time"

	"vastview/render"
)

// request asks the drawer for a view.
type request struct {
	s     *session
	view  render.View
	gen   uint64
	asked time.Time // when the input that asked for it came
	dir   int       // direction of motion through the planes, for prefetch
}

// frame is one finished picture and what it shows.
type frame struct {
	s         *session
	img       *image.RGBA
	view      render.View
	info      render.Info
	lo, hi    float64
	asked     time.Time
	gen       uint64
	bytesRead int64 // source bytes read since the previous frame
}

// firstPlaneBytes bounds the full-resolution data read for the first image.
const firstPlaneBytes = 64 << 20

// refineEvery spaces the redraws of an incomplete frame as chunks arrive.
const refineEvery = 50 * time.Millisecond

// drawer renders on its own goroutine: the newest request, and again when
// chunks arrive while the last frame is incomplete. Frames go out through
// one slot and at most one pending fyne.Do, so nothing queues up while a
// key is held.
type drawer struct {
	v    *Viewer
	want chan request // capacity 1: only the newest request waits
	poke chan struct{}
	quit chan struct{}
	r    render.Renderer

	// The latest-frame slot. The renderer draws into three buffers in
	// turn, so at most two frames may be drawn after the one on screen
	// before the UI takes the newest: the drawer waits for room.
	slotMu  sync.Mutex
	latest  *frame
	untaken int  // frames drawn since the UI last took one
	pending bool // a take is queued on the UI goroutine
	taken   chan struct{}

	mu        sync.Mutex
	unsub     func()
	lastRead  int64
	refreshes uint64 // the pyramid's Refreshes at the last frame
}

func newDrawer(v *Viewer) *drawer {
	return &drawer{v: v, want: make(chan request, 1), poke: make(chan struct{}, 1), quit: make(chan struct{}), taken: make(chan struct{}, 1)}
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

// setSession follows the arrivals of a new session's pyramid.
func (d *drawer) setSession(s *session) {
	events, unsub := s.pyr.Subscribe()
	d.mu.Lock()
	if d.unsub != nil {
		d.unsub()
	}
	d.unsub = unsub
	d.mu.Unlock()
	go func() {
		for e := range events {
			if e.Err != nil {
				s.failed(e.Err)
				continue
			}
			select {
			case d.poke <- struct{}{}:
			default:
			}
		}
	}()
}

func (d *drawer) stop() { close(d.quit) }

func (d *drawer) run() {
	var last request
	var lastFrame *frame
	var drawn time.Time
	for {
		var r request
		select {
		case <-d.quit:
			return
		case r = <-d.want:
		case <-d.poke:
			if lastFrame == nil || lastFrame.info.Complete && lastFrame.lo != lastFrame.hi {
				continue
			}
			// Redraws for arriving chunks come at most every refineEvery,
			// leaving the cores to the loads, except while part of the
			// view is blank; a new view goes first.
			r = last
			if wait := refineEvery - time.Since(drawn); wait > 0 && lastFrame.info.Unfilled == 0 {
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
		d.publish(f)
	}
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

// publish puts f in the slot and queues one take on the UI goroutine
// unless one is queued already.
func (d *drawer) publish(f *frame) {
	d.slotMu.Lock()
	d.latest = f
	d.untaken++
	queue := !d.pending
	d.pending = true
	d.slotMu.Unlock()
	if queue {
		uiDo(d.take)
	}
}

// take shows the newest frame; it runs on the UI goroutine.
func (d *drawer) take() {
	d.slotMu.Lock()
	f := d.latest
	d.untaken, d.pending = 0, false
	d.slotMu.Unlock()
	select {
	case d.taken <- struct{}{}:
	default:
	}
	if f != nil {
		d.v.show(f)
	}
}

// draw renders one request, choosing the auto-contrast window first if
// the view has none.
func (d *drawer) draw(r request) *frame {
	pyr := r.s.pyr
	v := r.view
	if !(v.Zoom > 0) {
		v.Zoom, v.Center = render.Fit(pyr.Meta(), v.Orientation, v.Width, v.Height)
	}
	if v.Lo == v.Hi {
		// The coarsest level's histogram once the levels are built (before,
		// asking for it could mean computing the whole volume); until then
		// the values on screen, as ImageJ does.
		lo, hi, ok := 0.0, 0.0, false
		if r.s.built() {
			lo, hi, ok = render.AutoContrast(pyr)
		}
		if !ok {
			lo, hi, ok = d.r.ViewRange(v, pyr)
		}
		if ok {
			v.Lo, v.Hi = lo, hi
		} else {
			v.Lo, v.Hi = 0, 1 // nothing in memory yet: redrawn on arrival
		}
	}
	if n := pyr.Refreshes(); n != d.refreshes {
		d.refreshes = n
		d.r.Forget()
	}
	if !r.s.shown.Load() {
		// Until the first image, the view's own full-resolution plane is
		// asked for first: it can be drawn long before a level computed
		// from many planes.
		d.r.RequestFinest(v, pyr, r.gen, firstPlaneBytes)
	}
	img, info := d.r.Render(v, pyr, r.gen)
	if r.dir != 0 {
		d.r.Prefetch(v, pyr, r.gen, r.dir)
	}
	lo, hi := v.Lo, v.Hi
	if r.view.Lo == r.view.Hi && lo == 0 && hi == 1 {
		lo, hi = 0, 0 // not a real choice: keep asking
	}
	read, _ := pyr.Counts()
	m := pyr.Meta()
	total := read * int64(m.Levels[0].ChunkBytes(m.DType))
	f := &frame{s: r.s, img: img, view: v, gen: r.gen, info: info, lo: lo, hi: hi, asked: r.asked, bytesRead: total - d.lastRead}
	d.lastRead = total
	return f
}
