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

	"vastview/loader"
)

// Sample returns sample i of a little-endian buffer of type dt as float64.
func Sample(buf []byte, dt loader.DType, i int) float64 { return dt.At(buf, i) }

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
