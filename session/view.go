package session

import (
	"math"
	"time"

	"vastview/loader"
	"vastview/prefs"
	"vastview/render"
)

// askLocked has the view drawn, for the input at time at; dir is the
// direction of a step through the planes, whose neighbours are then
// prefetched.
func (s *Session) askLocked(at time.Time, dir int) {
	if s.data == nil || s.view.Width <= 0 || s.view.Height <= 0 {
		return // nothing to draw before the window is laid out
	}
	s.gen++
	s.draw.ask(s.requestLocked(at, dir))
	s.followPlaneLocked()
}

// requestLocked is the request to draw the view as it is now, for the
// input at time at (dir as askLocked's), of generation s.gen.
func (s *Session) requestLocked(at time.Time, dir int) request {
	r := request{Scene: Scene{d: s.data, view: s.drawnViewLocked(), gen: s.gen, dir: dir,
		layers: s.layers.draws(), scaleBar: !s.noBar, stampAxis: s.stampAxisLocked(), dragged: s.dragging},
		asked: at, play: s.play.on}
	if op, thick := s.proj.get(); Oblique(s.view) && op != loader.NoProjection {
		s.proj.drop() // a turned plane is projected along its normal
		r.slab = &obliqueSlab{op: op, thick: thick}
	} else {
		r.proj = s.proj.source(s.data, s.view)
	}
	r.fitLo, r.fitHi = s.fitBoxLocked(r.view.Orientation)
	r.vol = s.volumeSceneLocked()
	if r.ortho = s.orthoDrawLocked(&r.Scene); r.ortho != nil && s.ortho.active == panelProj && r.vol == nil {
		r.proj, r.layers, r.slab = r.ortho.proj, nil, nil
	}
	return r
}

// update changes the view with f and has it drawn.
func (s *Session) update(f func(m *loader.Meta) bool) {
	s.mu.Lock()
	if s.data == nil {
		s.mu.Unlock()
		return
	}
	if !f(s.data.Pyr.Meta()) {
		s.mu.Unlock()
		return
	}
	s.keepChannelLocked()
	s.askLocked(s.clock.Now(), 0)
	s.unlockNotify(ViewChanged | HoverChanged)
}

// Resize follows the viewport's size in pixels.
func (s *Session) Resize(w, h int) {
	s.mu.Lock()
	if s.ortho.on {
		if s.ortho.w == w && s.ortho.h == h {
			s.mu.Unlock()
			return
		}
		s.ortho.w, s.ortho.h = w, h
		w, h = panelRects(w, h)[0].Dx(), panelRects(w, h)[0].Dy()
		s.ortho.zoom = [numPanels]panelZoom{} // every panel fitted again
	} else if s.view.Width == w && s.view.Height == h {
		s.mu.Unlock()
		return
	}
	s.view.Width, s.view.Height = w, h
	if s.fitted {
		s.view.Zoom = 0 // a fitted view stays fitted: sliders appearing, the window resized
	}
	s.askLocked(s.clock.Now(), 0)
	s.mu.Unlock()
}

// SetAt moves the view to index i on axis a (a slider).
func (s *Session) SetAt(a byte, i int) {
	s.update(func(m *loader.Meta) bool {
		first, last := s.spanLocked(a)
		if a == 'C' {
			first, last = 0, m.Size(a)-1
		}
		i = clampInt(i, first, last)
		if s.view.At(a) == i {
			return false
		}
		if a == 'C' {
			s.keepChannelLocked()
			s.view.C = i
			s.loadChannelLocked()
			s.hist.clear()
			return true
		}
		s.view.SetAt(a, i)
		return true
	})
}

// SetOrientation shows plane o; a 2-D image or a movie has XY only.
func (s *Session) SetOrientation(o render.Orientation) {
	s.update(func(m *loader.Meta) bool { return s.setOrientationLocked(m, o) })
}

