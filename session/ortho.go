package session

import (
	"image"
	"image/color"
	"slices"
	"strings"

	"vastview/levels"
	"vastview/loader"
	"vastview/render"
	"vastview/render/oblique"
)

// Layout is how the view is laid out in the viewport.
type Layout uint8

// The layouts.
const (
	// SingleView shows one plane.
	SingleView Layout = iota
	// FourPanels shows the XY, XZ and YZ planes through one position, a
	// crosshair marking it in each, and the 3-D view (the XY maximum
	// projection for data the 3-D view cannot show).
	FourPanels
)

// The four panels, in reading order.
const (
	panelXY = iota
	panelXZ
	panelYZ
	panelProj
	numPanels
)

// panelOrient is each panel's plane.
var panelOrient = [numPanels]render.Orientation{render.XY, render.XZ, render.YZ, render.XY}

// panelNames name the panels in traces and on the panels.
var panelNames = [numPanels]string{"xy", "xz", "yz", "max"}

// panelTag is the name written on panel i of data m: its plane's
// anatomical name for a volume with an anatomical orientation ("axial"),
// else the plane's ("xy"); the projection's panel is "max" either way.
func panelTag(m *loader.Meta, i int) string {
	if i != panelProj {
		if n := PlaneName(m, panelOrient[i]); n != "" {
			return n
		}
	}
	return panelNames[i]
}

// panelPlaces is where each panel of data m lies, as an index of
// panelRects: for a volume with an anatomical orientation the axial plane
// at the top left, coronal at the top right and sagittal at the bottom
// left whatever its storage order (as for one stored RAS); else the XY,
// XZ and YZ planes there.
func panelPlaces(m *loader.Meta) [numPanels]int {
	pl := [numPanels]int{panelXY, panelXZ, panelYZ, panelProj}
	at := map[string]int{"axial": 0, "coronal": 1, "sagittal": 2}
	var seen [numPanels]bool
	for i := range panelProj {
		k, ok := at[PlaneName(m, panelOrient[i])]
		if !ok || seen[k] {
			return [numPanels]int{panelXY, panelXZ, panelYZ, panelProj}
		}
		pl[i], seen[k] = k, true
	}
	return pl
}

// panelGap is the width of the gutter between panels, in pixels.
const panelGap = 2

// orthoState is the four-panel layout, a part of the session. The panel
// the pointer is over is the active one: the session's view is its view
// (its plane, zoom, centre and size), so that keys, the wheel and drags
// act on it; the others keep their zoom and centre here. Its geometry
// (panelAt, zoomOthers, layout) is handed the views and fit boxes it
// needs, under the session's lock (it has none of its own).
type orthoState struct {
	on     bool
	active int
	zoom   [numPanels]panelZoom
	linked bool           // a zoom in one panel zooms them all
	w, h   int            // the whole viewport
	places [numPanels]int // where each panel lies (see panelPlaces; the zero value: each at its own index)
	proj   *projection
	// at is the shared position a click in a turned panel chose (level-0
	// indices Z, Y, X, between samples), while the view's indices are
	// atFor, the samples nearest it (see position).
	at    oblique.Vec
	atFor [3]int
}

// panelZoom is a panel's zoom and centre; zoom 0 fits its plane.
type panelZoom struct {
	zoom   float64
	center render.Point
}

// orthoDraw is the four-panel layout as the drawer draws it.
type orthoDraw struct {
	w, h   int
	active int
	panels [numPanels]panelDraw
	proj   *projection
	// turned: the view is turned (or sampled trilinearly), and the XY,
	// XZ and YZ panels show the planes of its frame through pos (level-0
	// indices Z, Y, X), each panel's plane (see turnedLayout).
	turned bool
	pos    oblique.Vec
	sp     oblique.Vec // the data's spacing
}

// panelDraw is one panel: where it lies, its view (the active panel's
// comes with the request), its fit box, and the position the crosshair
// marks, in level-0 samples.
type panelDraw struct {
	rect         image.Rectangle
	view         render.View
	fitLo, fitHi render.Point
	at           [3]float64 // Z, Y, X: the centres of the position's samples
	// plane is a turned panel's plane, and (crossX, crossY) where the
	// position lies over its picture.
	plane          oblique.Plane
	crossX, crossY float64
}

