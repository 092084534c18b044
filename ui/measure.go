package ui

import (
	"fmt"
	"image"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"vastview/session"
)

// measurePanel is the panel beside the picture while measuring: the plot
// of the ROI selected (a line's profile, a region's histogram), its
// figures, the line width and the planes a region spans, and the region
// list (ROI manager) with its table and files. It runs on the UI
// goroutine; the session measures.
type measurePanel struct {
	v       *Viewer
	box     *fyne.Container
	plot    *canvas.Image
	figures *widget.Label
	list    *widget.List
	width   *widget.Entry
	depth   *widget.Entry
	rois    []session.ROI
	sel     int
	opened  bool // shown by the user (Measure → Region List, Ctrl+M)
	quiet   bool
}

// plotSize is the plot's size in units.
var plotSize = fyne.NewSize(340, 200)

func newMeasurePanel(v *Viewer) *measurePanel {
	mp := &measurePanel{v: v, sel: -1}
	mp.plot = canvas.NewImageFromImage(image.NewRGBA(image.Rect(0, 0, 1, 1)))
	mp.plot.FillMode = canvas.ImageFillContain
	mp.plot.ScaleMode = canvas.ImageScalePixels
	mp.plot.SetMinSize(plotSize)
	mp.figures = widget.NewLabel("")
	mp.figures.TextStyle.Monospace = true
	mp.figures.Wrapping = fyne.TextWrapOff
	mp.list = widget.NewList(func() int { return len(mp.rois) },
		func() fyne.CanvasObject {
			return container.NewBorder(nil, nil, widget.NewCheck("", nil), nil, widget.NewLabel(""))
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			c := o.(*fyne.Container)
			label, check := c.Objects[0].(*widget.Label), c.Objects[1].(*widget.Check)
			r := mp.rois[id]
			label.SetText(r.Name)
			check.OnChanged = nil
			check.SetChecked(!r.Hidden)
			check.OnChanged = func(on bool) { v.s.EditROI(id, func(r *session.ROI) { r.Hidden = !on }) }
		})
	mp.list.OnSelected = func(id widget.ListItemID) {
		if !mp.quiet {
			v.s.Select(id)
		}
	}
	mp.width = widget.NewEntry()
	mp.width.SetText("1")
	mp.width.OnSubmitted = func(s string) {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
			v.s.SetLineWidth(n)
		}
		v.focusView()
	}
	mp.depth = widget.NewEntry()
	mp.depth.SetText("1")
	mp.depth.OnSubmitted = func(s string) {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && mp.sel >= 0 {
			v.s.EditROI(mp.sel, func(r *session.ROI) { r.Depth = max(0, n) })
		}
		v.focusView()
	}
	form := container.New(layoutForm(), widget.NewLabel("line width"), mp.width, widget.NewLabel("planes"), mp.depth)
	buttons := container.NewGridWithColumns(3,
		widget.NewButton("Rename…", mp.rename),
		widget.NewButton("Delete", func() { v.s.DeleteSelected(); v.focusView() }),
		widget.NewButton("Copy", mp.copyTable),
		widget.NewButton("Export CSV…", v.exportResultsDialog),
		widget.NewButton("Import ROIs…", v.importROIsDialog),
		widget.NewButton("Export ROIs…", v.exportROIsDialog),
	)
	list := container.NewGridWrap(fyne.NewSize(plotSize.Width, 140), mp.list)
	mp.box = container.NewVBox(mp.plot, container.NewHScroll(mp.figures), form, list, buttons)
	mp.box.Hide()
	return mp
}

// layoutForm is a two-column form layout.
func layoutForm() fyne.Layout { return &formLayout{} }

type formLayout struct{}

func (formLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var w0, w1, h float32
	for i := 0; i+1 < len(objs); i += 2 {
		a, b := objs[i].MinSize(), objs[i+1].MinSize()
		w0, w1 = max(w0, a.Width), max(w1, b.Width, 60)
		h = max(h, a.Height, b.Height)
	}
	return fyne.NewSize(2*(w0+w1), h)
}

func (formLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	n := len(objs) / 2
	cell := size.Width / float32(n)
	for i := range n {
		lw := objs[2*i].MinSize().Width
		objs[2*i].Move(fyne.NewPos(float32(i)*cell, 0))
		objs[2*i].Resize(fyne.NewSize(lw, size.Height))
		objs[2*i+1].Move(fyne.NewPos(float32(i)*cell+lw, 0))
		objs[2*i+1].Resize(fyne.NewSize(cell-lw-4, size.Height))
	}
}

// showPanel shows the panel (Ctrl+M, Measure → Region List).
func (mp *measurePanel) showPanel() {
	mp.opened = true
	mp.sync()
}

// togglePanel shows or hides the panel.
func (mp *measurePanel) togglePanel() {
	mp.opened = !mp.box.Visible()
	mp.sync()
}

