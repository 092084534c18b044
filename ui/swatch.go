package ui

import (
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vastview/render"
)

// color0 is no colour at all.
var color0 color.Color = color.Transparent

const (
	swatchW = 28
	swatchH = 20
)

// swatch shows a colormap as a patch: a ramp to one colour (a channel's
// colour) as that colour, another colormap as its colours from dark to
// bright; a tap calls onTap. It runs on the UI goroutine.
type swatch struct {
	widget.BaseWidget
	onTap    func()
	colormap string
	lut      [256][3]uint8
	solid    bool // a ramp: lut[255] is its colour
	dim      bool // drawn faint: the colour is not in the picture
}

var (
	_ fyne.Tappable      = (*swatch)(nil)
	_ desktop.Cursorable = (*swatch)(nil)
)

func newSwatch(onTap func()) *swatch {
	s := &swatch{onTap: onTap}
	s.ExtendBaseWidget(s)
	return s
}

// setColormap shows the colormap called name (see render.ColormapNamed;
// gray for a name it does not know).
func (s *swatch) setColormap(name string) {
	if name == s.colormap {
		return
	}
	s.colormap = name
	hex := strings.ToLower(name)
	if h, ok := render.ColourNames[hex]; ok {
		hex = h
	}
	_, s.solid = render.ParseColor(hex)
	cm, err := render.ColormapNamed(name)
	if err != nil {
		cm, _ = render.ColormapNamed("gray")
	}
	s.lut = cm.LUT
	s.Refresh()
}

// setDim draws the colour faint (dim) or as it is.
func (s *swatch) setDim(dim bool) {
	if dim != s.dim {
		s.dim = dim
		s.Refresh()
	}
}

// colour is the colour shown at fraction f (0 to 1) of the width.
func (s *swatch) colour(f float64) color.NRGBA {
	i := 255
	if !s.solid {
		i = int(f*255 + 0.5)
	}
	c := s.lut[min(255, max(0, i))]
	a := uint8(0xff)
	if s.dim {
		a = 0x50
	}
	return color.NRGBA{c[0], c[1], c[2], a}
}

// Tapped implements fyne.Tappable.
func (s *swatch) Tapped(*fyne.PointEvent) {
	if s.onTap != nil {
		s.onTap()
	}
}

// Cursor implements desktop.Cursorable: the swatch is a button.
func (s *swatch) Cursor() desktop.Cursor { return desktop.PointerCursor }

func (s *swatch) CreateRenderer() fyne.WidgetRenderer {
	r := &swatchRenderer{s: s, frame: canvas.NewRectangle(color0)}
	r.fill = canvas.NewRasterWithPixels(func(x, _, w, _ int) color.Color {
		return s.colour(float64(x) / float64(max(1, w-1)))
	})
	r.fill.ScaleMode = canvas.ImageScalePixels
	r.update()
	return r
}

type swatchRenderer struct {
	s     *swatch
	frame *canvas.Rectangle // a thin outline, so that black shows too
	fill  *canvas.Raster
}

func (r *swatchRenderer) update() {
	th := r.s.Theme()
	fg := th.Color(theme.ColorNameForeground, fyne.CurrentApp().Settings().ThemeVariant())
	r.frame.StrokeColor = withAlpha(fg, 0x80)
	r.frame.StrokeWidth = 1
	r.frame.CornerRadius = 2
}

func (r *swatchRenderer) Layout(size fyne.Size) {
	r.frame.Resize(size)
	r.fill.Move(fyne.NewPos(1, 1))
	r.fill.Resize(fyne.NewSize(max(0, size.Width-2), max(0, size.Height-2)))
}

func (r *swatchRenderer) MinSize() fyne.Size { return fyne.NewSize(swatchW, swatchH) }

func (r *swatchRenderer) Refresh() {
	r.update()
	r.frame.Refresh()
	r.fill.Refresh()
}

func (r *swatchRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.fill, r.frame} }
func (r *swatchRenderer) Destroy()                     {}
