package ui

import (
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"vastview/session"
)

// view3dControls are the 3-D view's sliders in the contrast panel's
// place: the translucent mode's opacity, the isosurface's threshold, and
// the clipping box's button and the check that shows its handles. They
// show while the 3-D view does.
type view3dControls struct {
	v         *Viewer
	opacity   *viewSlider
	iso       *viewSlider
	isoLbl    *widget.Label
	opacLbl   *widget.Label
	handles   *viewCheck
	box       *fyne.Container
	lo, hi    float64 // the threshold slider's range
	isoQuiet  bool
	opacQuiet bool
}

func newView3DControls(v *Viewer) *view3dControls {
	c := &view3dControls{v: v}
	c.opacity = newViewSlider(v, 1, 100)
	c.opacity.OnChanged = func(x float64) {
		if !c.opacQuiet {
			v.s.SetOpacity3D(x / 100)
		}
		c.opacLbl.SetText(fmt.Sprintf("opacity %.0f%%", x))
	}
	c.iso = newViewSlider(v, 0, 1000)
	c.iso.OnChanged = func(x float64) {
		if !c.isoQuiet {
			v.s.SetIso3D(c.lo + (c.hi-c.lo)*x/1000)
		}
		iso, _ := v.s.Iso3D()
		c.isoLbl.SetText("threshold " + strconv.FormatFloat(iso, 'g', 5, 64))
	}
	c.opacLbl, c.isoLbl = widget.NewLabel("opacity 100%"), widget.NewLabel("threshold")
	clip := widget.NewButton("Clip Box…", v.clipBoxDialog)
	c.handles = newViewCheck(v, func(on bool) {
		if on != v.s.ClipHandles() {
			v.s.ToggleClipHandles()
		}
	})
	c.handles.Text = "handles"
	c.box = container.NewGridWithColumns(3,
		container.NewBorder(nil, nil, c.opacLbl, nil, c.opacity),
		container.NewBorder(nil, nil, c.isoLbl, nil, c.iso),
		container.NewBorder(nil, nil, nil, c.handles, clip))
	c.box.Hide()
	return c
}

// sync shows the controls while the 3-D view shows, set as the session
// has them: the threshold over the histogram's range (the window's while
// there is none).
func (c *view3dControls) sync() {
	s := c.v.s
	if !s.Shows3D() {
		c.box.Hide()
		return
	}
	c.box.Show()
	c.handles.show(s.ClipHandles())
	c.opacQuiet = true
	c.opacity.SetValue(100 * s.Opacity3D())
	c.opacQuiet = false
	view := s.View()
	c.lo, c.hi = view.Lo, view.Hi
	if h, ok := s.Histogram(); ok && h.Max > h.Min {
		c.lo, c.hi = h.Min, h.Max
	}
	iso, set := s.Iso3D()
	if !set {
		iso = (view.Lo + view.Hi) / 2
	}
	if c.hi > c.lo {
		c.isoQuiet = true
		c.iso.SetValue(1000 * max(0, min(1, (iso-c.lo)/(c.hi-c.lo))))
		c.isoQuiet = false
	}
	c.isoLbl.SetText("threshold " + strconv.FormatFloat(iso, 'g', 5, 64))
}

// view3dItems are the View menu's 3-D items, in a submenu (the View
// menu fills the window's height): the view itself (5), the modes (N
// cycles them), the clipping plane (X), the clipping box (typed, or
// dragged by its handles) and the camera's reset.
func (v *Viewer) view3dItems() []*fyne.MenuItem {
	on := v.toggleItem("View → 3-D → 3-D View", func() bool { return v.s.Layout() == session.View3D }, func(on bool) {
		v.s.SetLayout(map[bool]session.Layout{true: session.View3D, false: session.SingleView}[on])
	})
	items := []*fyne.MenuItem{on, fyne.NewMenuItemSeparator()}
	for _, m := range session.Modes3D {
		items = append(items, v.toggleItem("View → 3-D → "+session.ModeName3D(m),
			func() bool { return v.s.Mode3D() == m }, func(bool) { v.s.SetMode3D(m) }))
	}
	items = append(items,
		item("View → 3-D → Next Mode: Max, Min, Mean, Translucent, Isosurface", v.s.CycleMode3D),
		fyne.NewMenuItemSeparator(),
		v.toggleItem("View → 3-D → Clip with the Plane", func() bool { _, on := v.s.Clip3D(); return on },
			func(bool) { v.s.ToggleClipPlane() }),
		fyne.NewMenuItem("Clip Box…", v.clipBoxDialog),
		v.toggleItem("View → 3-D → Clip Box Handles", v.s.ClipHandles, func(bool) { v.s.ToggleClipHandles() }),
		fyne.NewMenuItem("Reset Camera", v.s.ResetCamera))
	sub := fyne.NewMenuItem("3-D", nil)
	sub.ChildMenu = fyne.NewMenu("", items...)
	return []*fyne.MenuItem{sub}
}

// clipBoxDialog asks for the clipping box as ranges of samples along Z,
// Y and X ("A:B", B excluded; empty: the whole axis).
func (v *Viewer) clipBoxDialog() {
	m := v.s.Meta()
	if m == nil {
		return
	}
	box, _ := v.s.Clip3D()
	n := [3]int{m.Size('Z'), m.Size('Y'), m.Size('X')}
	entries := make([]*widget.Entry, 3)
	items := make([]*widget.FormItem, 3)
	for a, name := range []string{"Z", "Y", "X"} {
		e := widget.NewEntry()
		e.SetPlaceHolder(fmt.Sprintf("0:%d", n[a]))
		if !box.IsZero() {
			e.SetText(fmt.Sprintf("%d:%d", box.Lo[a], box.Hi[a]))
		}
		e.Validator = func(s string) error { _, _, err := parseRange(s, n[a]); return err }
		entries[a] = e
		items[a] = widget.NewFormItem(name, e)
		items[a].HintText = fmt.Sprintf("samples A:B of 0:%d (B excluded)", n[a])
	}
	d := dialog.NewForm("Clip 3-D Box", "Clip", "Cancel", items, func(ok bool) {
		if !ok {
			return
		}
		var lo, hi [3]int
		for a, e := range entries {
			lo[a], hi[a], _ = parseRange(e.Text, n[a])
		}
		v.s.SetClipBox(lo, hi)
	}, v.win)
	v.showDialog(d)
}

// parseRange reads "A:B" (0 ≤ A < B ≤ n), or "" for 0:n.
func parseRange(s string, n int) (lo, hi int, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, n, nil
	}
	a, b, ok := strings.Cut(s, ":")
	lo, e1 := strconv.Atoi(strings.TrimSpace(a))
	hi, e2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || e1 != nil || e2 != nil || lo < 0 || hi > n || hi <= lo {
		return 0, n, fmt.Errorf("want A:B with 0 ≤ A < B ≤ %d", n)
	}
	return lo, hi, nil
}
