package ui

import (
	"image"
	"image/color"
	"math"
	"slices"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vastview/loader"
	"vastview/render"
)

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// contrastPart is what a drag on the contrast panel moves.
type contrastPart uint8

const (
	contrastNone contrastPart = iota
	contrastLow               // the low handle
	contrastHigh              // the high handle
	contrastBoth              // the window between them
)

const (
	contrastMargin   = 5    // units left and right of the plot, room for the grips
	contrastHit      = 6    // a handle takes the pointer this far either side
	contrastPlotH    = 30   // minimum plot height
	contrastMinGap   = 1e-3 // smallest window, as a fraction of the histogram range
	contrastMinPlotW = 100  // minimum plot width
)

// contrastPanel shows a histogram of the values on screen, log-scaled,
// under the display window [lo, hi]: a handle at each end and the window
// shaded between them, with "lo … hi" written below (in the file's
// units, named: "-160 … 240 HU"). Dragging a handle
// moves that end, dragging the shaded window moves both, and a double
// tap asks for auto-contrast. It runs on the UI goroutine only.
type contrastPanel struct {
	widget.BaseWidget

	onChange func(lo, hi float64) // the window, while a drag moves it
	onAuto   func()               // a double tap

	hist   render.Histogram
	scale  *loader.ValueScale // the read-out in the file's units (HU); nil: as stored
	unit   string             // those units' name, written after the read-out ("HU"); "" for none
	linear bool               // bars in proportion to the counts, not their logarithm
	lo, hi float64

	dragging bool
	part     contrastPart // what the drag in progress moves
	x0       float32      // where it started
	lo0, hi0 float64      // the window when it started
	hovered  contrastPart // under the pointer
}

func newContrastPanel(onChange func(lo, hi float64), onAuto func()) *contrastPanel {
	c := &contrastPanel{onChange: onChange, onAuto: onAuto, lo: 0, hi: 1}
	c.ExtendBaseWidget(c)
	return c
}

// setHistogram replaces the bars; the window stays.
func (c *contrastPanel) setHistogram(h render.Histogram) {
	c.hist = h
	c.Refresh()
}

// setLinear draws the bars in proportion to the counts (true) or to their
// logarithm.
func (c *contrastPanel) setLinear(linear bool) {
	c.linear = linear
	c.Refresh()
}

// setWindow moves the handles to [lo, hi] without calling onChange.
func (c *contrastPanel) setWindow(lo, hi float64) {
	c.lo, c.hi = lo, hi
	c.Refresh()
}

// valid reports whether there is a histogram to place the handles on.
func (c *contrastPanel) valid() bool {
	return len(c.hist.Counts) > 0 && c.hist.Max > c.hist.Min && finite(c.hist.Max-c.hist.Min)
}

// plotWidth is the width of the value axis, in units.
func (c *contrastPanel) plotWidth() float32 {
	return c.Size().Width - 2*contrastMargin
}

// xOf is the position of value v on the plot, clamped to its ends.
func (c *contrastPanel) xOf(v float64) float32 {
	f := (v - c.hist.Min) / (c.hist.Max - c.hist.Min)
	if !(f >= 0) { // below, or NaN
		f = 0
	}
	return contrastMargin + float32(min(f, 1))*c.plotWidth()
}

// pick is the part a drag starting at x moves, first going by dx.
func (c *contrastPanel) pick(x, dx float32) contrastPart {
	xl, xh := c.xOf(c.lo), c.xOf(c.hi)
	dl, dh := abs32(x-xl), abs32(x-xh)
	switch {
	case dl > contrastHit && dh > contrastHit:
		if x > xl && x < xh {
			return contrastBoth
		}
		return contrastNone
	case abs32(dl-dh) < 1: // the handles meet: go by the direction
		if dx < 0 {
			return contrastLow
		}
		return contrastHigh
	case dl < dh:
		return contrastLow
	}
	return contrastHigh
}

// Dragged implements fyne.Draggable.
func (c *contrastPanel) Dragged(e *fyne.DragEvent) {
	if !c.dragging {
		c.dragging = true
		c.part = contrastNone
		if c.valid() && c.plotWidth() > 0 {
			c.x0 = e.Position.X - e.Dragged.DX
			c.part = c.pick(c.x0, e.Dragged.DX)
			c.lo0, c.hi0 = c.lo, c.hi
		}
	}
	if c.part == contrastNone {
		return
	}
	lo, hi := c.dragTo(e.Position.X)
	if lo == c.lo && hi == c.hi {
		return
	}
	c.setWindow(lo, hi)
	if c.onChange != nil {
		c.onChange(lo, hi)
	}
}