// sync brings the panel in line with the session: shown while a tool is
// chosen or the user opened it, the list, the selection, the plot and the
// figures.
func (mp *measurePanel) sync() {
	s := mp.v.s
	mp.rois = s.ROIs()
	show := mp.opened || s.CurrentTool() != session.Navigate
	if show != mp.box.Visible() {
		if show {
			mp.box.Show()
		} else {
			mp.box.Hide()
		}
		mp.v.win.Content().Refresh()
	}
	if !show {
		return
	}
	mp.list.Refresh()
	if sel := s.Selected(); sel != mp.sel {
		mp.sel = sel
		mp.quiet = true
		if sel >= 0 {
			mp.list.Select(sel)
		} else {
			mp.list.UnselectAll()
		}
		mp.quiet = false
		// The fields show the ROI selected (not while being typed in).
		if sel >= 0 && sel < len(mp.rois) {
			r := mp.rois[sel]
			if r.Kind == session.KindLine {
				mp.width.SetText(strconv.Itoa(r.Width))
			}
			mp.depth.SetText(strconv.Itoa(max(1, r.Depth)))
			// A region of a turned plane is measured on its plane only.
			if r.Obl != nil {
				mp.depth.SetText("1")
				mp.depth.Disable()
			} else {
				mp.depth.Enable()
			}
		}
	}
	scale := mp.v.win.Canvas().Scale()
	s.SetPlotSize(int(plotSize.Width*scale), int(plotSize.Height*scale))
	img := s.Plot()
	if img != nil && mp.plot.Image != image.Image(img) {
		mp.plot.Image = img
		mp.plot.Refresh()
	}
	if (img != nil) != mp.plot.Visible() {
		if img != nil {
			mp.plot.Show()
		} else {
			mp.plot.Hide()
		}
		mp.box.Refresh() // the room it takes, or gives
	}
	mp.figures.SetText(mp.figuresText())
}

// figuresText is the table of the ROI selected (every ROI's with none
// selected): a row per channel, an estimate marked as one, the progress
// of the level-0 figures; a set's points.
func (mp *measurePanel) figuresText() string {
	var b strings.Builder
	if mp.sel >= 0 && mp.sel < len(mp.rois) && mp.rois[mp.sel].Kind == session.KindPoints {
		pts := mp.v.s.PointValues(mp.sel)
		unit := ""
		if len(pts) > 0 && pts[0].Unit != "" {
			unit = " (" + session.Abbreviate(pts[0].Unit) + ")"
		}
		fmt.Fprintf(&b, "%-3s %9s %9s %9s  %s\n", "#", "Z", "Y", "X"+unit, "value")
		for _, p := range pts {
			fmt.Fprintf(&b, "%-3d %9.4g %9.4g %9.4g ", p.N, p.Physical[0], p.Physical[1], p.Physical[2])
			for i, v := range p.Values {
				if p.Found[i] {
					fmt.Fprintf(&b, " %.6g", v)
				} else {
					b.WriteString(" –")
				}
			}
			b.WriteByte('\n')
		}
		return strings.TrimRight(b.String(), "\n")
	}
	for _, r := range mp.v.s.Results() {
		if mp.sel >= 0 && r.ROI != mp.sel {
			continue
		}
		b.WriteString(resultText(r))
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

// resultText is one row of the table, as the panel shows it.
func resultText(r session.Result) string {
	unit := session.Abbreviate(r.Unit)
	if r.Err != nil {
		return fmt.Sprintf("%s %s: %v", r.Name, r.Channel, r.Err)
	}
	if r.Kind == session.KindLine {
		return fmt.Sprintf("%s %s\n  length %.6g %s  angle %.2f°", r.Name, r.Channel, r.Length, unit, r.Angle)
	}
	if r.Count == 0 && !r.Final {
		return fmt.Sprintf("%s %s  measuring… %d/%d", r.Name, r.Channel, r.Done, r.Total)
	}
	size := fmt.Sprintf("area %.6g %s²", r.Area, unit)
	if r.Volume > 0 {
		size = fmt.Sprintf("volume %.6g %s³", r.Volume, unit)
	}
	head := r.Name + " " + r.Channel
	switch {
	case r.Estimate:
		head = fmt.Sprintf("≈ %s  estimate from level %d; level 0: %d/%d", head, r.Level, r.Done, r.Total)
	case !r.Final:
		head += fmt.Sprintf("  level 0: %d/%d", r.Done, r.Total)
	}
	return fmt.Sprintf("%s\n  n %d  %s\n  mean %.6g  std %.6g\n  min %.6g  max %.6g\n  sum %.6g",
		head, r.Count, size, r.Mean, r.Std, r.Min, r.Max, r.Sum)
}

// rename asks for a new name of the ROI selected.
func (mp *measurePanel) rename() {
	i := mp.sel
	if i < 0 || i >= len(mp.rois) {
		return
	}
	e := newEscEntry(mp.v)
	e.SetText(mp.rois[i].Name)
	mp.v.showDialog(dialogForm("Rename", e, mp.v, func(name string) {
		if name = strings.TrimSpace(name); name != "" {
			mp.v.s.EditROI(i, func(r *session.ROI) { r.Name = name })
		}
	}))
}

// copyTable puts the measurements table (CSV, Fiji's columns) on the
// clipboard.
func (mp *measurePanel) copyTable() {
	mp.v.app.Clipboard().SetContent(string(mp.v.s.ResultsCSV()))
	mp.v.focusView()
}
