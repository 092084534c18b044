package session

import (
	"image"
	"math"
	"testing"

	"vastview/loader"
	"vastview/render"
	"vastview/render/oblique"
	raycast "vastview/render/volume"
)

// blobLabels are labels over blob (the same samples): label 7 a box
// beside the ball through every plane, label 300 a small box in the
// ball's middle plane at half the resolution of the image (6×24×32
// samples of 6, 2, 2).
func blobLabels() (same, half *arraySource) {
	same = volume([3]int{12, 48, 64}, [3]float64{3, 1, 1}, func(z, y, x int) uint16 {
		if y >= 30 && y < 42 && x >= 4 && x < 20 {
			return 7
		}
		return 0
	})
	half = volume([3]int{6, 24, 32}, [3]float64{6, 2, 2}, func(z, y, x int) uint16 {
		if y >= 2 && y < 6 && x >= 22 && x < 28 {
			return 300
		}
		return 0
	})
	return same, half
}

// pixelOf is the pixel of plane p nearest physical point x (Z, Y, X).
func pixelOf(p oblique.Plane, x oblique.Vec) (int, int) {
	d := x.Add(p.Center.Scale(-1))
	j := d.Dot(p.U)/p.Pixel + float64(p.W-1)/2
	i := d.Dot(p.V)/p.Pixel + float64(p.H-1)/2
	return int(math.Round(j)), int(math.Round(i))
}

// A label layer is drawn in the 3-D view as opaque surfaces in its
// palette colours, where its labels are (a layer of another resolution
// through its alignment); hidden, the picture is the image's again.
func TestView3DShowsLabelLayers(t *testing.T) {
	same, half := blobLabels()
	files := map[string]func() loader.Source{
		"/data/blob_labels.tif":      func() loader.Source { return same },
		"/data/blob_half_labels.tif": func() loader.Source { return half },
	}
	h := newHarness(t, Options{Open: openFiles(files)})
	h.open(blob(), "/data/blob.tif")
	h.s.SetWindow(0, 3000)
	h.s.SetLayout(View3D)
	h.s.AddLayer("/data/blob_labels.tif", LayerLabels)
	h.s.AddLayer("/data/blob_half_labels.tif", LayerLabels)
	f := h.waitFrame(func(f *Frame) bool { return f.Info.Complete && f.Vol != nil && f.Vol.Scale == 1 && f.Layers == 2 })
	img := copyImage(f.Img)
	m := h.s.Data().Pyr.Meta()
	p := h.s.Camera().Plane(m, img.Rect.Dx(), img.Rect.Dy())
	at := func(img *image.RGBA, x oblique.Vec) [3]uint8 {
		j, i := pixelOf(p, x)
		c := img.RGBAAt(j, i)
		return [3]uint8{c.R, c.G, c.B}
	}
	// The middle of label 7's box (y 30..41, x 4..19), and of label
	// 300's (half-resolution samples y 2..5, x 22..27: y 4..11, x 44..55
	// of the image), in the plane of the volume's centre.
	box7 := oblique.Vec{16.5, 35.5, 11.5}
	box300 := oblique.Vec{16.5, 7.5, 49.5}
	if got, want := at(img, box7), render.LabelColour(7); got != want {
		t.Errorf("pixel over label 7 %v, want its colour %v", got, want)
	}
	if got, want := at(img, box300), render.LabelColour(300); got != want {
		t.Errorf("pixel over label 300 (a layer at half the resolution) %v, want its colour %v", got, want)
	}
	// Off the labels, the image's rendering.
	plain := want3D(t, h, h.s.Camera(), img.Rect.Dx(), img.Rect.Dy(), raycastOptions(0, 3000))
	off := oblique.Vec{16.5, 20, 36} // the ball
	if got, want := at(img, off), at(plain, off); got != want {
		t.Errorf("pixel off the labels %v, want the image's %v", got, want)
	}
	// Hidden layers: the image's picture.
	h.s.EditLayer(0, func(l *Layer) { l.Visible = false })
	h.s.EditLayer(1, func(l *Layer) { l.Visible = false })
	f = h.waitFrame(func(f *Frame) bool { return f.Info.Complete && f.Vol != nil && f.Vol.Scale == 1 && f.Layers == 0 })
	for _, x := range []oblique.Vec{box7, box300} {
		if got, want := at(f.Img, x), at(plain, x); got != want {
			t.Errorf("with the layers hidden, pixel %v, want the image's %v", got, want)
		}
	}
}

// raycastOptions is a MIP through window lo..hi, gray.
func raycastOptions(lo, hi float64) raycast.Options {
	return raycast.Options{Mode: raycast.MIP, Window: [2]float64{lo, hi}}
}
