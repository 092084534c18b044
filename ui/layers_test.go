package ui

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"

	"vastview/loader"
	"vastview/loader/demo"
	"vastview/session"
)

// labelsOver is a label image of the test viewer's volume at half its
// resolution in Y and X.
type labelsOver struct {
	*demo.Source
	meta loader.Meta
}

func (s *labelsOver) Meta() *loader.Meta { return &s.meta }

func newLabelsOver() *labelsOver {
	d := demo.NewSized(2, 9, 32, 48)
	s := &labelsOver{Source: d, meta: *d.Meta()}
	s.meta.Synthetic, s.meta.Label = false, true
	s.meta.Levels = []loader.Level{d.Meta().Levels[0]}
	s.meta.Levels[0].Scale = []float64{1, 1, 1, 1}
	s.meta.Spacing = []float64{1, 1, 1, 1}
	return s
}

// openLabels opens /data/labels.tif as labelsOver.
func openLabels(_ context.Context, path string) (loader.Source, error) {
	if path == "/data/labels.tif" || path == "/data/more_labels.tif" {
		return newLabelsOver(), nil
	}
	return nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
}

// waitLayers waits until the layer panel shows n rows.
func waitLayers(t *testing.T, v *Viewer, n int) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d layer rows", n), func() (int, bool) {
		var rows int
		var visible bool
		onUI(func() { rows, visible = len(v.layers.rows), v.layers.box.Visible() })
		return rows, rows == n && visible == (n > 0)
	})
}

func TestADropWithShiftAddsALayerAndThePanelSetsIt(t *testing.T) {
	v := newTestViewer(t, openLabels)
	onUI(func() {
		if v.layers.box.Visible() {
			t.Error("a layer panel without layers")
		}
	})
	// Shift held: the dropped file is laid over the image, not opened.
	onUI(func() {
		v.s.KeyDown(session.KeyShiftLeft)
		v.dropped(fyne.Position{}, []fyne.URI{storage.NewFileURI("/data/labels.tif")})
		v.s.KeyUp(session.KeyShiftLeft)
	})
	waitLayers(t, v, 1)
	waitShown(t, v, func(f *session.Frame) bool { return f.Info.Complete && f.Layers == 1 })
	if d := v.s.Data(); d == nil || d.Name != "/data/volume.tif" {
		t.Fatalf("the data shown is %v, want the volume still", d)
	}
	var r *layerRow
	onUI(func() {
		r = v.layers.rows[0]
		if !strings.Contains(r.name.Text, "labels.tif (labels)") || !r.check.Checked || r.outline == nil || r.blend != nil {
			t.Errorf("row %q checked %v", r.name.Text, r.check.Checked)
		}
		if got := r.opacity.Value; got < 0.69 || got > 0.71 {
			t.Errorf("opacity slider at %g", got)
		}
		if v.pv.Size().Width+v.layers.box.Size().Width > v.win.Canvas().Size().Width {
			t.Errorf("panel %v beside a picture %v in a window %v", v.layers.box.Size(), v.pv.Size(), v.win.Canvas().Size())
		}
	})

	// A drop onto the list adds another, on top.
	onUI(func() {
		p := fyne.CurrentApp().Driver().AbsolutePositionForObject(v.layers.box)
		v.dropped(p.Add(fyne.NewPos(5, 5)), []fyne.URI{storage.NewFileURI("/data/more_labels.tif")})
	})
	waitLayers(t, v, 2)
	onUI(func() {
		if top := v.layers.rows[0].name.Text; !strings.Contains(top, "more_labels.tif") {
			t.Errorf("the list's first row is %q, want the layer added last", top)
		}
	})

	// The outline box, the visible box and the remove button.
	onUI(func() { r = v.layers.rows[1] })
	click(v, r.outline)
	waitFor(t, "outlines", func() (session.Layer, bool) { l := v.s.Layers()[0]; return l, l.Outline })
	click(v, r.check)
	waitFor(t, "the layer hidden", func() (session.Layer, bool) { l := v.s.Layers()[0]; return l, !l.Visible })
	onUI(func() {
		if v.win.Canvas().Focused() != v.pv {
			t.Errorf("the keyboard is %T's, not the picture's", v.win.Canvas().Focused())
		}
	})
	onUI(func() { v.pv.TypedRune('v') }) // V: every layer shows again... or hides: one shows
	waitFor(t, "V hides every layer", func() ([]session.Layer, bool) {
		ls := v.s.Layers()
		return ls, !ls[0].Visible && !ls[1].Visible
	})
	onUI(func() { v.pv.TypedRune('V') })
	waitFor(t, "V shows every layer", func() ([]session.Layer, bool) {
		ls := v.s.Layers()
		return ls, ls[0].Visible && ls[1].Visible
	})
	var remove fyne.CanvasObject
	onUI(func() { remove = v.layers.rows[0].box.Objects[0].(*fyne.Container).Objects[4] })
	click(v, remove)
	waitLayers(t, v, 1)
	if ls := v.s.Layers(); ls[0].Name != "labels.tif" {
		t.Errorf("left %+v", ls)
	}
}

func TestViewTogglesFollowTheirKeys(t *testing.T) {
	v := newTestViewer(t, nil)
	for _, c := range []struct {
		label string
		key   rune
		get   func() bool
	}{{"Scale Bar", 'b', v.s.ScaleBar}, {"Time Stamp", 't', v.s.TimeStamp}} {
		var it *fyne.MenuItem
		onUI(func() {
			for _, tg := range v.toggles {
				if tg.it.Label == c.label {
					it = tg.it
				}
			}
		})
		if it == nil {
			t.Fatalf("no View → %s", c.label)
		}
		var before bool
		onUI(func() { before = it.Checked })
		if before != c.get() {
			t.Fatalf("%s checked %v, session %v", c.label, before, c.get())
		}
		onUI(func() { v.pv.TypedRune(c.key) })
		waitFor(t, c.label+" follows "+string(c.key), func() (bool, bool) {
			var ch bool
			onUI(func() { ch = it.Checked })
			return ch, ch != before && c.get() != before
		})
	}
}
