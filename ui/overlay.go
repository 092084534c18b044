package ui

import (
	"image/color"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
)

// The colours of the ROIs over the picture: the one selected as Fiji
// draws it, the others as ImageJ's ROI Manager shows them.
var (
	roiColour      = color.NRGBA{0, 255, 255, 255}
	selectedColour = color.NRGBA{255, 255, 0, 255}
)

// showOverlay draws the session's ROIs over the picture as canvas
// objects (the frame itself is not drawn again: a drag that edits an ROI
// redraws only these few objects), at the zoom of the frame on screen.
func (p *planeView) showOverlay() {
	marks := p.v.s.Overlay()
	scale := float32(1)
	if c := p.v.win.Canvas(); c != nil && c.Scale() > 0 {
		scale = c.Scale()
	}
	at := func(q [2]float64) fyne.Position { return fyne.NewPos(float32(q[0])/scale, float32(q[1])/scale) }
	var objs []fyne.CanvasObject
	for _, mk := range marks {
		col := roiColour
		if mk.Selected {
			col = selectedColour
		}
		if mk.Points {
			for i, q := range mk.Outline {
				c := canvas.NewCircle(color.Transparent)
				c.StrokeColor, c.StrokeWidth = col, 1.5
				pos := at(q)
				c.Move(pos.Subtract(fyne.NewPos(4, 4)))
				c.Resize(fyne.NewSize(8, 8))
				t := canvas.NewText(strconv.Itoa(mk.Numbers[i]), col)
				t.TextSize = theme.CaptionTextSize()
				t.Move(pos.Add(fyne.NewPos(5, -2)))
				objs = append(objs, c, t)
			}
			continue
		}
		for _, sg := range mk.Segments {
			l := canvas.NewLine(col)
			l.StrokeWidth = 1.5
			l.Position1, l.Position2 = at(sg[0]), at(sg[1])
			objs = append(objs, l)
		}
		for _, q := range mk.Handles {
			r := canvas.NewRectangle(color.Transparent)
			r.StrokeColor, r.StrokeWidth = col, 1
			r.Move(at(q).Subtract(fyne.NewPos(3, 3)))
			r.Resize(fyne.NewSize(6, 6))
			objs = append(objs, r)
		}
		if len(mk.Segments) > 0 && mk.Label != "" {
			t := canvas.NewText(mk.Label, col)
			t.TextSize = theme.CaptionTextSize()
			t.Move(at(mk.Segments[0][0]).Add(fyne.NewPos(4, -16)))
			objs = append(objs, t)
		}
	}
	p.marks.Objects = objs
	p.marks.Refresh()
}