// moveTo moves every panel's position to i along axis a (a movie's step).
func (o *orthoDraw) moveTo(a byte, i int) {
	if o.turned {
		o.moveTurned(a, i)
	}
	for k := range o.panels {
		p := &o.panels[k]
		p.view.SetAt(a, i)
		if j := strings.IndexByte("ZYX", a); j >= 0 {
			p.at[j] = float64(i) + 0.5
		}
	}
}

// panelRects lay the four panels out in a viewport of w × h pixels, two
// by two with a gutter between.
func panelRects(w, h int) [numPanels]image.Rectangle {
	pw, ph := max(1, (w-panelGap)/2), max(1, (h-panelGap)/2)
	var r [numPanels]image.Rectangle
	for i := range r {
		x0, y0 := (i%2)*(pw+panelGap), (i/2)*(ph+panelGap)
		r[i] = image.Rect(x0, y0, x0+pw, y0+ph)
	}
	return r
}

// Layout reports the layout shown.
func (s *Session) Layout() Layout {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ortho.on {
		return FourPanels
	}
	if s.v3.on {
		return View3D
	}
	return SingleView
}

// SetLayout shows one plane or the four panels (for volumes: data with
// one plane has nothing to show across it).
func (s *Session) SetLayout(l Layout) {
	s.update(func(m *loader.Meta) bool {
		a := s.set3DLocked(m, l == View3D)
		return s.setLayoutLocked(m, l) || a
	})
}

// ToggleLayout switches between one plane and the four panels.
func (s *Session) ToggleLayout() {
	if s.Layout() == FourPanels {
		s.SetLayout(SingleView)
	} else {
		s.SetLayout(FourPanels)
	}
}

func (s *Session) setLayoutLocked(m *loader.Meta, l Layout) bool {
	on := l == FourPanels
	if on == s.ortho.on || on && m.Size('Z') <= 1 {
		return false
	}
	if on {
		s.ortho.w, s.ortho.h = s.view.Width, s.view.Height
		s.ortho.zoom = [numPanels]panelZoom{}
		s.ortho.active = int(s.view.Orientation) // XY, XZ, YZ: the panel of the plane shown
		if !s.fitted {
			s.ortho.zoom[s.ortho.active] = panelZoom{s.view.Zoom, s.view.Center}
		}
		if s.view.Y == 0 && s.view.X == 0 {
			s.view.Y, s.view.X = m.Size('Y')/2, m.Size('X')/2
		}
		if s.view.Turn != (render.Turn{}) {
			// The panels' position is the centre of the turned plane
			// shown: the active panel shows that plane.
			pl, sp := ObliquePlane(m, s.view), oblique.Spacing(m)
			s.ortho.setPosition(m, &s.view, oblique.Vec{pl.Center[0] / sp[0], pl.Center[1] / sp[1], pl.Center[2] / sp[2]})
		}
		r := panelRects(s.ortho.w, s.ortho.h)[0]
		s.view.Width, s.view.Height = r.Dx(), r.Dy()
		s.ortho.on = true
		if s.fitted {
			s.view.Zoom = 0 // fitted to the panel
		}
	} else {
		s.ortho.on = false
		if s.view.Turn != (render.Turn{}) {
			// One turned plane again: the active panel's, through the
			// point at its centre (between samples if so), at its zoom.
			// A turned panel's centre does not mean what a plane's does
			// (see turnedPanelPlane), so a fitted panel's fit is not kept.
			v := s.view
			if !(v.Zoom > 0) {
				lo, hi := s.fitBoxLocked(v.Orientation)
				v.Zoom, v.Center = render.FitBox(m, v, lo, hi)
			}
			pl, sp := turnedPanelPlane(m, v, s.ortho.position(s.view)), oblique.Spacing(m)
			s.view.Zoom, s.fitted = v.Zoom, false
			placeTurned(m, &s.view, oblique.Vec{pl.Center[0] / sp[0], pl.Center[1] / sp[1], pl.Center[2] / sp[2]})
		}
		s.view.Width, s.view.Height = s.ortho.w, s.ortho.h
		if s.fitted {
			s.view.Zoom = 0
		}
		s.dropOrthoProjLocked()
	}
	s.hist.clear()
	return true
}

