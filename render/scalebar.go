package render

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"strconv"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"vastview/assets"
	"vastview/loader"
)

// barUnits are the units a scale bar is labelled in, largest first.
var barUnits = []struct {
	name   string
	metres float64
}{{"km", 1e3}, {"m", 1}, {"mm", 1e-3}, {"µm", 1e-6}, {"nm", 1e-9}, {"pm", 1e-12}}

// ScaleBar is the scale bar of view v of m: a round physical length (1,
// 2 or 5 × 10ⁿ of the unit that makes it 1 to 999) about a fifth of the
// viewport's width at most, its length in screen pixels and its label
// ("20 µm"). ok is false when the plane's column axis has no length unit
// (no physical spacing in the file) or the view is too small.
func ScaleBar(m *loader.Meta, v View) (px int, label string, ok bool) {
	perPixel, ok := metresPerPixel(m, v)
	if !ok || v.Width < 40 {
		return 0, "", false
	}
	most := perPixel * float64(v.Width) / 5
	// The largest 1, 2 or 5 × 10ⁿ metres not above most.
	e := math.Floor(math.Log10(most))
	length := 0.0
	for _, d := range []float64{5, 2, 1} {
		if l := d * math.Pow(10, e); l <= most*(1+1e-9) {
			length = l
			break
		}
	}
	if !(length > 0) {
		return 0, "", false
	}
	unit := barUnits[len(barUnits)-1]
	for _, u := range barUnits {
		if length >= u.metres*(1-1e-9) {
			unit = u
			break
		}
	}
	n := length / unit.metres
	px = int(math.Round(length / perPixel))
	if px < 2 {
		return 0, "", false
	}
	return px, fmt.Sprintf("%.0f %s", n, unit.name), true
}

// metresPerPixel is the physical width of a screen pixel of view v of m,
// in metres, when the plane's columns have a length unit.
func metresPerPixel(m *loader.Meta, v View) (float64, bool) {
	_, col, _ := v.Orientation.Axes()
	k := m.AxisIndex(col)
	if k < 0 {
		return 0, false
	}
	f, kind := loader.UnitScale(m.Units[k])
	s := m.Levels[0].Scale[k]
	zc, _ := v.zooms(m)
	if kind != loader.Length || !(s > 0) || !(zc > 0) {
		return 0, false
	}
	return s * f / zc, true
}

// PixelSize writes the physical width of a screen pixel of view v of m
// ("0.392 µm/px"), or "" when the data has no length unit.
func PixelSize(m *loader.Meta, v View) string {
	mpp, ok := metresPerPixel(m, v)
	if !ok {
		return ""
	}
	unit := barUnits[len(barUnits)-1]
	for _, u := range barUnits { // the largest unit of which it is 0.1 or more
		if mpp >= 0.1*u.metres*(1-1e-9) {
			unit = u
			break
		}
	}
	return fmt.Sprintf("%.3g %s/px", mpp/unit.metres, unit.name)
}

// LengthLabel writes a length of metres in the largest unit of which it
// is 1 or more, to four significant digits ("12.5 µm", "0 µm" for none).
func LengthLabel(metres float64) string {
	if metres == 0 {
		return "0 µm"
	}
	unit := barUnits[len(barUnits)-1]
	for _, u := range barUnits {
		if math.Abs(metres) >= u.metres*(1-1e-9) {
			unit = u
			break
		}
	}
	return strconv.FormatFloat(metres/unit.metres, 'g', 4, 64) + " " + unit.name
}

// ImageRect is the part of view v's viewport that shows the plane of m
// (the data's extent, clipped to the viewport): where overlays go.
func ImageRect(m *loader.Meta, v View) image.Rectangle {
	row, col, _ := v.Orientation.Axes()
	x0, y0 := v.ToScreen(m, Point{})
	x1, y1 := v.ToScreen(m, Point{Col: float64(m.Size(col)), Row: float64(m.Size(row))})
	r := image.Rect(int(math.Round(min(x0, x1))), int(math.Round(min(y0, y1))), int(math.Round(max(x0, x1))), int(math.Round(max(y0, y1))))
	return r.Intersect(image.Rect(0, 0, v.Width, v.Height))
}

// overlayRect is where the overlays of view v go in img: the image's part
// of it, or all of img when that part is too small to write in.
func overlayRect(img *image.RGBA, m *loader.Meta, v View) image.Rectangle {
	r := ImageRect(m, v).Add(img.Rect.Min).Intersect(img.Rect)
	if r.Dx() < 80 || r.Dy() < 40 {
		return img.Rect
	}
	return r
}

// DrawScaleBar draws view v's scale bar (see ScaleBar) into img, the
// view's picture: a white bar with a dark edge and its label above it, at
// the bottom right of the image (not of the margin beside it). It draws
// nothing when the view has no scale.
func DrawScaleBar(img *image.RGBA, m *loader.Meta, v View) {
	px, label, ok := ScaleBar(m, v)
	if !ok {
		return
	}
	r := overlayRect(img, m, v)
	size := textSize(img)
	margin := max(8, int(math.Round(size/2)))
	thick := max(3, int(math.Round(size/6)))
	x1, y1 := r.Max.X-margin, r.Max.Y-margin
	x0, y0 := x1-px, y1-thick
	text := textMask(label, size)
	tw, th := text.Rect.Dx(), text.Rect.Dy()
	if x0 < r.Min.X || y0-th < r.Min.Y || tw > r.Dx() {
		return
	}
	dark := color.RGBA{0, 0, 0, 255}
	fill(img, image.Rect(x0-1, y0-1, x1+1, y1+1), dark)
	fill(img, image.Rect(x0, y0, x1, y1), color.RGBA{255, 255, 255, 255})
	// The label, centred over the bar, white with a dark outline.
	tx, ty := (x0+x1)/2-tw/2, y0-th
	tx = max(r.Min.X, min(r.Max.X-tw, tx))
	outlined(img, text, tx, ty)
}

