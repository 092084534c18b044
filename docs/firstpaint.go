//go:build ignore

// Command firstpaint measures the floor of opening a window: a bare Fyne
// window of the viewer's size, no data, from the process's start to the
// first time its content is painted (a raster's generator is called by
// the painter as it draws). It prints the times from the process's start
// of app.New and of the first paint, in ms, then exits. Run it beside
// `vastview --trace` on the same display:
//
//	go build -o /tmp/firstpaint docs/firstpaint.go && DISPLAY=:47 /tmp/firstpaint
package main

import (
	"fmt"
	"image"
	"image/color"
	"os"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/canvas"
)

func main() {
	start := time.Now()
	ms := func() float64 { return float64(time.Since(start).Microseconds()) / 1000 }
	a := app.NewWithID("io.vastview.firstpaint")
	tNew := ms()
	w := a.NewWindow("firstpaint")
	var once sync.Once
	r := canvas.NewRaster(func(wd, ht int) image.Image {
		once.Do(func() {
			t := ms()
			fmt.Printf("app.New %.1f ms, first paint %.1f ms\n", tNew, t)
			os.Exit(0)
		})
		return image.NewUniform(color.Gray{Y: 128})
	})
	w.SetContent(r)
	w.Resize(fyne.NewSize(1024, 800))
	w.ShowAndRun()
}