// activateLocked makes panel i the active one: the session's view becomes
// its view; it reports whether it changed.
func (s *Session) activateLocked(i int) bool {
	if !s.ortho.on || i == s.ortho.active || i < 0 || i >= numPanels {
		return false
	}
	s.ortho.zoom[s.ortho.active] = s.panelZoomLocked()
	s.ortho.active = i
	s.view.Orientation = panelOrient[i]
	z := s.ortho.zoom[i]
	s.view.Zoom, s.view.Center, s.fitted = z.zoom, z.center, !(z.zoom > 0)
	s.hist.clear()
	return true
}

// panelZoomLocked is the active panel's zoom as kept for it.
func (s *Session) panelZoomLocked() panelZoom {
	if s.fitted || !(s.view.Zoom > 0) {
		return panelZoom{}
	}
	return panelZoom{s.view.Zoom, s.view.Center}
}

// toPanelLocked maps a viewport position to the panel under it, made the
// active one (the view asked for again when it changed), and to its
// position there; outside the four-panel layout it is the position itself.
func (s *Session) toPanelLocked(x, y float64) (px, py float64) {
	if !s.ortho.on {
		return x, y
	}
	i, px, py := s.ortho.panelAt(x, y)
	if s.activateLocked(i) {
		s.askLocked(s.clock.Now(), 0)
		s.noteLocked(ViewChanged)
	}
	return px, py
}

// rects are the panels' rectangles, each where it lies.
func (o *orthoState) rects() (r [numPanels]image.Rectangle) {
	all := panelRects(o.w, o.h)
	if o.places == ([numPanels]int{}) {
		return all
	}
	for i := range r {
		r[i] = all[o.places[i]]
	}
	return r
}

// panelAt is the panel under viewport position (x, y) (the active one
// when none is: the gutter), and the position in it.
func (o *orthoState) panelAt(x, y float64) (i int, px, py float64) {
	rects := o.rects()
	i = o.active
	for k, r := range rects {
		if image.Pt(int(x), int(y)).In(r) {
			i = k
			break
		}
	}
	return i, x - float64(rects[i].Min.X), y - float64(rects[i].Min.Y)
}

// toPanel is toPanelLocked, taking the lock.
func (s *Session) toPanel(x, y float64) (float64, float64) {
	s.mu.Lock()
	x, y = s.toPanelLocked(x, y)
	s.unlockNotify(0)
	return x, y
}

// Drag follows a drag to viewport position (x, y), by (dx, dy) since the
// last: in the four panels it moves the position there, as a click does
// (with Shift held, it pans the panel; with Ctrl, it turns the frame of
// the three planes); one plane shown, it pans, or turns
// the plane about the view's centre with Ctrl held or when the plane is
// already turned out of XY, XZ and YZ (Shift+drag then pans; Ctrl+Shift
// turns in fine steps).
func (s *Session) Drag(x, y, dx, dy float64) {
	if s.drag3D(x, y, dx, dy) {
		return
	}
	s.mu.Lock()
	if s.rois.drag.on { // a measuring tool's drag
		x, y = s.toPanelLocked(x, y)
		if rv, ok := s.roiViewLocked(); ok {
			s.dragROILocked(rv.sample(&s.rois.list[s.rois.drag.roi], x, y))
			s.measureLocked()
		}
		s.unlockNotify(ROIChanged)
		return
	}
	move := s.ortho.on && !s.mods.Shift
	// In the four panels a plain drag moves the position: Ctrl+drag turns.
	turn := s.mods.Ctrl || !s.ortho.on && !s.mods.Shift && PlaneTurned(s.view)
	fine := s.mods.Ctrl && s.mods.Shift
	if !s.dragging && !s.ortho.on && (turn || Oblique(s.view)) && s.data != nil {
		s.dragging, s.dragEnd = true, s.data.Pyr.Hold()
	}
	s.mu.Unlock()
	if turn {
		s.dragTurn(dx, dy, fine)
		return
	}
	if move {
		s.Click(x, y)
		return
	}
	s.Pan(dx, dy)
}

// DragEnd ends a drag: the levels being built, paused while an oblique
// plane was dragged, go on, and the plane is drawn again (at the level
// matching the screen, if the drag drew it coarser); a 3-D view drawn
// coarse while its camera moved is refined.
func (s *Session) DragEnd() {
	s.mu.Lock()
	end := s.dragEnd
	s.dragging, s.dragEnd = false, nil
	s.mu.Unlock()
	if end != nil {
		end()
		s.update(func(*loader.Meta) bool { return true })
	}
	s.end3DDrag()
}