func (s *Session) setOrientationLocked(m *loader.Meta, o render.Orientation) bool {
	if s.ortho.on { // the panel of that plane takes the keys
		return s.activateLocked(int(o))
	}
	row, col, _ := o.Axes()
	aligned := alignedTurn(m, s.view.Turn) // World Space stays on
	if o == s.view.Orientation && s.view.Turn != aligned {
		s.view.Turn, s.view.Depth = aligned, 0 // aligned again
		return true
	}
	if m.Size(row) == 1 || m.Size(col) == 1 || o == s.view.Orientation {
		return false
	}
	s.view.Orientation, s.view.Turn, s.view.Depth = o, aligned, 0
	s.view.Zoom, s.fitted = 0, true
	if s.view.Y == 0 && s.view.X == 0 {
		s.view.Y, s.view.X = m.Size('Y')/2, m.Size('X')/2
	}
	s.hist.clear()
	return true
}

// Orientations reports which planes the data can show.
func (s *Session) Orientations() []render.Orientation {
	m := s.Meta()
	if m == nil {
		return nil
	}
	out := []render.Orientation{render.XY}
	if m.Size('Z') > 1 {
		out = append(out, render.XZ, render.YZ)
	}
	return out
}

// Fit shows the whole plane (in every panel of the four).
func (s *Session) Fit() {
	s.update(func(*loader.Meta) bool {
		s.view.Zoom, s.fitted = 0, true
		s.ortho.zoom = [numPanels]panelZoom{}
		return true
	})
}

// AutoContrast chooses the window from the data (the coarsest level's
// percentiles once the levels exist, the values on screen until then).
func (s *Session) AutoContrast() {
	s.update(func(*loader.Meta) bool { s.view.Lo, s.view.Hi = 0, 0; return true })
}

// SetWindow sets the display window of the view's channel.
func (s *Session) SetWindow(lo, hi float64) {
	s.update(func(*loader.Meta) bool {
		if !(hi > lo) || math.IsInf(hi-lo, 0) || s.view.Lo == lo && s.view.Hi == hi {
			return false
		}
		s.view.Lo, s.view.Hi = lo, hi
		return true
	})
}

// SetColormap sets the colormap of the view's channel (see
// render.ColormapNamed; render.RGB for colour pixels).
func (s *Session) SetColormap(name string) {
	s.update(func(m *loader.Meta) bool {
		if name == render.RGB && !m.RGB {
			return false
		}
		if _, err := render.ColormapNamed(name); err != nil && name != render.RGB {
			return false
		}
		// A colormap chosen while one channel is shown in gray is seen:
		// that channel in its new colours.
		gray := s.chans.mode == OneGray && s.multiChannelLocked()
		if name == s.view.Colormap && !gray {
			return false
		}
		if gray {
			s.chans.mode = OneColor
		}
		s.view.Colormap = name
		return true
	})
}

// Colormaps lists the colormaps offered for the view's channel, the one
// in use among them.
func (s *Session) Colormaps() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := render.ColormapNames()
	if s.data != nil && s.data.Pyr.Meta().RGB {
		names = append([]string{render.RGB}, names...)
	}
	for _, n := range names {
		if n == s.view.Colormap {
			return names
		}
	}
	if s.view.Colormap != "" {
		names = append(names, s.view.Colormap)
	}
	return names
}

// Zoom magnifies the view by factor about the viewport's centre.
func (s *Session) Zoom(factor float64) {
	s.update(func(m *loader.Meta) bool {
		s.view = s.view.ZoomAbout(m, float64(s.view.Width)/2, float64(s.view.Height)/2, factor)
		s.fitted = false
		s.zoomOthersLocked(m, factor)
		return true
	})
}

// ZoomAbout magnifies the view by factor about the viewport position (x,
// y): the data under it stays there.
func (s *Session) ZoomAbout(x, y, factor float64) {
	x, y = s.toPanel(x, y)
	s.update(func(m *loader.Meta) bool {
		s.view = s.view.ZoomAbout(m, x, y, factor)
		s.fitted = false
		s.zoomOthersLocked(m, factor)
		return true
	})
}

// Pan moves the picture by (dx, dy) viewport pixels, as a drag does.
func (s *Session) Pan(dx, dy float64) {
	s.update(func(m *loader.Meta) bool {
		s.view = s.view.Pan(m, dx, dy)
		s.fitted = false
		return true
	})
}

// Reload forgets the chunks a store did not hold yet, so that they are
// read again.
func (s *Session) Reload() {
	s.mu.Lock()
	d := s.data
	s.mu.Unlock()
	if d != nil {
		d.Pyr.Refresh()
		s.update(func(*loader.Meta) bool { return true })
	}
}

