package session

import (
	"math"
	"time"

	"vastview/loader"
	"vastview/render"
	"vastview/render/oblique"
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
	KeyReturn       = "Return"
	KeyDelete       = "Delete"
	KeyBackspace    = "BackSpace"
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
	ShowResults Command = "results"   // the region list and its measurements
)

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
	b, ok := binding(Key{Name: name, Mods: mods})
	if !ok {
		return None
	}
	if isStep(b.Action) {
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
	switch {
	case b.Action == ActOpen || b.Action == ActSave || b.Action == ActQuit:
	case b.Key.Mods != (Mods{}):
		s.traceKey(b.Key.Mods.prefix() + name)
	default:
		s.traceKey(name)
	}
	return s.do(b.Action, name)
}

// Rune handles the keys named by their character.
func (s *Session) Rune(r rune) Command {
	b, ok := binding(runeKey(r))
	if mods := s.Modifiers(); !ok || mods.Ctrl && shadowedByCtrl(r) || mods.Alt && shadowedByAlt(r) {
		return None
	}
	c := s.do(b.Action, string(r))
	s.traceKey(string(r))
	return c
}

// do does what action asks; key is the key that asked it.
func (s *Session) do(a Action, key string) Command {
	switch a {
	case ActPrevFile, ActNextFile:
		s.NextFile(map[Action]int{ActPrevFile: -1, ActNextFile: 1}[a])
	case ActFirstFile:
		s.FirstFile()
	case ActLastFile:
		s.LastFile()
	case ActPrevSeries, ActNextSeries:
		s.NextSeries(map[Action]int{ActPrevSeries: -1, ActNextSeries: 1}[a])
	case ActChannel:
		s.ToggleChannel(int(key[0] - '1'))
	case ActPrevChannel, ActNextChannel:
		s.StepChannel(map[Action]int{ActPrevChannel: -1, ActNextChannel: 1}[a])
	case ActPlay:
		s.TogglePlay()
	case ActFit:
		if s.Layout() == View3D {
			s.ResetCamera()
		} else {
			s.Fit()
		}
	case Act3D:
		s.Toggle3D()
	case ActMode3D:
		s.CycleMode3D()
	case ActClipPlane:
		s.ToggleClipPlane()
	case ActXY, ActXZ, ActYZ:
		s.SetLayout(SingleView)
		s.SetOrientation(map[Action]render.Orientation{ActXY: render.XY, ActXZ: render.XZ, ActYZ: render.YZ}[a])
	case ActFourPanels:
		s.ToggleLayout()
	case ActChannelMode:
		s.CycleChannelMode()
	case ActContrast:
		s.AutoContrast()
	case ActPreset:
		s.ApplyPreset(int(key[0] - '1'))
	case ActReload:
		s.Reload()
	case ActPickLabel:
		s.pickLabelAtPointer()
	case ActLayers:
		s.ToggleLayers()
	case ActScaleBar:
		s.SetScaleBar(!s.ScaleBar())
	case ActTimeStamp:
		s.SetTimeStamp(!s.TimeStamp())
	case ActProjection:
		s.CycleProjection()
	case ActZoomIn:
		s.Zoom(zoomStep)
	case ActZoomOut:
		s.Zoom(1 / zoomStep)
	case ActTurnUp, ActTurnDown, ActTurnLeft, ActTurnRight, ActRollLeft, ActRollRight:
		s.turnKey(a)
	case ActInterp:
		s.ToggleLinear()
	case ActToolLine, ActToolRect, ActToolEllipse, ActToolPolygon, ActToolPoint:
		s.SetTool(map[Action]Tool{ActToolLine: LineTool, ActToolRect: RectTool, ActToolEllipse: EllipseTool,
			ActToolPolygon: PolygonTool, ActToolPoint: PointTool}[a])
	case ActDeleteROI:
		s.DeleteSelected()
	case ActFinishROI:
		s.FinishPolygon()
	case ActMeasure:
		s.Measure()
		return ShowResults
	case ActHelp:
		return ShowHelp
	case ActPanels:
		return TogglePane
	case ActStrip:
		return ToggleStrip
	case ActHistogram:
		return ToggleHist
	case ActOpen:
		return OpenFile
	case ActSave:
		return SaveView
	}
	return None
}

