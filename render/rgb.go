package render

import (
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
