package ui

import (
	"fyne.io/fyne/v2"

	"vastview/loader"
	"vastview/render"
)

// modifiers held while a key is pressed.
type modifiers struct{ shift, ctrl bool }

// stepSize is the plane step for a key press: 1, or 10 with Shift, 100
// with Ctrl.
func (m modifiers) stepSize() int {
	switch {
	case m.ctrl:
		return 100
	case m.shift:
		return 10
	}
	return 1
}

// stepAxis is the axis the plane keys move along: the one normal to the
// plane, or time for a movie (no Z) seen in XY.
func stepAxis(meta *loader.Meta, o render.Orientation) byte {
	_, _, normal := o.Axes()
	if meta.Size(normal) == 1 && meta.Size('T') > 1 {
		return 'T'
	}
	return normal
}

// navigate returns the view after key is pressed with mods, the direction
// of motion (for prefetch), and whether the key is a navigation key.
// Positions are clamped to the data.
func navigate(meta *loader.Meta, v render.View, key fyne.KeyName, mods modifiers) (render.View, int, bool) {
	a := stepAxis(meta, v.Orientation)
	n := meta.Size(a)
	step := mods.stepSize()
	pos, dir := v.At(a), 0
	switch key {
	case fyne.KeyLeft, fyne.KeyComma, fyne.KeyPageUp:
		pos, dir = pos-step, -1
	case fyne.KeyRight, fyne.KeyPeriod, fyne.KeyPageDown:
		pos, dir = pos+step, 1
	case fyne.KeyHome:
		pos, dir = 0, 1
	case fyne.KeyEnd:
		pos, dir = n-1, -1
	case fyne.KeyLeftBracket, fyne.KeyRightBracket:
		a, n = 'T', meta.Size('T')
		pos, dir = v.T-step, -1
		if key == fyne.KeyRightBracket {
			pos, dir = v.T+step, 1
		}
	default:
		return v, 0, false
	}
	v.SetAt(a, clampInt(pos, 0, n-1))
	return v, dir, true
}

func clampInt(v, lo, hi int) int { return max(lo, min(v, hi)) }
