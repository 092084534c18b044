package ui

import (
	"fmt"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vastview/render"
	"vastview/session"
)

// layerNameW is the width of a layer's name in the list.
const layerNameW = 150

// layerPanel is the list of layers beside the picture, topmost first as
// in napari and every drawing program (hidden while there are none): per
// layer whether it shows, its name, its opacity, for a label layer
// outlines and the label shown alone, for an image layer its blending,
// and buttons to move it up or down or take it away. Dropping files on it
// adds them as layers. It runs on the UI goroutine.
type layerPanel struct {
	v     *Viewer
	box   *fyne.Container
	list  *fyne.Container
	rows  []*layerRow
	shown []session.Layer
}

func newLayerPanel(v *Viewer) *layerPanel {
	p := &layerPanel{v: v, list: container.NewVBox()}
	title := widget.NewLabel("Layers")
	title.TextStyle.Bold = true
	add := widget.NewButtonWithIcon("", theme.ContentAddIcon(), v.addLayerDialog(session.LayerAuto))
	p.box = container.NewVBox(widget.NewSeparator(), container.NewBorder(nil, nil, nil, add, title), p.list)
	p.box.Hide()
	return p
}

// sync shows the session's layers: the panel appears while there are
// some (unless the panels are hidden).
func (p *layerPanel) sync() {
	ls := p.v.s.Layers()
	p.v.showPanel(p.box, len(ls) > 0 && p.v.panels.Visible())
	same := len(ls) == len(p.shown) && slices.EqualFunc(ls, p.shown, func(a, b session.Layer) bool {
		return a.Path == b.Path && a.Labels == b.Labels
	})
	if !same {
		p.list.RemoveAll()
		p.rows = p.rows[:0]
		for i := len(ls) - 1; i >= 0; i-- { // topmost first
			r := newLayerRow(p, i, ls[i])
			p.rows = append(p.rows, r)
			p.list.Add(r.box)
		}
	}
	for _, r := range p.rows {
		r.show(ls[r.i])
	}
	p.shown = ls
}

// contains reports whether pos (in the window) is over the panel.
func (p *layerPanel) contains(pos fyne.Position) bool {
	if !p.box.Visible() {
		return false
	}
	o := fyne.CurrentApp().Driver().AbsolutePositionForObject(p.box)
	s := p.box.Size()
	return pos.X >= o.X && pos.Y >= o.Y && pos.X < o.X+s.Width && pos.Y < o.Y+s.Height
}

// layerRow is one layer's rows in the list.
type layerRow struct {
	p       *layerPanel
	i       int // the layer's position, 0 the bottom
	box     *fyne.Container
	check   *viewCheck
	name    *widget.Label
	opacity *viewSlider
	outline *viewCheck     // label layers
	blend   *viewSelect    // image layers
	alone   *widget.Button // label layers: the label shown alone, a tap shows every label
	quiet   bool           // set while the row shows the session's state
}

func newLayerRow(p *layerPanel, i int, l session.Layer) *layerRow {
	v := p.v
	r := &layerRow{p: p, i: i}
	set := func(f func(*session.Layer)) {
		if !r.quiet {
			v.s.EditLayer(r.i, f)
		}
	}
	r.check = newViewCheck(v, func(on bool) { set(func(l *session.Layer) { l.Visible = on }) })
	r.name = widget.NewLabel(l.Name)
	r.name.Truncation = fyne.TextTruncateEllipsis
	kind := "image"
	if l.Labels {
		kind = "labels"
	}
	r.name.SetText(fmt.Sprintf("%s (%s)", l.Name, kind))
	up := widget.NewButtonWithIcon("", theme.MoveUpIcon(), func() { v.s.MoveLayer(r.i, r.i+1); v.focusView() })
	down := widget.NewButtonWithIcon("", theme.MoveDownIcon(), func() { v.s.MoveLayer(r.i, r.i-1); v.focusView() })
	remove := widget.NewButtonWithIcon("", theme.DeleteIcon(), func() { v.s.RemoveLayer(r.i); v.focusView() })
	name := container.NewGridWrap(fyne.NewSize(layerNameW, r.name.MinSize().Height), r.name)
	top := container.NewHBox(r.check, name, up, down, remove)
	r.opacity = newViewSlider(v, 0, 1)
	r.opacity.Step = 0.05
	r.opacity.OnChanged = func(a float64) { set(func(l *session.Layer) { l.Opacity = a }) }
	var extra fyne.CanvasObject
	if l.Labels {
		r.outline = newViewCheck(v, func(on bool) { set(func(l *session.Layer) { l.Outline = on }) })
		r.outline.Text = "outline"
		r.alone = widget.NewButton("", func() { set(func(l *session.Layer) { l.Selected = 0 }); v.focusView() })
		extra = r.outline
	} else {
		r.blend = newViewSelect(v, func(s string) {
			if b, ok := render.ParseBlending(s); ok {
				set(func(l *session.Layer) { l.Blending = b })
			}
		})
		r.blend.Options = []string{render.Over.String(), render.Additive.String()}
		extra = r.blend
	}
	opacity := container.NewBorder(nil, nil, widget.NewLabel("opacity"), nil, r.opacity)
	r.box = container.NewVBox(top, container.NewBorder(nil, nil, nil, extra, opacity))
	if r.alone != nil {
		r.box.Add(r.alone)
	}
	return r
}

// show brings the row in line with layer l.
func (r *layerRow) show(l session.Layer) {
	r.quiet = true
	defer func() { r.quiet = false }()
	r.check.show(l.Visible)
	if r.opacity.Value != l.Opacity {
		r.opacity.SetValue(l.Opacity)
	}
	if r.outline != nil {
		r.outline.show(l.Outline)
	}
	if r.blend != nil {
		r.blend.show(l.Blending.String())
	}
	if r.alone != nil {
		if l.Selected == 0 {
			r.alone.Hide()
		} else {
			r.alone.SetText(fmt.Sprintf("only label %d: show all", l.Selected))
			r.alone.Show()
		}
	}
}

// addLayerDialog returns a menu action asking for a file to lay over the
// image as a layer of the kind given.
func (v *Viewer) addLayerDialog(kind session.LayerKind) func() {
	return func() {
		v.showChooser("Add Layer", "Add", "", nil, func(path string) { v.s.AddLayer(path, kind) })
	}
}

// addLayerFolderDialog asks for a folder (a Zarr store) to lay over the
// image as a layer.
func (v *Viewer) addLayerFolderDialog() {
	d := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
		if err == nil && u != nil {
			v.s.Prefs().SetLastFolder(uriPath(u))
			v.s.AddLayer(uriPath(u), session.LayerAuto)
		}
	}, v.win)
	v.startIn(d, v.s.DialogFolder())
	v.showDialog(d)
}
