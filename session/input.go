package session

import (
	"math"
	"time"

	"vastview/loader"
	"vastview/render"
)

// Key names, spelled as Fyne names its keys, so that a window passes its
// key events' names as they are.
const (
	KeyLeft         = "Left"
	KeyRight        = "Right"
	KeyUp           = "Up"
	KeyDown         = "Down"
	KeyComma        = ","
	KeyPeriod       = "."
	KeyPageUp       = "Prior"
	KeyPageDown     = "Next"
	KeyHome         = "Home"
	KeyEnd          = "End"
	KeyLeftBracket  = "["
	KeyRightBracket = "]"
	KeySpace        = "Space"
	KeyF1           = "F1"
	KeyO            = "O"
	KeyS            = "S"
	KeyShiftLeft    = "LeftShift"
	KeyShiftRight   = "RightShift"
	KeyControlLeft  = "LeftControl"
	KeyControlRight = "RightControl"
	KeyAltLeft      = "LeftAlt"
	KeyAltRight     = "RightAlt"
	KeySuperLeft    = "LeftSuper"
	KeySuperRight   = "RightSuper"
)

// Mods are the modifier keys held.
type Mods struct{ Shift, Ctrl, Alt bool }

// stepSize is the plane step for a key press: 1, or 10 with Shift, 100
// with Ctrl.
func (m Mods) stepSize() int {
	switch {
	case m.Ctrl:
		return 100
	case m.Shift:
		return 10
	}
	return 1
}

// Command is what a key asks of the window: a dialog or a panel the
// session has no part in.
type Command string

// The commands keys give.
const (
	None        Command = ""
	ShowHelp    Command = "help"      // the list of keys
	OpenFile    Command = "open"      // the open dialog
	SaveView    Command = "save"      // the save-as-PNG dialog
	TogglePane  Command = "panels"    // show or hide the panels under and beside the picture
	ToggleStrip Command = "strip"     // show or hide the strip of files
	ToggleHist  Command = "histogram" // show or hide the histogram
)

// Shortcut is one line of the key list (F1, README).
type Shortcut struct{ Keys, Does string }

// Shortcuts lists the keys and what they do.
func Shortcuts() []Shortcut {
	return []Shortcut{
		{", .  ← →", "previous / next plane or frame (Shift ×10, Ctrl ×100)"},
		{"PageUp PageDown", "previous / next plane (Shift ×10, Ctrl ×100)"},
		{"[ ]", "previous / next time point"},
		{"Home End", "first / last plane"},
		{"Alt+← Alt+→", "previous / next file of the list"},
		{"Alt+Home Alt+End", "first / last file of the list"},
		{"Alt+PageUp Alt+PageDown", "previous / next image of a file that holds several (Go → Series)"},
		{"hold a step key", "scrub at the display rate"},
		{"Space", "play / pause"},
		{"wheel", "previous / next plane"},
		{"Ctrl+wheel", "zoom about the pointer"},
		{"+ -", "zoom in / out"},
		{"drag", "pan (four panels: move the position; Shift+drag pans)"},
		{"0", "fit"},
		{"1 2 3", "XY, XZ, YZ"},
		{"4", "four panels: XY, XZ, YZ through one position (click to move it) and the Z projection; again: one"},
		{"↑ ↓", "previous / next channel (its window in the contrast panel)"},
		{"Ctrl+1 … Ctrl+9", "show / hide channel 1 … 9 in the composite (else show it alone)"},
		{"M", "channels: composite, one in colour, one in gray"},
		{"C", "auto-contrast"},
		{"V", "show / hide the layers over the image"},
		{"B", "show / hide the scale bar"},
		{"T", "show / hide the time stamp (the plane's position without time points)"},
		{"P", "projection along the axis normal to the plane: max, min, mean, none"},
		{"L", "show only the label under the pointer (again: every label)"},
		{"R", "reload chunks a store did not hold yet"},
		{"H", "show / hide the panels under and beside the picture"},
		{"F", "show / hide the strip of files"},
		{"G", "show / hide the histogram"},
		{"Ctrl+O", "open"},
		{"Ctrl+S", "save the view as PNG"},
		{"Ctrl+Q", "quit"},
		{"F1 ?", "this list"},
	}
}

