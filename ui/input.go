package ui

import (
	"fmt"
	"math"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"vastview/render"
)

func (v *Viewer) setModifier(k fyne.KeyName, down bool) {
	switch k {
	case desktop.KeyShiftLeft, desktop.KeyShiftRight:
		v.mods.shift = down
	case desktop.KeyControlLeft, desktop.KeyControlRight, desktop.KeySuperLeft, desktop.KeySuperRight:
		v.mods.ctrl = down
	}
}

// typedKey handles navigation and view keys; auto-repeat calls it again
// while a key is held, and the drawer drops frames it cannot keep up with.
func (v *Viewer) typedKey(e *fyne.KeyEvent) {
	if v.s == nil {
		return
	}
	now := time.Now()
	trace := func() { v.opts.Trace.Event("key", map[string]any{"key": string(e.Name)}) }
	switch {
	case e.Name == fyne.KeyF1:
		trace()
		v.showShortcuts()
	case e.Name == fyne.KeySpace:
		trace()
		v.togglePlay()
	case !v.repeated(e.Name):
		v.step(e.Name, v.mods, now)
	}
}

// step moves through the planes for a navigation key.
func (v *Viewer) step(key fyne.KeyName, mods modifiers, now time.Time) {
	if nv, dir, ok := navigate(v.s.pyr.Meta(), v.view, key, mods); ok {
		v.opts.Trace.Event("key", map[string]any{"key": string(key)})
		v.view = nv
		v.moved(now, dir)
	}
}

// addShortcuts binds the keys pressed with Ctrl: Fyne delivers those as
// shortcuts, not typed keys (auto-repeat included).
func (v *Viewer) addShortcuts() {
	c := v.win.Canvas()
	ctrl := func(k fyne.KeyName, f func()) {
		c.AddShortcut(&desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierControl}, func(fyne.Shortcut) { f() })
	}
	for _, k := range []fyne.KeyName{fyne.KeyLeft, fyne.KeyRight, fyne.KeyComma, fyne.KeyPeriod, fyne.KeyPageUp, fyne.KeyPageDown} {
		ctrl(k, func() {
			if v.s != nil && !v.repeated(k) {
				v.step(k, modifiers{ctrl: true}, time.Now())
			}
		})
	}
	ctrl(fyne.KeyO, v.openDialog)
	ctrl(fyne.KeyS, v.saveDialog)
}

// typedRune handles the keys named by their character.
func (v *Viewer) typedRune(r rune) {
	if v.s == nil {
		return
	}
	now := time.Now()
	switch r {
	case '0':
		v.fit()
	case '1', '2', '3':
		v.setOrientation(render.Orientation(r - '1'))
	case 'c', 'C':
		v.autoContrast()
	case 'r', 'R':
		v.s.pyr.Refresh()
	case '?':
		v.showShortcuts()
	default:
		return
	}
	v.opts.Trace.Event("key", map[string]any{"key": string(r)})
	v.changed(now)
}

func (v *Viewer) fit() { v.view.Zoom = 0 }

func (v *Viewer) autoContrast() { v.view.Lo, v.view.Hi = 0, 0 }

func (v *Viewer) setOrientation(o render.Orientation) {
	m := v.s.pyr.Meta()
	row, col, _ := o.Axes()
	if m.Size(row) == 1 || m.Size(col) == 1 {
		return // a 2-D image or a movie has XY only
	}
	if o != v.view.Orientation {
		v.view.Orientation = o
		v.view.Zoom = 0
		if v.view.Y == 0 && v.view.X == 0 {
			v.view.Y, v.view.X = m.Size('Y')/2, m.Size('X')/2
		}
		v.rebuildSliders()
	}
}

// resized follows the viewport's size in pixels.
func (v *Viewer) resized(w, h int) {
	v.view.Width, v.view.Height = w, h
	v.changed(time.Now())
}

// scrolled steps through planes, or zooms about the pointer with Ctrl.
func (v *Viewer) scrolled(x, y, dy float32) {
	if v.s == nil || dy == 0 {
		return
	}
	m := v.s.pyr.Meta()
	if v.mods.ctrl {
		v.view = v.view.ZoomAbout(m, float64(x), float64(y), math.Pow(1.25, float64(dy)/10))
		v.changed(time.Now())
		return
	}
	key := fyne.KeyPeriod
	if dy > 0 {
		key = fyne.KeyComma
	}
	if nv, dir, ok := navigate(m, v.view, key, v.mods); ok {
		v.view = nv
		v.moved(time.Now(), dir)
	}
}

// dragged pans the picture.
func (v *Viewer) dragged(dx, dy float32) {
	if v.s == nil {
		return
	}
	v.view = v.view.Pan(v.s.pyr.Meta(), float64(dx), float64(dy))
	v.changed(time.Now())
}

// hovered shows the position and value under the pointer.
func (v *Viewer) hovered(x, y float32, in bool) {
	v.hoverX, v.hoverY, v.hover = x, y, in
	if !in || v.s == nil || v.shown == nil {
		v.hoverLbl.SetText("")
		return
	}
	m := v.s.pyr.Meta()
	shown := v.shown.view
	loc := shown.Locate(m, float64(x), float64(y))
	if !loc.Inside {
		v.hoverLbl.SetText("")
		return
	}
	text := fmt.Sprintf("%c %d  %c %d   (%s, %s)", loc.ColAxis, loc.Col, loc.RowAxis, loc.Row,
		phys(loc.ColPhys, loc.ColUnit), phys(loc.RowPhys, loc.RowUnit))
	if val, ok := v.valueAt(shown, loc); ok {
		text += "   value " + val
	}
	v.hoverLbl.SetText(text)
}

func phys(p float64, unit string) string {
	if unit == "" {
		return fmt.Sprintf("%.4g", p)
	}
	return fmt.Sprintf("%.4g %s", p, abbreviate(unit))
}

func abbreviate(unit string) string {
	switch unit {
	case "micrometer":
		return "µm"
	case "millimeter":
		return "mm"
	case "nanometer":
		return "nm"
	case "second":
		return "s"
	case "millisecond":
		return "ms"
	}
	return unit
}

// valueAt reads the level-0 sample under the pointer if its chunk is in
// memory (the hover never waits for I/O).
func (v *Viewer) valueAt(w render.View, loc render.Location) (string, bool) {
	pyr := v.s.pyr
	m := pyr.Meta()
	l := &m.Levels[0]
	pos := make([]int, len(m.Axes))
	for i := range m.Axes {
		a := m.Axes[i]
		switch a {
		case loc.ColAxis:
			pos[i] = loc.Col
		case loc.RowAxis:
			pos[i] = loc.Row
		default:
			pos[i] = clampInt(w.At(a), 0, m.Shape[i]-1)
		}
	}
	idx, off := make([]int, len(pos)), 0
	for i := range pos {
		idx[i] = pos[i] / l.Chunk[i]
		off = off*l.Chunk[i] + pos[i]%l.Chunk[i]
	}
	b := pyr.Get(0, idx)
	if b == nil {
		return "", false
	}
	val := render.Sample(b, m.DType, off)
	s := fmt.Sprintf("%.6g", val)
	if m.ValueScale != nil {
		s += fmt.Sprintf(" (%.6g)", val*m.ValueScale.Slope+m.ValueScale.Intercept)
	}
	return s, true
}