// saveViewLocked remembers the view of the data shown under its name.
func (s *Session) saveViewLocked() {
	if s.data == nil || !s.data.Persist() {
		return
	}
	s.keepChannelLocked()
	w := s.view
	v := prefs.View{
		Plane: w.Orientation.String(), T: w.T, C: w.C, Z: w.Z, Y: w.Y, X: w.X,
		Zoom: w.Zoom, CenterX: w.Center.Col, CenterY: w.Center.Row, Lo: w.Lo, Hi: w.Hi, Colormap: w.Colormap,
		Fitted: s.fitted, Linear: w.Linear,
	}
	if w.Turn != (render.Turn{}) {
		v.Turn, v.Depth = w.Turn[:], w.Depth
	}
	if s.ortho.on {
		v.Layout = "four"
	}
	if s.v3.on {
		v.Layout = "3d"
	}
	v.View3D = s.v3.save()
	s.chans.save(&v, s.multiChannelLocked())
	s.layers.save(&v)
	if len(s.rois.list) > 0 {
		v.ROIs, _ = encodeROIs(s.data.Pyr.Meta(), s.rois.list)
	}
	s.prefs.SetView(s.data.Name, v)
}

// SaveView remembers the view of the data shown now (as Close and opening
// other data do).
func (s *Session) SaveView() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.saveViewLocked()
}

// restoreViewLocked applies a remembered view, within the data's extent.
func (s *Session) restoreViewLocked(p prefs.View) {
	o, err := loader.ParseOrientation(p.Plane)
	if err != nil {
		return
	}
	m := s.data.Pyr.Meta()
	w := &s.view
	w.Orientation, w.Zoom, w.Center = o, p.Zoom, render.Point{Col: p.CenterX, Row: p.CenterY}
	w.Turn, w.Linear = rememberedTurn(p.Turn), p.Linear
	if w.Turn != (render.Turn{}) && math.Abs(p.Depth) <= 1 {
		w.Depth = p.Depth
	}
	s.fitted = p.Fitted || !(p.Zoom > 0)
	w.T, w.C = clampInt(p.T, 0, m.Size('T')-1), clampInt(p.C, 0, m.Size('C')-1)
	w.Z, w.Y, w.X = clampInt(p.Z, 0, m.Size('Z')-1), clampInt(p.Y, 0, m.Size('Y')-1), clampInt(p.X, 0, m.Size('X')-1)
	s.chans.restore(p, w.C)
	s.loadChannelLocked()
	s.v3.restore(p.View3D, m)
}

func validColormap(name string) bool {
	_, err := render.ColormapNamed(name)
	return err == nil
}

func clampInt(v, lo, hi int) int { return max(lo, min(v, hi)) }

// ScaleBar reports whether views show a scale bar (where the data has
// physical spacing).
func (s *Session) ScaleBar() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.noBar
}

// SetScaleBar shows or hides the scale bar.
func (s *Session) SetScaleBar(on bool) {
	s.mu.Lock()
	if s.noBar == !on {
		s.mu.Unlock()
		return
	}
	s.noBar = !on
	s.askLocked(s.clock.Now(), 0)
	s.unlockNotify(ViewChanged)
}

// TimeStamp reports whether views have their time (the position along
// the planes, for data with one time point) written on them.
func (s *Session) TimeStamp() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stamp
}

// SetTimeStamp shows or hides the time stamp.
func (s *Session) SetTimeStamp(on bool) {
	s.mu.Lock()
	if s.stamp == on {
		s.mu.Unlock()
		return
	}
	s.stamp = on
	s.askLocked(s.clock.Now(), 0)
	s.unlockNotify(ViewChanged)
}

// stampAxisLocked is the axis whose position the time stamp writes: T
// for data with several time points, else the axis the planes step
// along; 0 with the stamp off.
func (s *Session) stampAxisLocked() byte {
	if !s.stamp || s.data == nil {
		return 0
	}
	m := s.data.Pyr.Meta()
	if m.Size('T') > 1 {
		return 'T'
	}
	return stepAxis(m, s.view.Orientation)
}