// KeyDown notes a key pressed: modifiers, and the start of a held-key
// scrub for a step key.
func (s *Session) KeyDown(name string) {
	s.mu.Lock()
	defer s.mu.Unlock() // a scrub starts later: nothing to tell yet
	if s.setModifierLocked(name, true) || s.data == nil || s.scrub.key == name {
		return
	}
	if _, _, ok := s.navigateLocked(name, s.mods); ok {
		s.startScrubLocked(name)
	}
}

// KeyUp notes a key released: modifiers, and the end of a scrub.
func (s *Session) KeyUp(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setModifierLocked(name, false)
	if name == s.scrub.key {
		s.endScrubLocked()
	}
}

// ResetModifiers forgets the modifiers held: a dialog or another window
// took the key releases (call it when a dialog closes or the window gets
// the focus back).
func (s *Session) ResetModifiers() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mods = Mods{}
	s.endScrubLocked()
}

// Modifiers returns the modifiers held.
func (s *Session) Modifiers() Mods {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mods
}

func (s *Session) setModifierLocked(name string, down bool) bool {
	switch name {
	case KeyShiftLeft, KeyShiftRight:
		s.mods.Shift = down
	case KeyControlLeft, KeyControlRight, KeySuperLeft, KeySuperRight:
		s.mods.Ctrl = down
	case KeyAltLeft, KeyAltRight:
		s.mods.Alt = down
	default:
		return false
	}
	return true
}

// Press handles a typed key (the press and the keyboard's repeats) with
// the modifiers held, and returns what the window must do for it.
func (s *Session) Press(name string) Command {
	s.mu.Lock()
	mods := s.mods
	s.mu.Unlock()
	return s.PressWith(name, mods)
}

// PressWith is Press with the given modifiers, for the key combinations
// a window delivers as shortcuts.
func (s *Session) PressWith(name string, mods Mods) Command {
	if mods.Alt {
		switch name {
		case KeyRight, KeyLeft, KeyHome, KeyEnd, KeyPageUp, KeyPageDown:
			s.traceKey("Alt+" + name)
		}
		switch name {
		case KeyRight:
			s.NextFile(1)
		case KeyLeft:
			s.NextFile(-1)
		case KeyPageDown:
			s.NextSeries(1)
		case KeyPageUp:
			s.NextSeries(-1)
		case KeyHome:
			s.FirstFile()
		case KeyEnd:
			s.LastFile()
		}
		return None
	}
	if mods.Ctrl && len(name) == 1 && name[0] >= '1' && name[0] <= '9' {
		s.traceKey("Ctrl+" + name)
		s.ToggleChannel(int(name[0] - '1'))
		return None
	}
	switch name {
	case KeyF1:
		s.traceKey(name)
		return ShowHelp
	case KeyUp, KeyDown:
		s.traceKey(name)
		s.StepChannel(map[string]int{KeyUp: -1, KeyDown: 1}[name])
		return None
	case KeyO:
		if mods.Ctrl {
			return OpenFile
		}
	case KeyS:
		if mods.Ctrl {
			return SaveView
		}
	case KeySpace:
		s.traceKey(name)
		s.TogglePlay()
		return None
	}
	s.mu.Lock()
	if s.data == nil || s.repeatedLocked(name) {
		s.mu.Unlock()
		return None
	}
	s.stepLocked(name, mods, s.clock.Now())
	s.mu.Unlock()
	s.flush()
	return None
}

