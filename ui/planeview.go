package ui

import (
	"image"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"vastview/session"
)

// planeView is the picture: a viewport-sized image drawn by the session,
// and the keys and mouse gestures over it, passed on to the session. It
// holds the keyboard focus (toolbar widgets hand keys on to it), runs on
// the UI goroutine and does no pixel work.
type planeView struct {
	widget.BaseWidget
	v     *Viewer
	img   *canvas.Image
	marks *fyne.Container // the ROIs drawn over the picture (see showOverlay)
	w, h  int             // the size the session draws at, in pixels
	// panning is set during a right-drag, which was last at (panX, panY).
	panning    bool
	panX, panY float64
}

var (
	_ fyne.Focusable    = (*planeView)(nil)
	_ desktop.Keyable   = (*planeView)(nil)
	_ fyne.Shortcutable = (*planeView)(nil)
	_ fyne.Scrollable   = (*planeView)(nil)
	_ fyne.Draggable    = (*planeView)(nil)
	_ desktop.Hoverable = (*planeView)(nil)
	_ desktop.Mouseable = (*planeView)(nil)
)

func newPlaneView(v *Viewer) *planeView {
	p := &planeView{v: v, img: canvas.NewImageFromImage(image.NewRGBA(image.Rect(0, 0, 1, 1))), marks: container.NewWithoutLayout()}
	p.img.FillMode = canvas.ImageFillStretch
	p.img.ScaleMode = canvas.ImageScalePixels
	p.ExtendBaseWidget(p)
	return p
}

// show replaces the picture; the previous image is no longer referenced.
func (p *planeView) show(img *image.RGBA) {
	p.img.Image = img
	p.img.Refresh()
	// Straight to the window's canvas as well: canvas.Refresh finds the
	// canvas through a cache that may not hold the image (yet, or any
	// more), and then drops the refresh, leaving an old texture on screen.
	if c := p.v.win.Canvas(); c != nil {
		c.Refresh(p.img)
	}
}

// px converts units to pixels.
func (p *planeView) px(f float32) float64 {
	if c := p.v.win.Canvas(); c != nil {
		return float64(f * c.Scale())
	}
	return float64(f)
}

func (p *planeView) CreateRenderer() fyne.WidgetRenderer { return &planeViewRenderer{p: p} }

// FocusGained implements fyne.Focusable.
func (p *planeView) FocusGained() {}

// FocusLost implements fyne.Focusable: the key releases go elsewhere now.
func (p *planeView) FocusLost() { p.v.s.ResetModifiers() }

// KeyDown implements desktop.Keyable.
func (p *planeView) KeyDown(e *fyne.KeyEvent) {
	if !p.v.modal() {
		p.v.s.KeyDown(string(e.Name))
	}
}

// KeyUp implements desktop.Keyable.
func (p *planeView) KeyUp(e *fyne.KeyEvent) { p.v.s.KeyUp(string(e.Name)) }

// TypedKey implements fyne.Focusable: the press and the keyboard's repeats.
func (p *planeView) TypedKey(e *fyne.KeyEvent) {
	if e.Name == fyne.KeyEscape {
		if p.v.modal() {
			p.v.closeDialog()
		} else {
			p.v.s.Escape() // a polygon being drawn, else the tool
		}
		return
	}
	if p.v.modal() {
		return
	}
	p.v.command(p.v.s.Press(string(e.Name)))
}

// TypedRune implements fyne.Focusable.
func (p *planeView) TypedRune(r rune) {
	if !p.v.modal() {
		p.v.command(p.v.s.Rune(r))
	}
}

// TypedShortcut implements fyne.Shortcutable: keys pressed with Ctrl or Alt.
func (p *planeView) TypedShortcut(s fyne.Shortcut) {
	cs, ok := s.(*desktop.CustomShortcut)
	if !ok || p.v.modal() {
		return
	}
	mods := session.Mods{
		Shift: cs.Modifier&fyne.KeyModifierShift != 0,
		Ctrl:  cs.Modifier&(fyne.KeyModifierControl|fyne.KeyModifierSuper) != 0,
		Alt:   cs.Modifier&fyne.KeyModifierAlt != 0,
	}
	p.v.command(p.v.s.PressWith(string(cs.KeyName), mods))
}