// Click moves the position the four panels show to the data under
// viewport position (x, y): the two axes of the panel clicked, the other
// panels following; in turned panels, to the point the sample clicked
// lies at, in 3-D; one plane shown, it does nothing.
func (s *Session) Click(x, y float64) {
	s.mu.Lock()
	if !s.ortho.on || s.data == nil || s.shown == nil {
		s.mu.Unlock()
		return
	}
	x, y = s.toPanelLocked(x, y)
	m := s.data.Pyr.Meta()
	if Oblique(s.view) && s.ortho.active != panelProj {
		if s.clickTurnedLocked(m, x, y) {
			s.askLocked(s.clock.Now(), 0)
			s.unlockNotify(ViewChanged | HoverChanged)
			return
		}
		s.unlockNotify(ViewChanged)
		return
	}
	v := s.view
	if !(v.Zoom > 0) {
		lo, hi := s.fitBoxLocked(v.Orientation)
		v.Zoom, v.Center = render.FitBox(m, v, lo, hi)
	}
	loc := v.Locate(m, x, y)
	if !loc.Inside {
		s.unlockNotify(ViewChanged)
		return
	}
	s.view.SetAt(loc.ColAxis, loc.Col)
	s.view.SetAt(loc.RowAxis, loc.Row)
	s.askLocked(s.clock.Now(), 0)
	s.unlockNotify(ViewChanged | HoverChanged)
}

// zoomOthersLocked zooms the panels other than the active one by factor
// about their centres, when zooms are linked.
func (s *Session) zoomOthersLocked(m *loader.Meta, factor float64) {
	if s.ortho.on && s.ortho.linked {
		s.ortho.zoomOthers(m, s.view, factor, s.fitBoxLocked)
	}
}

// zoomOthers zooms the panels other than the active one (of the
// session's view v, whose display transforms they share) by factor about
// their centres, a fitted one from its fit (the part fitBox bounds of its
// plane of data m).
func (o *orthoState) zoomOthers(m *loader.Meta, v render.View, factor float64, fitBox func(render.Orientation) (lo, hi render.Point)) {
	rects := panelRects(o.w, o.h)
	for i := range o.zoom {
		if i == o.active {
			continue
		}
		z := &o.zoom[i]
		v.Orientation, v.Width, v.Height = panelOrient[i], rects[i].Dx(), rects[i].Dy()
		if !(z.zoom > 0) {
			lo, hi := fitBox(v.Orientation)
			z.zoom, z.center = render.FitBox(m, v, lo, hi)
		}
		z.zoom *= factor
	}
}

// LinkedZoom reports whether a zoom in one panel zooms them all.
func (s *Session) LinkedZoom() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ortho.linked
}

// SetLinkedZoom links the panels' zooms, or lets each zoom on its own.
func (s *Session) SetLinkedZoom(on bool) {
	s.mu.Lock()
	s.ortho.linked = on
	s.unlockNotify(ViewChanged)
}

// orthoDrawLocked is the four-panel layout for scene r (whose view is
// the active panel's), or nil for one plane.
func (s *Session) orthoDrawLocked(r *Scene) *orthoDraw {
	if !s.ortho.on || s.data == nil {
		return nil
	}
	var proj *projection
	if r.vol == nil { // the fourth panel shows the Z projection, not the 3-D view
		proj = s.orthoProjLocked()
	}
	od := s.ortho.layout(r.view, s.view, s.fitBoxLocked, proj)
	if Oblique(r.view) {
		od.turnedLayout(s.data.Pyr.Meta(), s.ortho.position(s.view))
	}
	return od
}

// layout is the four panels as the painter draws them: each panel gets
// view v (the active panel's) on its own plane and at its own size, the
// others with the zoom and centre kept for them, the part fitBox bounds
// of its plane to fit, and the crosshair at pos's position; proj is the
// fourth panel's projection.
func (o *orthoState) layout(v, pos render.View, fitBox func(render.Orientation) (lo, hi render.Point), proj *projection) *orthoDraw {
	od := &orthoDraw{w: o.w, h: o.h, active: o.active, proj: proj}
	rects := o.rects()
	at := [3]float64{float64(pos.Z) + 0.5, float64(pos.Y) + 0.5, float64(pos.X) + 0.5}
	for i := range od.panels {
		p := &od.panels[i]
		p.rect, p.at = rects[i], at
		pv := v
		pv.Orientation = panelOrient[i]
		pv.Width, pv.Height = rects[i].Dx(), rects[i].Dy()
		if i != o.active {
			pv.Zoom, pv.Center = o.zoom[i].zoom, o.zoom[i].center
		}
		p.view = pv
		p.fitLo, p.fitHi = fitBox(pv.Orientation)
	}
	return od
}

