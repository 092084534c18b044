package ui

import (
	"context"
	"testing"

	"fyne.io/fyne/v2/test"

	"vastview/loader"
	"vastview/loader/demo"
	"vastview/render"
)

// channelSource is a demo volume whose file describes its one channel.
type channelSource struct {
	*demo.Source
	meta loader.Meta
}

func (s *channelSource) Meta() *loader.Meta { return &s.meta }

func TestChannelColourAndWindowFromTheFile(t *testing.T) {
	a := test.NewTempApp(t)
	d := demo.NewSized(1, 3, 64, 96)
	src := &channelSource{Source: d, meta: *d.Meta()}
	src.meta.Channels = []loader.Channel{{Label: "GFP", Color: [3]uint8{0, 255, 0}, HasColor: true, Lo: 100, Hi: 20000, HasWindow: true}}
	var v *Viewer
	uiDoAndWait(func() {
		v = newViewer(a, Options{})
		v.openSource(src, "/data/cells.ome.zarr")
		v.win.Show()
	})
	t.Cleanup(func() {
		uiDoAndWait(func() { v.win.Close() })
		v.d.stop()
		v.s.close()
	})
	greenOnly := func(f *frame) bool {
		p, green := f.img.Pix, false
		for i := 0; i < len(p); i += 4 {
			if p[i] != p[i+2] || p[i] != 0 && p[i] != 32 { // 32: the background's grey
				return false
			}
			green = green || p[i] == 0 && p[i+1] > 0
		}
		return green
	}
	f := waitShown(t, v, func(f *frame) bool { return f.info.Complete && greenOnly(f) })
	if f.view.Colormap != "#00ff00" || f.view.Lo != 100 || f.view.Hi != 20000 {
		t.Errorf("view %s [%g, %g], want the channel's #00ff00 [100, 20000]", f.view.Colormap, f.view.Lo, f.view.Hi)
	}
	var sel string
	uiDoAndWait(func() { sel = v.cmapSel.Selected })
	if sel != "#00ff00" {
		t.Errorf("toolbar shows colormap %q", sel)
	}
}

// rgbSource is a 3×32×48 colour image: red 200, green 100, blue 0.
type rgbSource struct{ meta *loader.Meta }

func (s *rgbSource) Meta() *loader.Meta { return s.meta }
func (s *rgbSource) Close() error       { return nil }
func (s *rgbSource) ReadChunk(_ context.Context, _ int, idx []int, dst []byte) error {
	v := [3]byte{200, 100, 0}[idx[0]]
	for i := range dst {
		dst[i] = v
	}
	return nil
}

func TestColourImagesShowInColour(t *testing.T) {
	a := test.NewTempApp(t)
	m := loader.NewMeta("mem", "CYX", []int{3, 32, 48}, loader.Uint8, []int{1, 32, 48}, nil, nil)
	m.RGB = true
	var v *Viewer
	uiDoAndWait(func() {
		v = newViewer(a, Options{})
		v.openSource(&rgbSource{meta: m}, "/data/photo.tif")
		v.win.Show()
	})
	t.Cleanup(func() {
		uiDoAndWait(func() { v.win.Close() })
		v.d.stop()
		v.s.close()
	})
	orange := func(f *frame) bool {
		p := f.img.Pix
		w, h := f.img.Rect.Dx(), f.img.Rect.Dy()
		i := 4 * (h/2*w + w/2) // the centre shows the image
		return p[i] == 200 && p[i+1] == 100 && p[i+2] == 0
	}
	f := waitShown(t, v, func(f *frame) bool { return f.info.Complete && orange(f) })
	if f.view.Colormap != render.RGB || f.view.Lo != 0 || f.view.Hi != 255 {
		t.Errorf("view %s [%g, %g], want rgb [0, 255]", f.view.Colormap, f.view.Lo, f.view.Hi)
	}
}
