package ui

import (
	"fyne.io/fyne/v2"

	"vastview/loader"
)

// position is where the view is on the axes not displayed.
type position struct{ t, z, c int }

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

// navigate returns the position after key is pressed with mods, and
// whether the key is a navigation key. Positions are clamped to the data.
func navigate(meta *loader.Meta, p position, key fyne.KeyName, mods modifiers) (position, bool) {
	nz, nt := meta.Size('Z'), meta.Size('T')
	// A movie without Z steps through time with the plane keys.
	planeAxis := &p.z
	planeLen := nz
	if nz == 1 && nt > 1 {
		planeAxis, planeLen = &p.t, nt
	}
	step := mods.stepSize()
	switch key {
	case fyne.KeyLeft, fyne.KeyComma, fyne.KeyPageUp:
		*planeAxis -= step
	case fyne.KeyRight, fyne.KeyPeriod, fyne.KeyPageDown:
		*planeAxis += step
	case fyne.KeyHome:
		*planeAxis = 0
	case fyne.KeyEnd:
		*planeAxis = planeLen - 1
	case fyne.KeyLeftBracket:
		p.t -= step
	case fyne.KeyRightBracket:
		p.t += step
	default:
		return p, false
	}
	p.z = clampInt(p.z, 0, nz-1)
	p.t = clampInt(p.t, 0, nt-1)
	return p, true
}

func clampInt(v, lo, hi int) int { return max(lo, min(v, hi)) }
