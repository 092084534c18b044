package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"

	"vastview/render"
	"vastview/render/oblique"
	"vastview/session"
)

func TestMeasuringToolsInTheWindow(t *testing.T) {
	v := newTestViewer(t, nil)
	waitFor(t, "a frame", func() (bool, bool) { return v.shown != nil, v.shown != nil })
	// The Measure menu lists the tools with their keys.
	var line *fyne.MenuItem
	onUI(func() {
		for _, m := range v.win.MainMenu().Items {
			if m.Label == "Measure" {
				for _, it := range m.Items {
					if it.Label == "Line" {
						line = it
					}
				}
			}
		}
	})
	if line == nil {
		t.Fatal("no Measure → Line")
	}
	if sc, ok := line.Shortcut.(*desktop.CustomShortcut); !ok || sc.KeyName != "L" || sc.Modifier != fyne.KeyModifierAlt {
		t.Errorf("Measure → Line shows the key %#v, want Alt+L", line.Shortcut)
	}
	// Alt+L: the line tool, its button highlighted, the panel shown.
	onUI(func() {
		v.pv.TypedShortcut(&desktop.CustomShortcut{KeyName: "L", Modifier: fyne.KeyModifierAlt})
	})
	waitFor(t, "the line tool", func() (bool, bool) {
		var ok bool
		onUI(func() { ok = v.tools.roi.tool == session.LineTool && v.measure.box.Visible() })
		return ok, ok
	})
	// A drag draws a line: drawn over the picture as a canvas line.
	onUI(func() {
		v.pv.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(40, 40)}, Button: desktop.MouseButtonPrimary})
		v.pv.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(120, 90)}, Dragged: fyne.NewDelta(80, 50)})
		v.pv.DragEnd()
		v.pv.MouseUp(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(120, 90)}, Button: desktop.MouseButtonPrimary})
	})
	waitFor(t, "the line over the picture and its profile", func() (int, bool) {
		lines := 0
		var plotted bool
		onUI(func() {
			for _, o := range v.pv.marks.Objects {
				if _, ok := o.(*canvas.Line); ok {
					lines++
				}
			}
			plotted = v.measure.plot.Visible() && v.measure.plot.Image != nil
		})
		return lines, lines == 1 && plotted
	})
	if rois := v.s.ROIs(); len(rois) != 1 || rois[0].Kind != session.KindLine {
		t.Fatalf("ROIs %+v", rois)
	}
	// Escape: navigating again.
	typeKey(v, fyne.KeyEscape)
	if v.s.CurrentTool() != session.Navigate {
		t.Error("Escape kept the tool")
	}
}

// TestPlanesFieldOffOnATurnedRegion: the "planes" field is off while a
// region of a turned plane is selected (it is measured on its plane only)
// and on again for an aligned one.
func TestPlanesFieldOffOnATurnedRegion(t *testing.T) {
	v := newTestViewer(t, nil)
	waitFor(t, "a frame", func() (bool, bool) { return v.shown != nil, v.shown != nil })
	onUI(v.measure.showPanel)
	u, w, _ := oblique.Basis([]oblique.Turn{{Axis: 'x', Deg: 10}})
	pl := oblique.Plane{U: u, V: w, Pixel: 1, W: 100, H: 100}
	v.s.AddROI(session.ROI{Kind: session.KindRect, Obl: &pl, Pts: []render.Point{{Col: 9.5, Row: 9.5}, {Col: 29.5, Row: 29.5}}})
	v.s.AddROI(session.ROI{Kind: session.KindRect, Plane: render.XY, Pts: []render.Point{{Col: 9.5, Row: 9.5}, {Col: 29.5, Row: 29.5}}})
	for i, off := range []bool{true, false} {
		v.s.Select(i)
		waitFor(t, "the planes field's state", func() (bool, bool) {
			var d bool
			onUI(func() {
				v.measure.sync()
				d = v.measure.depth.Disabled()
			})
			return d, d == off
		})
	}
}
