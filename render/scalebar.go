package render

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strconv"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

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

// DrawScaleBar draws view v's scale bar (see ScaleBar) into img, the
// view's picture: a white bar with a dark edge and its label above it, at
// the bottom right. It draws nothing when the view has no scale.
func DrawScaleBar(img *image.RGBA, m *loader.Meta, v View) {
	px, label, ok := ScaleBar(m, v)
	if !ok {
		return
	}
	w, h := img.Rect.Dx(), img.Rect.Dy()
	scale := textScale(w)
	margin := 8 * scale
	thick := 3 * scale
	x1, y1 := w-margin, h-margin
	x0, y0 := x1-px, y1-thick
	text := textMask(label)
	tw, th := text.Rect.Dx()*scale, text.Rect.Dy()*scale
	if x0 < 0 || y0-th-2*scale < 0 || tw > w {
		return
	}
	dark := color.RGBA{0, 0, 0, 255}
	fill(img, image.Rect(x0-1, y0-1, x1+1, y1+1), dark)
	fill(img, image.Rect(x0, y0, x1, y1), color.RGBA{255, 255, 255, 255})
	// The label, centred over the bar, white with a dark outline.
	tx, ty := (x0+x1)/2-tw/2, y0-th-2*scale
	tx = max(0, min(w-tw, tx))
	outlined(img, text, tx, ty, scale)
}

// DrawTag writes text (a panel's name) at the bottom left of img, as
// DrawStamp does at the top left.
func DrawTag(img *image.RGBA, text string) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	scale := textScale(w)
	mask := textMask(text)
	x, y := 8*scale, h-8*scale-mask.Rect.Dy()*scale
	if x+mask.Rect.Dx()*scale > w || y < 0 {
		return
	}
	outlined(img, mask, x, y, scale)
}

// textScale is how many times the 7×13 font is magnified on a picture w
// pixels wide: it is small on a large view.
func textScale(w int) int {
	if w >= 480 {
		return 2
	}
	return 1
}

// outlined paints mask at (x, y) of img, magnified scale times, white
// with a dark outline.
func outlined(img *image.RGBA, mask *image.Alpha, x, y, scale int) {
	for _, d := range [][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
		stamp(img, mask, x+d[0], y+d[1], scale, color.RGBA{0, 0, 0, 255})
	}
	stamp(img, mask, x, y, scale, color.RGBA{255, 255, 255, 255})
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

// stamp paints the set pixels of mask, magnified scale times, at (x, y)
// of img in c.
func stamp(img *image.RGBA, mask *image.Alpha, x, y, scale int, c color.RGBA) {
	b := mask.Rect
	for my := b.Min.Y; my < b.Max.Y; my++ {
		for mx := b.Min.X; mx < b.Max.X; mx++ {
			if mask.AlphaAt(mx, my).A < 128 {
				continue
			}
			fill(img, image.Rect(x+(mx-b.Min.X)*scale, y+(my-b.Min.Y)*scale, x+(mx-b.Min.X+1)*scale, y+(my-b.Min.Y+1)*scale), c)
		}
	}
}

// textMask draws s in the 7×13 bitmap font. The font has ASCII only: µ is
// drawn as a u whose left stem goes on below the line.
func textMask(s string) *image.Alpha {
	runes := []rune(s)
	face := basicfont.Face7x13
	mask := image.NewAlpha(image.Rect(0, 0, face.Advance*len(runes), face.Height))
	d := font.Drawer{Dst: mask, Src: image.Opaque, Face: face, Dot: fixed.P(0, face.Ascent)}
	for i, r := range runes {
		if r == 'µ' {
			d.DrawString("u")
			// The u's left stem is its first column of ink: carry it down.
			x := i * face.Advance
			for cx := x; cx < x+face.Advance; cx++ {
				if mask.AlphaAt(cx, face.Ascent-2).A > 0 {
					for y := face.Ascent; y < face.Height; y++ {
						mask.SetAlpha(cx, y, color.Alpha{255})
					}
					break
				}
			}
			continue
		}
		d.DrawString(string(r))
	}
	return mask
}

// DrawStamp writes text (a time stamp, a position) at the top left of
// img, white with a dark outline, in the scale bar's font and size.
func DrawStamp(img *image.RGBA, text string) {
	if text == "" {
		return
	}
	w := img.Rect.Dx()
	scale := textScale(w)
	mask := textMask(text)
	x, y := 8*scale, 8*scale
	if x+mask.Rect.Dx()*scale > w || y+mask.Rect.Dy()*scale > img.Rect.Dy() {
		return
	}
	outlined(img, mask, x, y, scale)
}