// orthoProjLocked is the fourth panel's projection: the maximum over
// every plane along Z.
func (s *Session) orthoProjLocked() *projection {
	m := s.data.Pyr.Meta()
	n := m.Size('Z')
	if p := s.ortho.proj; p != nil && p.pyr == s.data.Pyr {
		return p
	}
	s.dropOrthoProjLocked()
	s.ortho.proj = newProjection(s.data.Pyr, loader.ProjectMax, 'Z', 0, n-1)
	return s.ortho.proj
}

// dropOrthoProjLocked stops the fourth panel's projection, off the lock.
func (s *Session) dropOrthoProjLocked() {
	if p := s.ortho.proj; p != nil {
		s.ortho.proj = nil
		go p.close()
	}
}

// crosshairColour marks the position in each panel.
var crosshairColour = color.RGBA{255, 210, 0, 255}

// gutterColour is between the panels.
var gutterColour = color.RGBA{80, 80, 80, 255}

// compose draws the panels other than the active one (whose frame f is)
// through the windows f chose, their chunks asked for after the active
// panel's, and lays the four out in one picture, a crosshair in each at
// the position; f then shows it all, and is complete when every panel is.
func (p *planePainter) compose(r *Scene, f *Frame) {
	o := r.ortho
	m := r.d.Pyr.Meta()
	out := p.orthoTarget(o.w, o.h)
	row := make([]byte, 4*o.w)
	for i := 0; i < len(row); i += 4 {
		row[i], row[i+1], row[i+2], row[i+3] = gutterColour.R, gutterColour.G, gutterColour.B, 255
	}
	for y := 0; y < o.h; y++ {
		copy(out.Pix[y*out.Stride:], row)
	}
	for i, pn := range o.panels {
		var img *image.RGBA
		v := pn.view
		if i == panelProj && r.vol != nil {
			img = p.panel3D(r, f, pn.rect.Dx(), pn.rect.Dy())
		} else if i == o.active {
			img, v = f.Img, f.View
		} else if o.turned && i != panelProj {
			v.Lo, v.Hi, v.Colormap = f.View.Lo, f.View.Hi, f.View.Colormap
			if v.Lo == v.Hi {
				v.Lo, v.Hi = 0, 1
			}
			img = p.turnedPanel(r, i, v, f)
		} else {
			v.Lo, v.Hi, v.Channels = f.View.Lo, f.View.Hi, f.View.Channels
			if v.Lo == v.Hi {
				v.Lo, v.Hi = 0, 1
			}
			if !(v.Zoom > 0) {
				v.Zoom, v.Center = render.FitBox(m, v, pn.fitLo, pn.fitHi)
			}
			img = p.panel(r, i, v, m, f)
		}
		// The panel as far as the picture reaches (all of it but while the
		// view's size is still unknown).
		at := pn.rect.Intersect(out.Rect)
		for y := 0; y < img.Rect.Dy() && y < at.Dy(); y++ {
			copy(out.Pix[(at.Min.Y+y)*out.Stride+4*at.Min.X:][:4*min(img.Rect.Dx(), at.Dx())], img.Pix[y*img.Stride:])
		}
		pane := out.SubImage(pn.rect).(*image.RGBA)
		if i == panelProj && r.vol != nil {
			render.DrawTag(pane, panel3D)
			continue
		}
		if o.turned && i != panelProj {
			tag := panelNames[i]
			if anatomical(m, v) { // World Space: the anatomical planes, resampled
				tag = panelTag(m, i)
			}
			render.DrawTag(pane, tag)
			drawCross(pane, pn.crossX, pn.crossY)
			drawEdges(pane, m, v)
			continue
		}
		render.DrawTag(pane, panelTag(m, i))
		drawCrosshair(pane, m, v, pn.at)
		drawEdges(pane, m, v) // over the crosshair, which runs through the middles of the edges
	}
	f.Img = out
	f.Panel = panelNames[o.active]
	if o.active == panelProj && r.vol != nil {
		f.Panel = panel3D
	}
}

