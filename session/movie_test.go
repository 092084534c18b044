package session

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"vastview/loader"
	"vastview/render"
)

// TestExportMovieIsTheViewAtEachPosition writes a movie of the window's
// view along the planes as PNG images: each is the complete frame the
// window shows at that plane, pixel for pixel, the time stamp (here the
// plane's position) and the layers included.
func TestExportMovieIsTheViewAtEachPosition(t *testing.T) {
	files := layerFiles()
	h := newHarness(t, Options{Open: openFiles(files)})
	h.open(files["/data/cells.tif"](), "/data/cells.tif")
	h.s.AddLayer("/data/cells_labels.tif", LayerLabels)
	h.waitUpdate(func(u Update) bool { return len(h.s.Layers()) == 1 })
	h.s.SetTimeStamp(true)
	h.s.SetWindow(0, 3000)
	dir := t.TempDir()
	ended := make(chan *Export, 1)
	e, err := h.s.ExportMovie(filepath.Join(dir, "cells.png"), MovieOptions{Axis: 'Z', From: 1, To: -1}, func(e *Export) { ended <- e })
	if err != nil {
		t.Fatal(err)
	}
	<-ended
	if err := e.Err(); err != nil {
		t.Fatal(err)
	}
	if done, total := e.Progress(); done != 3 || total != 3 {
		t.Errorf("progress %d of %d, want 3 of 3", done, total)
	}
	for z := 1; z < 4; z++ {
		h.s.SetAt('Z', z)
		f := h.waitFrame(func(f *Frame) bool { return f.View.Z == z && f.Info.Complete && f.Layers == 1 })
		f.Img = copyImage(f.Img)
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("cells_z%04d.png", z)))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := img.(*image.NRGBA)
		if !ok {
			rgba, ok2 := img.(*image.RGBA)
			if !ok2 {
				t.Fatalf("frame %d decodes as %T", z, img)
			}
			got = &image.NRGBA{Pix: rgba.Pix, Stride: rgba.Stride, Rect: rgba.Rect}
		}
		if got.Rect != f.Img.Rect || !bytes.Equal(got.Pix, f.Img.Pix) {
			t.Errorf("frame z=%d differs from the window's", z)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "cells_z0000.png")); err == nil {
		t.Errorf("wrote z=0, before the range")
	}
}

func TestStampsSayTheTimeOrThePlane(t *testing.T) {
	for _, c := range []struct {
		sec, dt, last float64
		want          string
	}{
		{0.2, 0.05, 2, "0.20 s"},
		{3, 1, 59, "3 s"},
		{62.5, 0.5, 120, "1:02.5"},
		{3602, 2, 7200, "1:00:02"},
		{0.0125, 0.0005, 1, "0.013 s"},
	} {
		if got := timeLabel(c.sec, c.dt, c.last); got != c.want {
			t.Errorf("timeLabel(%g, %g, %g) = %q, want %q", c.sec, c.dt, c.last, got, c.want)
		}
	}
	m := loader.NewMeta("m", "TZYX", []int{10, 5, 4, 4}, loader.Uint8, []int{1, 1, 4, 4}, []float64{0.5, 2.5, 1, 1},
		[]string{"second", "micrometer", "micrometer", "micrometer"})
	v := render.View{T: 3, Z: 2}
	if got := stampText(m, v, 'T'); got != "1.5 s" {
		t.Errorf("time stamp %q", got)
	}
	if got := stampText(m, v, 'Z'); got != "z 5 µm" {
		t.Errorf("plane stamp %q", got)
	}
}

// TestExportMovieOfFourPanels: a movie of the four panels along the
// active panel's planes is, frame by frame, what the window shows.
func TestExportMovieOfFourPanels(t *testing.T) {
	src := volume([3]int{6, 40, 56}, [3]float64{1, 1, 1}, func(z, y, x int) uint16 { return uint16(300*z + 20*y + 9*x) })
	h := newHarness(t, Options{})
	h.open(src, "/data/vol.tif")
	h.s.SetWindow(0, 3000)
	h.s.Resize(300, 200)
	h.s.SetLayout(FourPanels)
	h.waitFrame(func(f *Frame) bool { return f.Panel == "xy" && f.Info.Complete })
	dir := t.TempDir()
	ended := make(chan *Export, 1)
	e, err := h.s.ExportMovie(filepath.Join(dir, "v.png"), MovieOptions{Axis: 'Z', From: 2, To: 4}, func(e *Export) { ended <- e })
	if err != nil {
		t.Fatal(err)
	}
	<-ended
	if err := e.Err(); err != nil {
		t.Fatal(err)
	}
	for z := 2; z <= 4; z++ {
		h.s.SetAt('Z', z)
		f := h.waitFrame(func(f *Frame) bool { return f.View.Z == z && f.Info.Complete && f.Panel == "xy" })
		f.Img = copyImage(f.Img)
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("v_z%04d.png", z)))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		rgba, ok := img.(*image.RGBA)
		if !ok || rgba.Rect != f.Img.Rect || !bytes.Equal(rgba.Pix, f.Img.Pix) {
			first := -1
			for i := range rgba.Pix {
				if rgba.Pix[i] != f.Img.Pix[i] {
					first = i
					break
				}
			}
			t.Errorf("frame z=%d (%T %v) differs from the window's %v first at %d", z, img, img.Bounds(), f.Img.Rect, first)
		}
	}
}

// TestMovieFPSAlongEachAxis: a movie along the planes of a time-lapse is
// written at 25 frames per second whatever the time interval; along T at
// the file's own rate, and at 25 when the interval has no unit of time.
func TestMovieFPSAlongEachAxis(t *testing.T) {
	m := loader.NewMeta("t", "TZYX", []int{4, 20, 8, 8}, loader.Uint8, []int{1, 1, 8, 8},
		[]float64{1.5, 2, 0.5, 0.5}, []string{"second", "micrometer", "micrometer", "micrometer"})
	if got := MovieFPS(m, 'Z'); got != 25 {
		t.Errorf("along Z: %g fps, want 25", got)
	}
	if got := MovieFPS(m, 'T'); math.Abs(got-1/1.5) > 1e-12 {
		t.Errorf("along T: %g fps, want %g", got, 1/1.5)
	}
	m.Units[0] = ""
	if got := MovieFPS(m, 'T'); got != 25 {
		t.Errorf("along T without a unit of time: %g fps, want 25", got)
	}
}
