package render

import (
	"image"

	"vastview/loader"
)

// RGB is the colormap name that draws the three samples of colour pixels
// (loader.Meta.RGB: a C axis of red, green and blue) as one colour
// picture; the window applies to each sample alike.
const RGB = "rgb"

// rgbRamps draw the red, green and blue samples before they are combined.
var rgbRamps = [3]string{"#ff0000", "#00ff00", "#0000ff"}

// RGBWindow is the window colour pixels are first shown with: the whole
// range of an unsigned integer type (0-255 for 8-bit samples); ok is false
// for other types, which are auto-contrasted.
func RGBWindow(dt loader.DType) (lo, hi float64, ok bool) {
	if dt.Float() || dt.Signed() {
		return 0, 0, false
	}
	return 0, float64(uint64(1)<<(8*dt.Size()) - 1), true
}

// composite reports whether view v of data m is drawn as one colour picture.
func composite(v View, m *loader.Meta) bool {
	return v.Colormap == RGB && m.Size('C') == 3 && m.AxisIndex('C') >= 0
}

// channelView is v showing sample c in its colour ramp.
func channelView(v View, c int) View {
	v.C, v.Colormap = c, rgbRamps[c]
	return v
}

// renderRGB draws the three samples with their own renderers and takes
// each pixel's red, green and blue from the three pictures. It allocates
// nothing once the buffers exist.
func (r *Renderer) renderRGB(v View, p Source, gen uint64) (*image.RGBA, Info) {
	if r.sub == nil {
		r.sub = new([3]Renderer)
	}
	var imgs [3]*image.RGBA
	info := Info{Complete: true}
	for c := range imgs {
		img, in := r.sub[c].Render(channelView(v, c), p, gen)
		imgs[c] = img
		info.Level = in.Level
		info.Missing += in.Missing
		info.Complete = info.Complete && in.Complete
		info.Unfilled = max(info.Unfilled, in.Unfilled)
		info.Failed += in.Failed
		if in.Err != nil {
			info.Err = in.Err
		}
	}
	out := r.target(imgs[0].Rect.Dx(), imgs[0].Rect.Dy())
	combine(out, imgs)
	return out, info
}

// combine takes each pixel's red, green and blue from three pictures of
// the same size.
func combine(out *image.RGBA, imgs [3]*image.RGBA) {
	rp, gp, bp, op := imgs[0].Pix, imgs[1].Pix, imgs[2].Pix, out.Pix
	for i := 0; i+3 < len(op); i += 4 {
		op[i], op[i+1], op[i+2], op[i+3] = rp[i], gp[i+1], bp[i+2], 255
	}
}

// PlaneRGB draws the red, green and blue samples of a colour plane (w×h
// samples each, type dt) as the RGB colormap shows them, each through the
// window [lo, hi].
func PlaneRGB(samples [3][]byte, dt loader.DType, w, h int, lo, hi float64) *image.RGBA {
	var imgs [3]*image.RGBA
	for c := range imgs {
		cm, _ := ColormapNamed(rgbRamps[c])
		imgs[c] = Plane(samples[c], dt, w, h, lo, hi, cm)
	}
	out := image.NewRGBA(imgs[0].Rect)
	combine(out, imgs)
	return out
}