// Scrolled implements fyne.Scrollable.
func (p *planeView) Scrolled(e *fyne.ScrollEvent) {
	p.v.s.Scroll(p.px(e.Position.X), p.px(e.Position.Y), float64(e.Scrolled.DY))
}

// Dragged implements fyne.Draggable.
func (p *planeView) Dragged(e *fyne.DragEvent) {
	p.v.s.Drag(p.px(e.Position.X), p.px(e.Position.Y), p.px(e.Dragged.DX), p.px(e.Dragged.DY))
}

// DragEnd implements fyne.Draggable.
func (p *planeView) DragEnd() {
	p.v.s.DragEnd()
	p.v.s.MouseUp()
}

// MouseDown implements desktop.Mouseable: a measuring tool's press.
func (p *planeView) MouseDown(e *desktop.MouseEvent) {
	if e.Button == desktop.MouseButtonPrimary && !p.v.modal() {
		p.v.focusView()
		p.v.s.MouseDown(p.px(e.Position.X), p.px(e.Position.Y))
	}
}

// MouseUp implements desktop.Mouseable: the end of a tool's drag.
func (p *planeView) MouseUp(*desktop.MouseEvent) { p.v.s.MouseUp() }

// Tapped implements fyne.Tappable: a click takes the keyboard and, in
// the four-panel layout, moves the position the panels show there.
func (p *planeView) Tapped(e *fyne.PointEvent) {
	p.v.focusView()
	p.v.s.Click(p.px(e.Position.X), p.px(e.Position.Y))
}

// MouseIn implements desktop.Hoverable.
func (p *planeView) MouseIn(e *desktop.MouseEvent) { p.hover(e) }

// MouseMoved implements desktop.Hoverable.
func (p *planeView) MouseMoved(e *desktop.MouseEvent) { p.hover(e) }

// MouseOut implements desktop.Hoverable.
func (p *planeView) MouseOut() {
	p.panning = false
	p.v.s.Hover(0, 0, false)
}

func (p *planeView) hover(e *desktop.MouseEvent) {
	x, y := p.px(e.Position.X), p.px(e.Position.Y)
	// A move with the right button held is a right-drag: it pans (the
	// window hands only the left button's drags to Dragged).
	if e.Button == desktop.MouseButtonSecondary {
		if p.panning {
			p.v.s.Pan(x-p.panX, y-p.panY)
		}
		p.panning, p.panX, p.panY = true, x, y
	} else {
		p.panning = false
	}
	p.v.s.Hover(x, y, true)
}

type planeViewRenderer struct {
	p *planeView
}

func (r *planeViewRenderer) Layout(size fyne.Size) {
	r.p.img.Resize(size)
	r.p.marks.Resize(size)
	r.p.sizeChanged()
	r.p.showOverlay()
}

// sizeChanged tells the session the picture's size in pixels, unless the
// viewer holds it back while its panels are made.
func (p *planeView) sizeChanged() {
	if p.v.held {
		return
	}
	size := p.Size()
	w, h := int(p.px(size.Width)+0.5), int(p.px(size.Height)+0.5)
	if w != p.w || h != p.h {
		p.w, p.h = w, h
		p.v.s.Resize(w, h)
	}
}

func (r *planeViewRenderer) MinSize() fyne.Size { return fyne.NewSize(200, 150) }
func (r *planeViewRenderer) Refresh()           { canvas.Refresh(r.p.img) }
func (r *planeViewRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.p.img, r.p.marks}
}
func (r *planeViewRenderer) Destroy() {}

// modal reports whether a dialog covers the window: keys then are not the
// view's.
func (v *Viewer) modal() bool {
	c := v.win.Canvas()
	return c != nil && c.Overlays().Top() != nil
}

// focusView gives the keyboard to the picture.
func (v *Viewer) focusView() {
	if c := v.win.Canvas(); c != nil && c.Focused() != v.pv {
		c.Focus(v.pv)
	}
}

// command does what a key asks of the window.
func (v *Viewer) command(c session.Command) {
	switch c {
	case session.ShowHelp:
		v.showShortcuts()
	case session.OpenFile:
		v.openDialog()
	case session.SaveView:
		v.saveDialog()
	case session.TogglePane:
		v.togglePanels()
	case session.ToggleStrip:
		v.strip.toggle()
	case session.ToggleHist:
		v.toggleHistogram()
	case session.ShowResults:
		v.measure.showPanel()
	}
}
