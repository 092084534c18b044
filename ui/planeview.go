package ui

import (
	"image"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// planeView is the picture: a viewport-sized image drawn elsewhere, and
// the mouse gestures over it, turned into calls to its handlers. It runs
// on the UI goroutine and does no pixel work.
type planeView struct {
	widget.BaseWidget
	img *canvas.Image

	onResize func(w, h int)              // viewport size in pixels
	onScroll func(x, y, dy float32)      // wheel at a pixel position
	onDrag   func(dx, dy float32)        // pan by pixels
	onHover  func(x, y float32, in bool) // pointer position
	onTap    func()                      // a click (takes the keyboard)
	scale    func() float32              // canvas scale: pixels per unit
}

func newPlaneView() *planeView {
	v := &planeView{img: canvas.NewImageFromImage(image.NewRGBA(image.Rect(0, 0, 1, 1)))}
	v.img.FillMode = canvas.ImageFillStretch
	v.img.ScaleMode = canvas.ImageScalePixels
	v.ExtendBaseWidget(v)
	return v
}

// show replaces the picture; the previous image is no longer referenced.
func (v *planeView) show(img *image.RGBA) {
	v.img.Image = img
	v.img.Refresh()
}

func (v *planeView) px(f float32) float32 {
	if v.scale != nil {
		return f * v.scale()
	}
	return f
}

func (v *planeView) CreateRenderer() fyne.WidgetRenderer {
	return &planeViewRenderer{v: v}
}

// Scrolled implements fyne.Scrollable.
func (v *planeView) Scrolled(e *fyne.ScrollEvent) {
	if v.onScroll != nil {
		v.onScroll(v.px(e.Position.X), v.px(e.Position.Y), e.Scrolled.DY)
	}
}

// Dragged implements fyne.Draggable.
func (v *planeView) Dragged(e *fyne.DragEvent) {
	if v.onDrag != nil {
		v.onDrag(v.px(e.Dragged.DX), v.px(e.Dragged.DY))
	}
}

// DragEnd implements fyne.Draggable.
func (v *planeView) DragEnd() {}

// Tapped implements fyne.Tappable.
func (v *planeView) Tapped(*fyne.PointEvent) {
	if v.onTap != nil {
		v.onTap()
	}
}

// MouseIn implements desktop.Hoverable.
func (v *planeView) MouseIn(e *desktop.MouseEvent) { v.hover(e, true) }

// MouseMoved implements desktop.Hoverable.
func (v *planeView) MouseMoved(e *desktop.MouseEvent) { v.hover(e, true) }

// MouseOut implements desktop.Hoverable.
func (v *planeView) MouseOut() {
	if v.onHover != nil {
		v.onHover(0, 0, false)
	}
}

func (v *planeView) hover(e *desktop.MouseEvent, in bool) {
	if v.onHover != nil {
		v.onHover(v.px(e.Position.X), v.px(e.Position.Y), in)
	}
}

type planeViewRenderer struct {
	v    *planeView
	w, h int
}

func (r *planeViewRenderer) Layout(size fyne.Size) {
	r.v.img.Resize(size)
	w, h := int(r.v.px(size.Width)+0.5), int(r.v.px(size.Height)+0.5)
	if (w != r.w || h != r.h) && r.v.onResize != nil {
		r.w, r.h = w, h
		r.v.onResize(w, h)
	}
}

func (r *planeViewRenderer) MinSize() fyne.Size           { return fyne.NewSize(200, 150) }
func (r *planeViewRenderer) Refresh()                     { canvas.Refresh(r.v.img) }
func (r *planeViewRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.v.img} }
func (r *planeViewRenderer) Destroy()                     {}
