package ui

import (
	"fmt"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vastview/session"
)

// The channel modes in the order the panel and the View menu offer them,
// with their names there (ImageJ's).
var channelModes = []struct {
	mode session.ChannelMode
	name string
}{{session.Composite, "Composite"}, {session.OneColor, "Color"}, {session.OneGray, "Grayscale"}}

const (
	channelNameMinW = 80  // the name column is at least this wide,
	channelNameMaxW = 220 // and at most this: longer names end in "…"
)

// channelPanel is the column beside the picture that lists the channels
// of multi-channel data (hidden for other data): the mode, and per
// channel whether it is in the composite, its colour (a click chooses
// another) and its name (a click makes it the current channel, whose
// window the contrast panel shows). It follows the session, so keys
// pressed over the picture show in it. It runs on the UI goroutine.
type channelPanel struct {
	v     *Viewer
	box   *fyne.Container // the column
	modes []*widget.Button
	list  *fyne.Container // the rows
	rows  []*channelRow

	mode  session.ChannelMode
	shown []session.ChannelInfo // what the rows show, nil before the first sync
}

func newChannelPanel(v *Viewer) *channelPanel {
	p := &channelPanel{v: v, list: container.NewVBox()}
	modes := container.NewHBox()
	for _, m := range channelModes {
		b := widget.NewButton(m.name, func() {
			v.s.SetChannelMode(m.mode)
			v.focusView()
		})
		p.modes = append(p.modes, b)
		modes.Add(b)
	}
	title := widget.NewLabel("Channels")
	title.TextStyle.Bold = true
	top := container.NewVBox(title, modes, widget.NewSeparator())
	p.box = container.NewBorder(top, nil, nil, nil, container.NewVScroll(p.list))
	p.box.Hide()
	return p
}

// sync shows the session's channels: the panel appears for data of
// several channels (unless the panels are hidden) and goes for other
// data; the widgets change only where the channels did.
func (p *channelPanel) sync() {
	mode, infos := p.v.s.Channels()
	p.v.syncChannelMenu(mode, len(infos) > 0)
	p.v.showPanel(p.box, len(infos) > 0 && p.v.panels.Visible())
	if len(infos) == 0 {
		return
	}
	if !sameNames(p.shown, infos) {
		p.rebuild(infos)
	}
	if mode != p.mode || p.shown == nil {
		for i, b := range p.modes {
			b.Importance = widget.MediumImportance
			if channelModes[i].mode == mode {
				b.Importance = widget.HighImportance
			}
			b.Refresh()
		}
	}
	for c, r := range p.rows {
		r.show(infos[c], mode)
	}
	p.mode, p.shown = mode, infos
}

// showPanel shows or hides a panel beside the picture.
func (v *Viewer) showPanel(box *fyne.Container, want bool) {
	if want == box.Visible() {
		return
	}
	if want {
		box.Show()
	} else {
		box.Hide()
	}
	v.win.Content().Refresh() // the picture gives the room, or takes it back
}

// sameNames reports whether a and b are channels of the same names.
func sameNames(a, b []session.ChannelInfo) bool {
	return slices.EqualFunc(a, b, func(x, y session.ChannelInfo) bool { return x.Name == y.Name }) && a != nil
}

// rebuild makes one row per channel, the names' column as wide as the
// longest name needs (within bounds).
func (p *channelPanel) rebuild(infos []session.ChannelInfo) {
	p.list.RemoveAll()
	p.rows = p.rows[:0]
	w := float32(channelNameMinW)
	for c, info := range infos {
		w = max(w, fyne.MeasureText(channelLabel(c, info), theme.TextSize(), fyne.TextStyle{Bold: true}).Width+2*theme.InnerPadding())
	}
	w = min(w, channelNameMaxW)
	for c := range infos {
		r := newChannelRow(p, c, w)
		p.rows = append(p.rows, r)
		p.list.Add(r)
	}
}

// channelLabel is how the panel names channel c: the file's name, else
// "C" and its number as Ctrl+number counts (C1 first).
func channelLabel(c int, info session.ChannelInfo) string {
	if info.Name != "" {
		return info.Name
	}
	return fmt.Sprintf("C%d", c+1)
}

// channelRow is one channel's row: a tap on it (not on its check box or
// swatch) makes the channel the current one.
type channelRow struct {
	widget.BaseWidget
	p      *channelPanel
	c      int
	bg     *canvas.Rectangle // the current channel's highlight
	check  *viewCheck
	swatch *swatch
	name   *widget.Label
	body   fyne.CanvasObject

	shown   bool
	current bool
}

func newChannelRow(p *channelPanel, c int, nameW float32) *channelRow {
	r := &channelRow{p: p, c: c, bg: canvas.NewRectangle(color0)}
	r.bg.CornerRadius = theme.InputRadiusSize()
	r.check = newViewCheck(p.v, func(on bool) { p.v.s.SetChannelVisible(c, on) })
	r.swatch = newSwatch(func() { p.v.chooseColour(c) })
	r.name = widget.NewLabel("")
	r.name.Truncation = fyne.TextTruncateEllipsis
	name := container.NewGridWrap(fyne.NewSize(nameW, r.name.MinSize().Height), r.name)
	r.body = container.NewHBox(r.check, container.NewCenter(r.swatch), name)
	r.ExtendBaseWidget(r)
	return r
}

// show brings the row in line with the channel, shown in mode: its check
// box counts in the composite only; a channel not in the picture has its
// name and colour dimmed.
func (r *channelRow) show(info session.ChannelInfo, mode session.ChannelMode) {
	r.check.show(info.Visible)
	if mode == session.Composite {
		r.check.Enable()
	} else {
		r.check.Disable()
	}
	r.swatch.setColormap(info.Colormap)
	drawn := info.Visible && mode == session.Composite || info.Current && mode != session.Composite
	r.swatch.setDim(!drawn)
	importance := widget.MediumImportance
	if !drawn {
		importance = widget.LowImportance // not in the picture
	}
	if l := channelLabel(r.c, info); r.name.Text != l || r.name.Importance != importance || r.name.TextStyle.Bold != info.Current {
		r.name.Text, r.name.Importance, r.name.TextStyle.Bold = l, importance, info.Current
		r.name.Refresh()
	}
	if !r.shown || r.current != info.Current {
		r.shown, r.current = true, info.Current
		r.bg.FillColor = color0
		if info.Current {
			r.bg.FillColor = r.Theme().Color(theme.ColorNameSelection, fyne.CurrentApp().Settings().ThemeVariant())
		}
		r.bg.Refresh()
	}
}

// Tapped implements fyne.Tappable: the channel becomes the current one.
func (r *channelRow) Tapped(*fyne.PointEvent) {
	r.p.v.s.SetAt('C', r.c)
	r.p.v.focusView()
}

func (r *channelRow) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewStack(r.bg, r.body))
}

// viewCheck is a check box whose keys go to the view; a tap hands the
// keyboard back to the view.
type viewCheck struct {
	checkWidget
	keyForwarder
	quiet bool // set while the view checks or clears it
}

func newViewCheck(v *Viewer, changed func(bool)) *viewCheck {
	c := &viewCheck{keyForwarder: keyForwarder{v}}
	c.OnChanged = func(on bool) {
		if c.quiet {
			return
		}
		changed(on)
		v.focusView()
	}
	c.ExtendBaseWidget(c)
	return c
}

// show checks or clears the box without calling the change handler.
func (c *viewCheck) show(on bool) {
	if c.Checked != on {
		c.quiet = true
		c.SetChecked(on)
		c.quiet = false
	}
}

var _ desktop.Keyable = (*viewCheck)(nil)
