// Package render turns image samples into pixels: a View (plane, position,
// zoom, window, colormap) of a multi-resolution pyramid becomes a
// viewport-sized RGBA image, drawn coarse to fine from the chunks in memory
// without waiting for I/O. It also holds the colormaps and auto-contrast.
// It is pure Go and never imports the UI toolkit, so everything it draws
// can be tested without a display. Its functions are safe for concurrent
// use; a Renderer is not (use one per drawing goroutine).
package render

import (
	"image"
	"math"
	"slices"

	"vastview/loader"
)

// Sample returns sample i of a little-endian buffer of type dt as float64.
func Sample(buf []byte, dt loader.DType, i int) float64 { return dt.At(buf, i) }

// AutoRange returns the 0.1 and 99.9 percentiles of the finite samples in
// buf, the display range auto-contrast uses. For an empty or constant
// buffer it returns a range of width 1 so that a window can be built.
func AutoRange(buf []byte, dt loader.DType) (lo, hi float64) {
	n := len(buf) / dt.Size()
	step := max(1, n/(1<<20)) // at most about a million samples
	vals := make([]float64, 0, n/step+1)
	for i := 0; i < n; i += step {
		v := Sample(buf, dt, i)
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return 0, 1
	}
	slices.Sort(vals)
	lo = vals[int(0.001*float64(len(vals)-1))]
	hi = vals[int(math.Ceil(0.999*float64(len(vals)-1)))]
	if hi <= lo {
		hi = lo + 1
	}
	return lo, hi
}

// Plane draws w×h samples of buf through the window [lo, hi] and the
// colormap into a new RGBA image: lo and below are colour 0, hi and above
// colour 255, NaN colour 0. A label colormap ignores the window.
func Plane(buf []byte, dt loader.DType, w, h int, lo, hi float64, cm *Colormap) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	Draw(img.Pix, buf[:w*h*dt.Size()], dt, lo, hi, cm)
	return img
}

// Draw writes one RGBA pixel into pix for each sample of buf, through the
// window [lo, hi] and the colormap. Types of 8 and 16 bits go through a
// table of every possible value; wider types are mapped per sample.
func Draw(pix, buf []byte, dt loader.DType, lo, hi float64, cm *Colormap) {
	var p Painter
	p.Paint(pix, buf, dt, lo, hi, cm)
}