// Rune handles the keys named by their character.
func (s *Session) Rune(r rune) Command {
	switch r {
	case '?':
		s.traceKey(string(r))
		return ShowHelp
	case 'h', 'H':
		s.traceKey(string(r))
		return TogglePane
	case 'f', 'F':
		s.traceKey(string(r))
		return ToggleStrip
	case 'g', 'G':
		s.traceKey(string(r))
		return ToggleHist
	case '0':
		s.Fit()
	case '1', '2', '3':
		if s.Modifiers().Ctrl {
			return None // Ctrl+digit toggles a channel (see PressWith)
		}
		s.SetLayout(SingleView)
		s.SetOrientation(render.Orientation(r - '1'))
	case '4':
		if s.Modifiers().Ctrl {
			return None
		}
		s.ToggleLayout()
	case 'm', 'M':
		s.CycleChannelMode()
	case 'c', 'C':
		s.AutoContrast()
	case 'r', 'R':
		s.Reload()
	case 'l', 'L':
		s.pickLabelAtPointer()
	case 'v', 'V':
		s.ToggleLayers()
	case 'b', 'B':
		s.SetScaleBar(!s.ScaleBar())
	case 't', 'T':
		s.SetTimeStamp(!s.TimeStamp())
	case 'p', 'P':
		s.CycleProjection()
	case '+', '=':
		s.Zoom(zoomStep)
	case '-':
		s.Zoom(1 / zoomStep)
	default:
		return None
	}
	s.traceKey(string(r))
	return None
}

// zoomStep is the magnification of one zoom key press.
const zoomStep = 1.25

func (s *Session) traceKey(key string) { s.trace.Event("key", map[string]any{"key": key}) }

// stepLocked moves through the planes for a navigation key.
func (s *Session) stepLocked(key string, mods Mods, now time.Time) bool {
	nv, dir, ok := s.navigateLocked(key, mods)
	if !ok {
		return false
	}
	s.traceKey(key)
	s.view = nv
	s.askLocked(now, dir)
	s.noteLocked(ViewChanged | HoverChanged)
	return true
}

// Scroll handles the wheel at viewport position (x, y): planes, or with
// Ctrl a zoom about the pointer.
func (s *Session) Scroll(x, y, dy float64) {
	if dy == 0 {
		return
	}
	s.toPanel(x, y) // the panel under the pointer scrolls
	s.mu.Lock()
	if s.data == nil {
		s.mu.Unlock()
		return
	}
	if s.mods.Ctrl {
		s.mu.Unlock()
		s.ZoomAbout(x, y, math.Pow(zoomStep, dy/10))
		return
	}
	key := KeyPeriod
	if dy > 0 {
		key = KeyComma
	}
	if nv, dir, ok := s.navigateLocked(key, s.mods); ok {
		s.view = nv
		s.askLocked(s.clock.Now(), dir)
	}
	s.unlockNotify(ViewChanged | HoverChanged)
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

// navigateLocked returns the view after key is pressed with mods, the
// direction of motion (for prefetch), and whether the key is a navigation
// key. Positions are clamped to the data and the layers over it.
func (s *Session) navigateLocked(key string, mods Mods) (render.View, int, bool) {
	v := s.view
	if mods.Alt {
		return v, 0, false // Alt+arrows belong to the browsing list
	}
	a := stepAxis(s.data.Pyr.Meta(), v.Orientation)
	first, last := s.spanLocked(a)
	step := mods.stepSize()
	pos, dir := v.At(a), 0
	switch key {
	case KeyLeft, KeyComma, KeyPageUp:
		pos, dir = pos-step, -1
	case KeyRight, KeyPeriod, KeyPageDown:
		pos, dir = pos+step, 1
	case KeyHome:
		pos, dir = first, 1
	case KeyEnd:
		pos, dir = last, -1
	case KeyLeftBracket, KeyRightBracket:
		a = 'T'
		first, last = s.spanLocked(a)
		pos, dir = v.T-step, -1
		if key == KeyRightBracket {
			pos, dir = v.T+step, 1
		}
	default:
		return v, 0, false
	}
	v.SetAt(a, clampInt(pos, first, last))
	return v, dir, true
}