// DrawTag writes text (a panel's name) at the bottom left of img, as
// DrawStamp does at the top left.
func DrawTag(img *image.RGBA, text string) {
	size := textSize(img)
	mask := textMask(text, size)
	margin := max(8, int(math.Round(size/2)))
	x, y := img.Rect.Min.X+margin, img.Rect.Max.Y-margin-mask.Rect.Dy()
	if x+mask.Rect.Dx() > img.Rect.Max.X || y < img.Rect.Min.Y {
		return
	}
	outlined(img, mask, x, y)
}

// textSize is the height of the overlays' text, in pixels, on a picture
// the size of img: about a thirtieth of its smaller side, 11 at least and
// 28 at most.
func textSize(img *image.RGBA) float64 {
	return max(11, min(28, math.Round(float64(min(img.Rect.Dx(), img.Rect.Dy()))/30)))
}

// outlined paints mask at (x, y) of img, white with a dark outline.
func outlined(img *image.RGBA, mask *image.Alpha, x, y int) {
	at := func(dx, dy int) image.Rectangle { return mask.Rect.Sub(mask.Rect.Min).Add(image.Pt(x+dx, y+dy)) }
	dark := image.NewUniform(color.RGBA{0, 0, 0, 255})
	for _, d := range [][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}, {-1, -1}, {1, 1}, {-1, 1}, {1, -1}} {
		draw.DrawMask(img, at(d[0], d[1]), dark, image.Point{}, mask, mask.Rect.Min, draw.Over)
	}
	draw.DrawMask(img, at(0, 0), image.White, image.Point{}, mask, mask.Rect.Min, draw.Over)
}

// fill paints r (clipped to img) in c.
func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	r = r.Intersect(img.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x, y, c)
		}
	}
}

// textFont is the overlays' font (assets.TextFont), parsed once.
var textFont = sync.OnceValues(func() (*opentype.Font, error) { return opentype.Parse(assets.TextFont) })

// textMask draws s in the overlays' font, size pixels high (its em),
// anti-aliased: the mask is as wide as the text and as high as the
// font's line, with a pixel to spare on each side for the outline.
func textMask(s string, size float64) *image.Alpha {
	f, err := textFont()
	if err != nil {
		return image.NewAlpha(image.Rect(0, 0, 0, 0))
	}
	// A face is not safe for concurrent use: one per call.
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		return image.NewAlpha(image.Rect(0, 0, 0, 0))
	}
	defer face.Close()
	met := face.Metrics()
	w := font.MeasureString(face, s).Ceil() + 2
	h := (met.Ascent + met.Descent).Ceil() + 2
	mask := image.NewAlpha(image.Rect(0, 0, w, h))
	d := font.Drawer{Dst: mask, Src: image.Opaque, Face: face, Dot: fixed.Point26_6{X: fixed.I(1), Y: met.Ascent + fixed.I(1)}}
	d.DrawString(s)
	return mask
}

// DrawStamp writes text (a time stamp, a position) at the top left of
// view v's image in img, white with a dark outline, in the scale bar's
// font and size.
func DrawStamp(img *image.RGBA, m *loader.Meta, v View, text string) {
	if text == "" {
		return
	}
	r := overlayRect(img, m, v)
	size := textSize(img)
	mask := textMask(text, size)
	margin := max(8, int(math.Round(size/2)))
	x, y := r.Min.X+margin, r.Min.Y+margin
	if x+mask.Rect.Dx() > r.Max.X || y+mask.Rect.Dy() > r.Max.Y {
		return
	}
	outlined(img, mask, x, y)
}

// Edges names what lies beyond each edge of a picture: the orientation
// letters of an anatomical volume ("R", "A", "S"...). An empty string
// draws nothing at that edge.
type Edges struct{ Left, Right, Top, Bottom string }

// DrawEdges writes the letters of e at the middle of the four edges of
// img (a view's picture or a panel of it), white with a dark outline, in
// the scale bar's font and size.
func DrawEdges(img *image.RGBA, e Edges) {
	size := textSize(img)
	margin := max(4, int(math.Round(size/4)))
	r := img.Rect
	put := func(s string, x, y func(w, h int) int) {
		if s == "" {
			return
		}
		mask := textMask(s, size)
		w, h := mask.Rect.Dx(), mask.Rect.Dy()
		if w+2*margin > r.Dx() || h+2*margin > r.Dy() {
			return
		}
		outlined(img, mask, x(w, h), y(w, h))
	}
	midX := func(w, _ int) int { return (r.Min.X+r.Max.X)/2 - w/2 }
	midY := func(_, h int) int { return (r.Min.Y+r.Max.Y)/2 - h/2 }
	put(e.Left, func(int, int) int { return r.Min.X + margin }, midY)
	put(e.Right, func(w, _ int) int { return r.Max.X - margin - w }, midY)
	put(e.Top, midX, func(int, int) int { return r.Min.Y + margin })
	put(e.Bottom, midX, func(_, h int) int { return r.Max.Y - margin - h })
}
