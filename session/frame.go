package session

import (
	"time"

	"vastview/loader"
	"vastview/render"
	"vastview/render/oblique"
)

// TakeFrame returns the newest frame to show (nil if none waits, or it is
// of data no longer shown) and lets OnFrame be called again. The host
// shows the picture until it takes the next one: the session counts it as
// on screen from now on.
func (s *Session) TakeFrame() *Frame {
	f := s.draw.take()
	if f == nil {
		return nil
	}
	s.mu.Lock()
	if f.data != s.data {
		s.mu.Unlock()
		return nil // the data changed meanwhile
	}
	prev := s.shown
	s.shown = f
	c := HoverChanged
	if f.gen == s.gen {
		// What the drawer chose for "fit" and "auto-contrast".
		if s.adoptWindowsLocked(f) {
			c |= ViewChanged
		}
		if !(s.view.Zoom > 0) {
			s.view.Zoom, s.view.Center = f.View.Zoom, f.View.Center
			c |= ViewChanged
		}
	}
	first := f.Info.Unfilled == 0 && f.data.shown.CompareAndSwap(false, true)
	if first {
		// The first frame of this data with data everywhere (perhaps
		// coarse); the neighbours in the browsing list are read next.
		s.trace.Event("first_image", nil)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.prefetchNeighbours()
		}()
	}
	if f.Info.Complete || f.Info.Settled() && f.Info.Failed > 0 {
		f.data.StartBuild()
		s.askHistogramLocked(f)
	} else if f.Vol != nil {
		f.data.StartBuild() // the 3-D view is drawn from the coarse levels: they are built at once
	}
	if f.Info.Failed > 0 && f.Info.Err != nil {
		// Noted now, not only when the pyramid's event about it comes:
		// the status read after this frame says why it has holes.
		f.data.failed(f.Info.Err, s.clock.Now())
		c |= StatusChanged
	}
	s.traced.shown(prev, f, s.clock.Now())
	s.playShownLocked(prev, f)
	s.scrubNextLocked(f)
	s.unlockNotify(c)
	return f
}

// frameTracer is the part of the session that writes the frames shown
// to the trace, and counts the bytes read for each. It is handed each
// frame the host takes, with the one before it and the time, under the
// session's lock (it has none of its own).
type frameTracer struct {
	trace *Tracer
	data  *Data
	read  int64 // bytes read for views of data up to the last frame traced
}

// shown writes one frame_shown per view asked for (and per redraw of it
// at another size or zoom, as after the window's layout changed), and
// "refined" when a redraw of the same view after chunks arrived makes it
// complete: f, taken at now after prev.
func (ft *frameTracer) shown(prev, f *Frame, now time.Time) {
	if ft.trace == nil {
		return
	}
	ev := "frame_shown"
	if prev != nil && prev.gen == f.gen && samePlacement(prev.View, f.View) {
		if !f.Info.Complete || prev.Info.Complete {
			return
		}
		ev = "refined"
	}
	// The bytes read for views of this data since the last frame traced.
	if ft.data != f.data {
		// Reads of data opened ahead of being shown are not for frames
		// shown: count from when it was.
		ft.data, ft.read = f.data, f.data.readWhenShown
	}
	read := max(0, f.readTotal-ft.read)
	ft.read = max(ft.read, f.readTotal)
	v := f.View
	fields := map[string]any{
		"t": v.T, "z": v.Z, "c": v.C, "level": f.Info.Level, "complete": f.Info.Complete,
		"latency_ms": float64(now.Sub(f.asked).Microseconds()) / 1000, "bytes_read": read,
		"plane": v.Orientation.String(), "y": v.Y, "x": v.X,
		"lo": v.Lo, "hi": v.Hi, "zoom": v.Zoom, "cx": v.Center.Col, "cy": v.Center.Row,
		"width": v.Width, "height": v.Height, "colormap": v.Colormap,
	}
	if len(v.Channels) > 0 {
		// A composite: the channels drawn, each with its window and colour.
		chans := make([]map[string]any, len(v.Channels))
		for i, ch := range v.Channels {
			chans[i] = map[string]any{"c": ch.C, "lo": ch.Lo, "hi": ch.Hi, "colormap": ch.Colormap}
		}
		fields["channels"] = chans
	}
	if Oblique(v) {
		fields["turn"] = v.Turn[:] // the rotation matrix minus the identity (Z, Y, X order)
		fields["interp"] = map[bool]string{false: "nearest", true: "linear"}[v.Linear]
	}
	if pl := f.plane; pl != nil {
		// The plane sampled: its centre in level-0 indices (Z, Y, X) and
		// its pixel in the spacing's unit, as plane --center and --pixel.
		sp := oblique.Spacing(f.data.Pyr.Meta())
		fields["center"] = []float64{pl.Center[0] / sp[0], pl.Center[1] / sp[1], pl.Center[2] / sp[2]}
		fields["pixel"] = pl.Pixel
	}
	if f.Layers > 0 {
		fields["layers"] = f.Layers // layers drawn over the data
	}
	if f.Vol != nil {
		fields["mode3d"] = f.Vol.Mode.String()
		fields["scale"] = f.Vol.Scale // the screen scale
		fields["draw_ms"] = float64(f.Vol.Took.Microseconds()) / 1000
		if f.Vol.Args != nil {
			fields["render"] = f.Vol.Args // `vastview render` of the same picture
		}
	}
	if f.Panel != "" {
		fields["panel"] = f.Panel // the active panel of the four, or "3d"
	}
	if f.Projection != loader.NoProjection {
		fields["projection"] = f.Projection.String()
		fields["slab"] = f.Slab[:]
	}
	ft.trace.Event(ev, fields)
}

// Shown returns the frame on screen, or nil.
func (s *Session) Shown() *Frame {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shown
}

// samePlacement reports whether frames of views a and b put the data at the
// same place on screen.
func samePlacement(a, b render.View) bool {
	return a.Zoom == b.Zoom && a.Center == b.Center && a.Width == b.Width && a.Height == b.Height
}
