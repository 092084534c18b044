package ui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"vastview/loader"
	"vastview/session"
)

// contrastControls are the contrast panel and the window typed as
// numbers beside it.
type contrastControls struct {
	v      *Viewer
	panel  *contrastPanel
	lo, hi *widget.Entry
	preset *widget.Select // the CT window presets, for the volumes they apply to
	linear bool           // bars in proportion to the counts (View menu)
	box    *fyne.Container

	shown            bool // the window below is on show
	shownLo, shownHi float64
}

func newContrastControls(v *Viewer) *contrastControls {
	c := &contrastControls{v: v}
	c.panel = newContrastPanel(func(lo, hi float64) {
		v.s.SetWindow(lo, hi)
		c.showWindow(lo, hi)
	}, func() { v.s.AutoContrast() })
	c.lo, c.hi = widget.NewEntry(), widget.NewEntry()
	for _, e := range []*widget.Entry{c.lo, c.hi} {
		e.OnSubmitted = func(string) { c.typed() }
	}
	c.lo.SetPlaceHolder("min")
	c.hi.SetPlaceHolder("max")
	var names []string
	for _, p := range session.CTPresets {
		names = append(names, fmt.Sprintf("%s %g/%g", p.Name, p.Width, p.Level))
	}
	c.preset = widget.NewSelect(names, func(name string) {
		if i := slices.Index(names, name); i >= 0 {
			v.s.ApplyPreset(i)
			v.focusView()
		}
	})
	c.preset.PlaceHolder = "CT window"
	c.preset.Hide()
	// The entries side by side: the row is no taller than one of them.
	cell := fyne.NewSize(96, c.lo.MinSize().Height)
	side := container.NewVBox(container.NewHBox(container.NewGridWrap(cell, c.lo), container.NewGridWrap(cell, c.hi)),
		c.preset)
	c.box = container.NewBorder(nil, nil, nil, side, c.panel)
	return c
}

// toggleLinear draws the bars in proportion to the counts, or to their
// logarithm (the default, which shows the rare bright values).
func (c *contrastControls) toggleLinear() {
	c.linear = !c.linear
	c.panel.setLinear(c.linear)
}

// typed applies the window typed into the entries (Enter in either).
func (c *contrastControls) typed() {
	lo, errLo := strconv.ParseFloat(strings.TrimSpace(c.lo.Text), 64)
	hi, errHi := strconv.ParseFloat(strings.TrimSpace(c.hi.Text), 64)
	view := c.v.s.View()
	vs := c.valueScale()
	if errLo != nil {
		lo = vs.Value(view.Lo)
	}
	if errHi != nil {
		hi = vs.Value(view.Hi)
	}
	lo, hi = vs.Stored(lo), vs.Stored(hi) // typed in the file's units (HU)
	if lo > hi {
		lo, hi = hi, lo
	}
	if hi > lo {
		c.v.s.SetWindow(lo, hi)
	} else {
		c.showWindow(view.Lo, view.Hi)
	}
	c.v.focusView()
}

// viewChanged shows the view's window (a step through the planes keeps
// it: nothing is redrawn then).
func (c *contrastControls) viewChanged() {
	view := c.v.s.View()
	if c.shown && view.Lo == c.shownLo && view.Hi == c.shownHi {
		return
	}
	c.shown, c.shownLo, c.shownHi = true, view.Lo, view.Hi
	if on := session.PresetsApply(c.v.s.Meta()); on != c.preset.Visible() {
		if on {
			c.preset.Show()
		} else {
			c.preset.Hide()
		}
	}
	c.panel.setWindow(view.Lo, view.Hi)
	c.showWindow(view.Lo, view.Hi)
}

// showWindow writes the window into the entries, unless one is being
// edited.
func (c *contrastControls) showWindow(lo, hi float64) {
	focused := c.v.win.Canvas().Focused()
	if lo == hi {
		return // auto-contrast still choosing
	}
	vs := c.valueScale() // the window in the file's units (HU)
	lo, hi = vs.Value(lo), vs.Value(hi)
	if lo > hi {
		lo, hi = hi, lo
	}
	for _, e := range []struct {
		w *widget.Entry
		v float64
	}{{c.lo, lo}, {c.hi, hi}} {
		if focused != e.w {
			e.w.SetText(strconv.FormatFloat(e.v, 'g', 6, 64))
		}
	}
}

// setHistogram shows the session's histogram, or none.
func (c *contrastControls) setHistogram() {
	h, _ := c.v.s.Histogram()
	c.panel.scale, c.panel.unit = c.valueScale(), ""
	if m := c.v.s.Meta(); m != nil {
		c.panel.unit = m.ValueUnit
	}
	c.panel.setHistogram(h)
	view := c.v.s.View()
	c.panel.setWindow(view.Lo, view.Hi)
}

// valueScale maps the data's stored values to the file's units (nil: as
// stored).
func (c *contrastControls) valueScale() *loader.ValueScale {
	if m := c.v.s.Meta(); m != nil {
		return m.ValueScale
	}
	return nil
}
