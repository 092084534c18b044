package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"vastview/render"
	"vastview/session"
)

// chooseColour asks for a colour for channel c: one of the palette's, or
// one written #rrggbb (Enter or Set takes it; a colour that is not one is
// said so under the field, and nothing changes).
func (v *Viewer) chooseColour(c int) {
	_, infos := v.s.Channels()
	if c < 0 || c >= len(infos) {
		return
	}
	var d *dialog.CustomDialog
	pick := func(cm string) {
		v.s.SetChannelColormap(c, cm)
		d.Hide()
	}
	grid := container.NewGridWithColumns(3)
	for _, pc := range session.ChannelColours() {
		sw := newSwatch(func() { pick(pc.Colormap) })
		sw.setColormap(pc.Colormap)
		b := widget.NewButton(pc.Name, func() { pick(pc.Colormap) })
		b.Alignment = widget.ButtonAlignLeading
		b.Importance = widget.LowImportance
		grid.Add(container.NewBorder(nil, nil, container.NewCenter(sw), nil, b))
	}
	entry := newEscEntry(v)
	entry.SetPlaceHolder("#rrggbb")
	if _, ok := render.ParseColor(infos[c].Colormap); ok {
		entry.SetText(infos[c].Colormap)
	}
	problem := widget.NewLabel("")
	problem.Importance = widget.DangerImportance
	problem.Wrapping = fyne.TextWrapWord
	problem.Hide()
	set := func() {
		cm, err := session.ParseChannelColour(entry.Text)
		if err != nil {
			problem.SetText(err.Error())
			problem.Show()
			return
		}
		pick(cm)
	}
	entry.OnSubmitted = func(string) { set() }
	entry.OnChanged = func(string) { problem.Hide() }
	other := container.NewBorder(nil, nil, widget.NewLabel("Other"), widget.NewButton("Set", set), entry)
	content := container.NewVBox(grid, widget.NewSeparator(), other, problem)
	d = dialog.NewCustom("Colour of "+channelLabel(c, infos[c]), "Cancel", content, v.win)
	v.showDialog(d)
	v.win.Canvas().Focus(entry)
}