// dragTo is the window once the drag in progress reaches x: within the
// histogram's range (a window already beyond it may only come back) and
// never narrower than contrastMinGap of it.
func (c *contrastPanel) dragTo(x float32) (lo, hi float64) {
	span := c.hist.Max - c.hist.Min
	dv := float64(x-c.x0) / float64(c.plotWidth()) * span
	gap := contrastMinGap * span
	lo, hi = c.lo0, c.hi0
	switch c.part {
	case contrastLow:
		lo = min(max(lo+dv, c.hist.Min), hi-gap)
	case contrastHigh:
		hi = max(min(hi+dv, c.hist.Max), lo+gap)
	case contrastBoth:
		dv = max(min(dv, max(0, c.hist.Max-hi)), min(0, c.hist.Min-lo))
		lo, hi = lo+dv, hi+dv
	}
	return lo, hi
}

// DragEnd implements fyne.Draggable.
func (c *contrastPanel) DragEnd() {
	c.dragging = false
	c.part = contrastNone
}

// DoubleTapped implements fyne.DoubleTappable: auto-contrast.
func (c *contrastPanel) DoubleTapped(*fyne.PointEvent) {
	if c.onAuto != nil {
		c.onAuto()
	}
}

// MouseIn implements desktop.Hoverable.
func (c *contrastPanel) MouseIn(e *desktop.MouseEvent) { c.MouseMoved(e) }

// MouseMoved implements desktop.Hoverable.
func (c *contrastPanel) MouseMoved(e *desktop.MouseEvent) {
	c.hovered = contrastNone
	if c.valid() {
		c.hovered = c.pick(e.Position.X, 0)
	}
}

// MouseOut implements desktop.Hoverable.
func (c *contrastPanel) MouseOut() { c.hovered = contrastNone }

// Cursor implements desktop.Cursorable: a resize cursor over a handle.
func (c *contrastPanel) Cursor() desktop.Cursor {
	if c.hovered == contrastLow || c.hovered == contrastHigh {
		return desktop.HResizeCursor
	}
	return desktop.DefaultCursor
}

func (c *contrastPanel) CreateRenderer() fyne.WidgetRenderer {
	r := &contrastRenderer{
		c:      c,
		bg:     canvas.NewRectangle(color.Transparent),
		shade:  canvas.NewRectangle(color.Transparent),
		loLine: canvas.NewRectangle(color.Transparent),
		hiLine: canvas.NewRectangle(color.Transparent),
		loGrip: canvas.NewRectangle(color.Transparent),
		hiGrip: canvas.NewRectangle(color.Transparent),
		text:   canvas.NewText("", color.Black),
	}
	r.text.Alignment = fyne.TextAlignCenter
	r.update()
	return r
}

// contrastReadout is the window written compactly: as many decimals as
// tell apart values a fiftieth of the narrower of the window and the
// histogram's range apart.
func contrastReadout(lo, hi, span float64) string {
	step := min(span, hi-lo) / 50
	return compactFloat(lo, step) + " … " + compactFloat(hi, step)
}

