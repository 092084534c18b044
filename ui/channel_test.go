package ui

import (
	"testing"

	"fyne.io/fyne/v2/test"

	"vastview/loader"
	"vastview/loader/demo"
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