// drawCrosshair draws the lines through position at (Z, Y, X sample
// centres) across pane, panel view v's part of the picture: the column
// and the row of the position in the panel's plane.
func drawCrosshair(pane *image.RGBA, m *loader.Meta, v render.View, at [3]float64) {
	row, col, _ := v.Orientation.Axes()
	pos := func(a byte) float64 { return at[map[byte]int{'Z': 0, 'Y': 1, 'X': 2}[a]] }
	x, y := v.ToScreen(m, render.Point{Col: pos(col), Row: pos(row)})
	b := pane.Rect
	if xi := b.Min.X + int(x); x >= 0 && xi < b.Max.X {
		for yy := b.Min.Y; yy < b.Max.Y; yy++ {
			pane.SetRGBA(xi, yy, crosshairColour)
		}
	}
	if yi := b.Min.Y + int(y); y >= 0 && yi < b.Max.Y {
		for xx := b.Min.X; xx < b.Max.X; xx++ {
			pane.SetRGBA(xx, yi, crosshairColour)
		}
	}
}

// panel draws panel i other than the active one (view v, frame f's
// windows) and counts what it misses in f's Info. A panel whose view did
// not change since it was drawn complete (a step through the active
// panel's planes moves only its crosshair) is not drawn again.
func (p *planePainter) panel(r *Scene, i int, v render.View, m *loader.Meta, f *Frame) *image.RGBA {
	key := v
	row, col, _ := v.Orientation.Axes()
	key.SetAt(row, 0) // positions on the axes shown do not change the picture
	key.SetAt(col, 0)
	key.Channels = nil
	last := &p.panels[i]
	if last.img != nil && last.complete && last.data == r.d && last.refreshes == p.refreshes &&
		sameView(last.view, key) && slices.Equal(last.chans, v.Channels) && last.bar == r.scaleBar {
		return last.img
	}
	var src render.Source = r.d.Pyr
	rv := v
	if i == panelProj {
		src, rv = r.ortho.proj, onProjection(v)
	}
	if r.movie {
		src = movieSource{src}
	} else {
		src = laterSource{src}
	}
	img, in := p.pr[i].Render(rv, src, r.gen)
	f.Info.Missing += in.Missing
	f.Info.Failed += in.Failed
	f.Info.Complete = f.Info.Complete && in.Complete
	if r.scaleBar {
		render.DrawScaleBar(img, m, v)
	}
	*last = panelCache{img: img, view: key, chans: slices.Clone(v.Channels), complete: in.Complete, data: r.d,
		refreshes: p.refreshes, bar: r.scaleBar}
	return img
}

// panelCache is what a panel other than the active one was drawn from.
type panelCache struct {
	img       *image.RGBA
	view      render.View
	chans     []render.Channel
	complete  bool
	data      *Data
	refreshes uint64
	bar       bool
}

// sameView reports whether two views draw the same picture (their
// channels compared apart).
func sameView(a, b render.View) bool {
	return a.Orientation == b.Orientation && a.T == b.T && a.C == b.C && a.Z == b.Z && a.Y == b.Y && a.X == b.X &&
		a.Zoom == b.Zoom && a.Center == b.Center && a.Lo == b.Lo && a.Hi == b.Hi && a.Colormap == b.Colormap &&
		a.Width == b.Width && a.Height == b.Height && a.Flips == b.Flips
}

// orthoTarget returns the next of the painter's four-panel pictures, w × h.
func (p *planePainter) orthoTarget(w, h int) *image.RGBA {
	p.onext = (p.onext + 1) % len(p.obufs)
	b := p.obufs[p.onext]
	if b == nil || b.Rect.Dx() != w || b.Rect.Dy() != h {
		b = image.NewRGBA(image.Rect(0, 0, w, h))
		p.obufs[p.onext] = b
	}
	return b
}

// laterSource asks for the chunks of a panel that is not the active one
// after the active panel's (at prefetch priority), so that the panel
// being scrubbed is never held up by the others.
type laterSource struct{ render.Source }

func (s laterSource) Request(_ levels.Priority, gen uint64, level int, idxs ...[]int) {
	s.Source.Request(levels.Prefetch, gen, level, idxs...)
}