// compactFloat writes v to the resolution step.
func compactFloat(v, step float64) string {
	d := 0
	if step > 0 && finite(step) {
		d = max(0, int(math.Ceil(-math.Log10(step))))
	}
	if !finite(v) || !(step > 0) || d > 6 || math.Abs(v) >= 1e6 {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	s := strconv.FormatFloat(v, 'f', d, 64)
	if s[0] == '-' && allZero(s) {
		s = s[1:] // not "-0.00"
	}
	return s
}

// allZero reports whether s has no digit other than 0.
func allZero(s string) bool {
	for _, r := range s {
		if r >= '1' && r <= '9' {
			return false
		}
	}
	return true
}

func abs32(f float32) float32 {
	if f < 0 {
		return -f
	}
	return f
}

type contrastRenderer struct {
	c              *contrastPanel
	bg, shade      *canvas.Rectangle
	loLine, hiLine *canvas.Rectangle
	loGrip, hiGrip *canvas.Rectangle
	bars           *canvas.Raster // the histogram, one image: cheap to repaint
	barColor       color.NRGBA
	drawn          render.Histogram // what bars shows
	drawnLinear    bool
	text           *canvas.Text
	objects        []fyne.CanvasObject
}

// update brings the objects in line with the panel: the histogram image,
// theme colours, the read-out.
func (r *contrastRenderer) update() {
	c := r.c
	th := c.Theme()
	vr := fyne.CurrentApp().Settings().ThemeVariant()
	fg := th.Color(theme.ColorNameForeground, vr)
	primary := th.Color(theme.ColorNamePrimary, vr)
	if r.bars == nil {
		r.bars = canvas.NewRaster(r.drawBars)
		r.bars.ScaleMode = canvas.ImageScalePixels
	}
	r.bg.FillColor = th.Color(theme.ColorNameInputBackground, vr)
	if bc := withAlpha(fg, 0x99); bc != r.barColor || !sameHistogram(r.drawn, c.hist) || r.drawnLinear != c.linear {
		r.barColor, r.drawn, r.drawnLinear = bc, c.hist, c.linear
		r.bars.Refresh() // a new image only when the bars change
	}
	r.shade.FillColor = withAlpha(primary, 0x40)
	for _, o := range []*canvas.Rectangle{r.loLine, r.hiLine, r.loGrip, r.hiGrip} {
		o.FillColor = primary
	}
	r.loGrip.CornerRadius, r.hiGrip.CornerRadius = 2, 2
	r.text.Color = fg
	r.text.TextSize = th.Size(theme.SizeNameCaptionText)
	lo, hi := c.scale.Value(c.lo), c.scale.Value(c.hi)
	r.text.Text = contrastReadout(min(lo, hi), max(lo, hi), math.Abs(c.scale.Value(c.hist.Max)-c.scale.Value(c.hist.Min)))
	if !c.valid() {
		r.text.Text = contrastReadout(c.lo, c.hi, c.hi-c.lo)
	}
	if c.unit != "" {
		r.text.Text += " " + c.unit
	}
	if r.objects == nil {
		r.objects = []fyne.CanvasObject{r.bg, r.bars, r.shade, r.loLine, r.hiLine, r.loGrip, r.hiGrip, r.text}
	}
}

func sameHistogram(a, b render.Histogram) bool {
	return a.Min == b.Min && a.Max == b.Max && slices.Equal(a.Counts, b.Counts)
}

// barHeights returns each bin's bar height in a plot h pixels high: its
// count, log-scaled (or in proportion when linear), the largest bin
// filling the plot.
func barHeights(counts []int64, h int, linear bool) []int {
	var top int64
	for _, n := range counts {
		top = max(top, n)
	}
	out := make([]int, len(counts))
	for i, n := range counts {
		switch {
		case n <= 0:
		case linear:
			out[i] = max(1, int(math.Round(float64(h)*float64(n)/float64(top))))
		default:
			out[i] = max(1, int(math.Round(float64(h)*math.Log1p(float64(n))/math.Log1p(float64(top)))))
		}
	}
	return out
}

// drawBars is the histogram image at w×h pixels.
func (r *contrastRenderer) drawBars(w, h int) image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	counts := r.drawn.Counts
	if len(counts) == 0 || w <= 0 {
		return img
	}
	hs := barHeights(counts, h, r.drawnLinear)
	for x := 0; x < w; x++ {
		bh := hs[min(len(hs)-1, x*len(hs)/w)]
		for y := h - bh; y < h; y++ {
			img.SetNRGBA(x, y, r.barColor)
		}
	}
	return img
}

func withAlpha(c color.Color, a uint8) color.NRGBA {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	n.A = uint8(uint16(n.A) * uint16(a) / 0xff)
	return n
}

// plotHeight is the height of the histogram within size.
func (r *contrastRenderer) plotHeight(size fyne.Size) float32 {
	return max(0, size.Height-r.text.MinSize().Height-theme.Padding())
}

func (r *contrastRenderer) Layout(size fyne.Size) {
	c := r.c
	h := r.plotHeight(size)
	r.bg.Move(fyne.NewPos(contrastMargin, 0))
	r.bg.Resize(fyne.NewSize(max(0, size.Width-2*contrastMargin), h))
	r.layoutBars(size.Width, h)
	ok := c.valid()
	for _, o := range []*canvas.Rectangle{r.shade, r.loLine, r.hiLine, r.loGrip, r.hiGrip} {
		o.Hidden = !ok
	}
	if ok {
		xl, xh := c.xOf(c.lo), c.xOf(c.hi)
		r.shade.Move(fyne.NewPos(xl, 0))
		r.shade.Resize(fyne.NewSize(xh-xl, h))
		placeHandle(r.loLine, r.loGrip, xl, h)
		placeHandle(r.hiLine, r.hiGrip, xh, h)
	}
	th := r.text.MinSize().Height
	r.text.Move(fyne.NewPos(0, size.Height-th))
	r.text.Resize(fyne.NewSize(size.Width, th))
}

// placeHandle centres a handle's line and grip on x.
func placeHandle(line, grip *canvas.Rectangle, x, h float32) {
	line.Move(fyne.NewPos(x-1, 0))
	line.Resize(fyne.NewSize(2, h))
	grip.Move(fyne.NewPos(x-4, 0))
	grip.Resize(fyne.NewSize(8, min(h, 10)))
}

// layoutBars places the histogram image over the plot, w wide and h high.
func (r *contrastRenderer) layoutBars(w, h float32) {
	r.bars.Move(fyne.NewPos(contrastMargin, 0))
	r.bars.Resize(fyne.NewSize(max(0, w-2*contrastMargin), h))
}

func (r *contrastRenderer) MinSize() fyne.Size {
	return fyne.NewSize(contrastMinPlotW+2*contrastMargin, contrastPlotH+theme.Padding()+r.text.MinSize().Height)
}

func (r *contrastRenderer) Refresh() {
	r.update()
	r.Layout(r.c.Size())
	canvas.Refresh(r.c)
}

func (r *contrastRenderer) Objects() []fyne.CanvasObject { return r.objects }
func (r *contrastRenderer) Destroy()                     {}