// isStep reports whether a moves through the planes or frames.
func isStep(a Action) bool {
	switch a {
	case ActPrevStep, ActNextStep, ActFirst, ActLast, ActPrevTime, ActNextTime:
		return true
	}
	return false
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
	s.moveToLocked(nv)
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
	if s.scroll3D(x, y, dy) {
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
		s.moveToLocked(nv)
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

// navigation is where a navigation key moves the view: the view, and in
// turned panels the shared position (level-0 indices Z, Y, X) it moves
// to, which the view's indices are the samples nearest.
type navigation struct {
	render.View
	turned bool
	at     oblique.Vec
	placed bool // the view's zoom and centre are set: it is fitted no more
}

// moveToLocked makes nv the view, and its position the turned panels'.
func (s *Session) moveToLocked(nv navigation) {
	if nv.turned {
		s.ortho.setPosition(s.data.Pyr.Meta(), &nv.View, nv.at)
	}
	if nv.placed {
		s.fitted = false
	}
	s.view = nv.View
}

// navigateLocked returns the view after key is pressed with mods, the
// direction of motion (for prefetch), and whether the key is a navigation
// key. Positions are clamped to the data and the layers over it. In a
// turned panel of the four, the plane keys move the shared position
// along that panel's normal, SlabStep apart.
func (s *Session) navigateLocked(key string, mods Mods) (navigation, int, bool) {
	v := s.view
	a := stepAxis(s.data.Pyr.Meta(), v.Orientation)
	first, last := s.spanLocked(a)
	step := mods.stepSize()
	pos, dir := v.At(a), 0
	b, ok := binding(Key{Name: key, Mods: mods})
	if !ok || !isStep(b.Action) {
		return navigation{View: v}, 0, false
	}
	if b.Action != ActPrevTime && b.Action != ActNextTime && s.ortho.on && Oblique(v) && s.ortho.active != panelProj {
		return s.navigateTurnedLocked(b.Action, step)
	}
	if b.Action != ActPrevTime && b.Action != ActNextTime && !s.ortho.on && v.Turn != (render.Turn{}) && a != 'T' {
		return s.navigateTurnedViewLocked(b.Action, step)
	}
	switch b.Action {
	case ActPrevStep:
		pos, dir = pos-step, -1
	case ActNextStep:
		pos, dir = pos+step, 1
	case ActFirst:
		pos, dir = first, 1
	case ActLast:
		pos, dir = last, -1
	case ActPrevTime, ActNextTime:
		a = 'T'
		first, last = s.spanLocked(a)
		pos, dir = v.T-step, -1
		if b.Action == ActNextTime {
			pos, dir = v.T+step, 1
		}
	}
	v.SetAt(a, clampInt(pos, first, last))
	return navigation{View: v}, dir, true
}

// navigateTurnedLocked is navigateLocked for act (step planes a press)
// in the active turned panel: the shared position moves along the
// panel's normal (its unturned normal axis turned with the frame) by step
// times SlabStep, or to the data's edge along it (first, last), staying
// within the data's samples.
func (s *Session) navigateTurnedLocked(act Action, step int) (navigation, int, bool) {
	nv := navigation{View: s.view, turned: true}
	var dir int
	nv.at, dir = alongNormal(s.data.Pyr.Meta(), s.view, s.ortho.position(s.view), act, step)
	return nv, dir, true
}

// navigateTurnedViewLocked is navigateLocked for act (step planes a
// press) in one turned plane shown alone: its centre moves along the
// plane's normal as in a turned panel (BigDataViewer's habit), the view
// keeping that point at its centre, between samples if so (View.Depth).
func (s *Session) navigateTurnedViewLocked(act Action, step int) (navigation, int, bool) {
	m := s.data.Pyr.Meta()
	v := s.view
	if !(v.Zoom > 0) {
		v.Zoom, v.Center = render.Fit(m, v)
	}
	pl, sp := ObliquePlane(m, v), oblique.Spacing(m)
	var at oblique.Vec
	for a := range at {
		at[a] = pl.Center[a] / sp[a]
	}
	at, dir := alongNormal(m, v, at, act, step)
	placeTurned(m, &v, at)
	return navigation{View: v, placed: true}, dir, true
}

// placeTurned places turned view v of data m so that its plane's centre
// is at (level-0 indices Z, Y, X): the sample nearest it along the
// unturned normal axis (the data's nearest when outside), the rest in
// Depth, the centre on the other two.
func placeTurned(m *loader.Meta, v *render.View, at oblique.Vec) {
	row, col, normal := v.Orientation.Axes()
	k := math.Floor(at[axisSlot(normal)] + 0.5)
	k = max(0, min(float64(oblique.Extent(m)[axisSlot(normal)]-1), k))
	v.SetAt(normal, int(k))
	v.Depth = at[axisSlot(normal)] - k
	v.Center = render.Point{Col: at[axisSlot(col)] + 0.5, Row: at[axisSlot(row)] + 0.5}
}

// alongNormal moves position at (level-0 indices Z, Y, X) of data m along
// the normal of the plane of view v (its unturned normal axis turned) by
// step times SlabStep for act ActPrevStep or ActNextStep, or to the
// data's edge along it for ActFirst and ActLast, staying within the
// data's samples; it returns the new position and the direction moved.
func alongNormal(m *loader.Meta, v render.View, at oblique.Vec, act Action, step int) (oblique.Vec, int) {
	_, _, normal := v.Orientation.Axes()
	var e oblique.Vec
	e[axisSlot(normal)] = 1
	w := oblique.Vec(v.Turn.Apply(e))
	sp, n := oblique.Spacing(m), oblique.Extent(m)
	// The move of at (indices) per unit of physical distance along w, and
	// how far along w at can go either way within the data.
	var d oblique.Vec
	lo, hi := math.Inf(-1), math.Inf(1)
	for a := range d {
		d[a] = w[a] / sp[a]
		if math.Abs(d[a]) < 1e-12 {
			continue
		}
		t0, t1 := (-0.5-at[a])/d[a], (float64(n[a])-0.5-at[a])/d[a]
		lo, hi = max(lo, min(t0, t1)), min(hi, max(t0, t1))
	}
	lo, hi = min(lo, 0), max(hi, 0)
	var t float64
	dir := 0
	switch act {
	case ActPrevStep:
		t, dir = max(lo, -float64(step)*SlabStep(m)), -1
	case ActNextStep:
		t, dir = min(hi, float64(step)*SlabStep(m)), 1
	case ActFirst:
		t, dir = lo, 1
	case ActLast:
		t, dir = hi, -1
	}
	return at.Add(d.Scale(t)), dir
}
