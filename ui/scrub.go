package ui

import (
	"time"

	"fyne.io/fyne/v2"
)

// Holding a navigation key scrubs: after scrubDelay vastview repeats the
// key itself, one step for each frame shown with data everywhere and at
// most one per display refresh, instead of at the keyboard's repeat rate.
// The keyboard's repeats are then ignored, unless no frame has come for
// scrubStall (a plane that cannot be read), when they step as usual.
const (
	scrubDelay = 300 * time.Millisecond
	scrubEvery = time.Second / 60
	scrubStall = 250 * time.Millisecond
)

// scrub is the state of a held navigation key; the UI goroutine owns it.
type scrub struct {
	key    fyne.KeyName
	active bool      // repeating
	last   time.Time // the last step
	wait   bool      // a step is scheduled
}

// keyDown notes a key pressed; a navigation key starts a scrub once it has
// been held for scrubDelay.
func (v *Viewer) keyDown(e *fyne.KeyEvent) {
	v.setModifier(e.Name, true)
	if v.s == nil || v.scrub.key == e.Name {
		return
	}
	if _, _, ok := navigate(v.s.pyr.Meta(), v.view, e.Name, v.mods); !ok {
		return
	}
	v.scrub = scrub{key: e.Name}
	k := e.Name
	time.AfterFunc(scrubDelay, func() {
		uiDo(func() {
			if v.scrub.key == k && !v.scrub.active {
				v.scrub.active = true
				v.scrubStep()
			}
		})
	})
}

// keyUp notes a key released; releasing the held key ends the scrub.
func (v *Viewer) keyUp(e *fyne.KeyEvent) {
	v.setModifier(e.Name, false)
	if e.Name == v.scrub.key {
		v.scrub = scrub{}
	}
}

// repeated reports whether a typed key is the keyboard repeating the key
// being scrubbed, to be ignored.
func (v *Viewer) repeated(k fyne.KeyName) bool {
	return v.scrub.active && v.scrub.key == k && time.Since(v.scrub.last) < scrubStall
}

// scrubStep steps once for the held key, unless that goes nowhere (the
// end of the data).
func (v *Viewer) scrubStep() {
	nv, _, _ := navigate(v.s.pyr.Meta(), v.view, v.scrub.key, v.mods)
	if nv == v.view {
		return
	}
	v.scrub.last = time.Now()
	v.step(v.scrub.key, v.mods, v.scrub.last)
}

// scrubNext follows a frame shown: when it is the held key's last step
// with data everywhere, the next step comes one display refresh after the
// last at the earliest.
func (v *Viewer) scrubNext(f *frame) {
	s := &v.scrub
	if !s.active || s.wait || f.gen != v.gen || f.info.Unfilled > 0 {
		return
	}
	wait := scrubEvery - time.Since(s.last)
	if wait <= 0 {
		v.scrubStep()
		return
	}
	s.wait = true
	k, gen := s.key, v.gen
	time.AfterFunc(wait, func() {
		uiDo(func() {
			v.scrub.wait = false
			if v.scrub.active && v.scrub.key == k && v.gen == gen && v.s != nil {
				v.scrubStep()
			}
		})
	})
}
