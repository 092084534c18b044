package session

import (
	"strings"
	"unicode"
)

// Action is what a key binding does.
type Action string

// The actions keys give.
const (
	ActNone        Action = ""             // a line of the list only (a mouse gesture)
	ActPrevStep    Action = "prev"         // previous plane or frame (Shift ×10, Ctrl ×100)
	ActNextStep    Action = "next"         // next plane or frame
	ActFirst       Action = "first"        // first plane or frame
	ActLast        Action = "last"         // last plane or frame
	ActPrevTime    Action = "prev-time"    // previous time point
	ActNextTime    Action = "next-time"    // next time point
	ActPrevFile    Action = "prev-file"    // previous file of the browsing list
	ActNextFile    Action = "next-file"    // next file of the browsing list
	ActFirstFile   Action = "first-file"   // first file of the browsing list
	ActLastFile    Action = "last-file"    // last file of the browsing list
	ActPrevSeries  Action = "prev-series"  // previous image of a file of several
	ActNextSeries  Action = "next-series"  // next image of a file of several
	ActPlay        Action = "play"         // play / pause
	ActZoomIn      Action = "zoom-in"      // zoom in about the centre
	ActZoomOut     Action = "zoom-out"     // zoom out about the centre
	ActFit         Action = "fit"          // fit the picture to the view
	ActXY          Action = "xy"           // the XY plane, one view
	ActXZ          Action = "xz"           // the XZ plane, one view
	ActYZ          Action = "yz"           // the YZ plane, one view
	ActFourPanels  Action = "four"         // four panels, or one view again
	ActProjection  Action = "projection"   // next projection: max, min, mean, none
	ActPrevChannel Action = "prev-channel" // previous channel
	ActNextChannel Action = "next-channel" // next channel
	ActChannel     Action = "channel"      // show or hide the channel of the key's digit
	ActChannelMode Action = "channel-mode" // next channel mode
	ActContrast    Action = "contrast"     // auto-contrast
	ActLayers      Action = "layers"       // show or hide the layers
	ActScaleBar    Action = "scale-bar"    // show or hide the scale bar
	ActTimeStamp   Action = "time-stamp"   // show or hide the time stamp
	ActPickLabel   Action = "pick-label"   // show only the label under the pointer, or every label
	ActReload      Action = "reload"       // reload chunks a store did not hold
	ActPanels      Action = "panels"       // the window's TogglePane
	ActStrip       Action = "strip"        // the window's ToggleStrip
	ActHistogram   Action = "histogram"    // the window's ToggleHist
	ActOpen        Action = "open"         // the window's OpenFile
	ActSave        Action = "save"         // the window's SaveView
	ActQuit        Action = "quit"         // the window's File → Quit (its menu takes the key)
	ActHelp        Action = "help"         // the window's ShowHelp
	ActTurnUp      Action = "turn-up"      // turn the plane about the screen's horizontal axis
	ActTurnDown    Action = "turn-down"    // the other way
	ActTurnLeft    Action = "turn-left"    // turn the plane about the screen's vertical axis
	ActTurnRight   Action = "turn-right"   // the other way
	ActRollLeft    Action = "roll-left"    // turn the plane about the axis into the screen
	ActRollRight   Action = "roll-right"   // the other way
	ActInterp      Action = "interp"       // nearest / trilinear sampling
	Act3D          Action = "3d"           // the 3-D view, or one plane again
	ActMode3D      Action = "mode-3d"      // next 3-D mode
	ActClipPlane   Action = "clip-plane"   // clip the 3-D view with the plane of the 2-D view
	ActToolLine    Action = "tool-line"    // the line tool
	ActToolRect    Action = "tool-rect"    // the rectangle tool
	ActToolEllipse Action = "tool-ellipse" // the ellipse tool
	ActToolPolygon Action = "tool-polygon" // the polygon tool
	ActToolPoint   Action = "tool-point"   // the point tool
	ActMeasure     Action = "measure"      // the window's ShowResults: the measurements of the ROIs
	ActDeleteROI   Action = "delete-roi"   // remove the ROI (or vertex) selected
	ActFinishROI   Action = "finish-roi"   // close the polygon being drawn
	ActPreset      Action = "preset"       // the CT window preset of the key's digit
)

// Key is a key with the modifiers held, as a window names it.
type Key struct {
	// Name is Fyne's name of the key ("Left", "F1", "O", ","), or, when
	// Char is set, the character it types, upper case for a letter.
	Name string
	// Char: the binding follows the character typed (Rune), not the key.
	Char bool
	Mods Mods
}

// Binding is one row of the key map: a key, what it does, how the list of
// keys (F1, README) and the menu show it.
type Binding struct {
	Key    Key
	Action Action
	// Help is the list's description; neighbouring bindings with the same
	// Help share one line of the list.
	Help string
	// Label names the keys in the list instead of Key (a gesture, or the
	// line's keys when they are many); Alias leaves the binding out of the
	// list (a second key for one already there).
	Label string
	Alias bool
	// Menu is the menu item that shows the key beside it, as
	// "Menu → Item" or "Menu → Submenu → Item"; "" for none.
	Menu string
}

// stepHelp is the list's description of the step keys.
const stepHelp = "previous / next plane or frame (Shift ×10, Ctrl ×100); a turned plane: along its normal"

// turnHelp describes the keys that turn the plane.
var turnHelp = [3]string{
	"turn the plane 5° (Shift 1°) about the screen's horizontal axis, through the view's centre (1 2 3: aligned again)",
	"turn the plane 5° (Shift 1°) about the screen's vertical axis",
	"turn the plane 5° (Shift 1°) about the axis into the screen",
}

var (
	alt  = Mods{Alt: true}
	ctrl = Mods{Ctrl: true}
)

// keyMap is every key the viewer takes, in the order of the list of keys.
// Shift and Ctrl with a key bound without them do what the key does
// (the step keys take them as 10 and 100 steps); Alt does not.
var keyMap = func() []Binding {
	m := []Binding{
		{Key: Key{Name: KeyComma}, Action: ActPrevStep, Help: stepHelp},
		{Key: Key{Name: KeyPeriod}, Action: ActNextStep, Help: stepHelp},
		{Key: Key{Name: KeyLeft}, Action: ActPrevStep, Help: stepHelp},
		{Key: Key{Name: KeyRight}, Action: ActNextStep, Help: stepHelp},
		{Key: Key{Name: KeyPageUp}, Action: ActPrevStep, Help: "previous / next plane (Shift ×10, Ctrl ×100)"},
		{Key: Key{Name: KeyPageDown}, Action: ActNextStep, Help: "previous / next plane (Shift ×10, Ctrl ×100)"},
		{Key: Key{Name: KeyLeftBracket}, Action: ActPrevTime, Help: "previous / next time point"},
		{Key: Key{Name: KeyRightBracket}, Action: ActNextTime, Help: "previous / next time point"},
		{Key: Key{Name: KeyHome}, Action: ActFirst, Help: "first / last plane"},
		{Key: Key{Name: KeyEnd}, Action: ActLast, Help: "first / last plane"},
		{Label: "hold a step key", Help: "scrub at the display rate"},
		{Key: Key{Name: KeySpace}, Action: ActPlay, Help: "play / pause", Menu: "View → Play / Pause"},
		{Label: "wheel", Help: "previous / next plane"},
		{Label: "Ctrl+wheel", Help: "zoom about the pointer"},
		{Key: Key{Name: "+", Char: true}, Action: ActZoomIn, Help: "zoom in / out", Menu: "View → Zoom In"},
		{Key: Key{Name: "=", Char: true}, Action: ActZoomIn, Help: "zoom in / out", Alias: true},
		{Key: Key{Name: "-", Char: true}, Action: ActZoomOut, Help: "zoom in / out", Menu: "View → Zoom Out"},
		{Label: "drag", Help: "pan; in a plane turned out of XY, XZ and YZ: turn it about the view's centre"},
		{Label: "Shift+drag, right-drag", Help: "pan"},
		{Label: "Ctrl+drag", Help: "turn the plane about the screen's axes, 0.25° a pixel (Ctrl+Shift 0.05°)"},
		{Key: Key{Name: "0", Char: true}, Action: ActFit, Help: "fit", Menu: "View → Fit"},
		{Key: Key{Name: "1", Char: true}, Action: ActXY, Help: "XY, XZ, YZ", Menu: "View → XY"},
		{Key: Key{Name: "2", Char: true}, Action: ActXZ, Help: "XY, XZ, YZ", Menu: "View → XZ"},
		{Key: Key{Name: "3", Char: true}, Action: ActYZ, Help: "XY, XZ, YZ", Menu: "View → YZ"},
		{Key: Key{Name: "4", Char: true}, Action: ActFourPanels, Menu: "View → Four Panels",
			Help: "four panels: XY, XZ, YZ through one position (click to move it) and the 3-D view; again: one; turned: the turned frame's three planes, the plane keys along the panel's normal"},
		{Label: "click or drag (four panels)", Help: "move the position the panels show, in 3-D when turned (Shift+drag pans, Ctrl+drag turns)"},
		{Key: Key{Name: "5", Char: true}, Action: Act3D, Menu: "View → 3-D → 3-D View",
			Help: "the volume in 3-D (again: one plane); in four panels the fourth is the 3-D view"},
		{Label: "drag (3-D)", Help: "turn the volume as a trackball; Shift+drag pans; wheel zooms; 0 resets"},
		{Key: Key{Name: "N", Char: true}, Action: ActMode3D, Menu: "View → 3-D → Next Mode: Max, Min, Mean, Translucent, Isosurface",
			Help: "3-D: maximum, minimum, mean intensity, translucent, isosurface (opacity and threshold in the contrast panel)"},
		{Key: Key{Name: "X", Char: true}, Action: ActClipPlane, Menu: "View → 3-D → Clip with the Plane",
			Help: "3-D: clip the volume with the plane the 2-D view shows (keys 1–3 and turns move it); the box: View → 3-D → Clip Box… (typed) or Clip Box Handles (drag a face)"},
		{Key: Key{Name: "P", Char: true}, Action: ActProjection, Menu: "View → Projection: Max, Min, Mean, None",
			Help: "projection along the axis normal to the plane (turned: along its normal w): max, min, mean, none"},
		{Key: Key{Name: "W", Char: true}, Action: ActTurnUp, Help: turnHelp[0], Menu: "Go → Turn → Up"},
		{Key: Key{Name: "S", Char: true}, Action: ActTurnDown, Help: turnHelp[0], Menu: "Go → Turn → Down"},
		{Key: Key{Name: "A", Char: true}, Action: ActTurnLeft, Help: turnHelp[1], Menu: "Go → Turn → Left"},
		{Key: Key{Name: "D", Char: true}, Action: ActTurnRight, Help: turnHelp[1], Menu: "Go → Turn → Right"},
		{Key: Key{Name: "Q", Char: true}, Action: ActRollLeft, Help: turnHelp[2], Menu: "Go → Turn → Anticlockwise"},
		{Key: Key{Name: "E", Char: true}, Action: ActRollRight, Help: turnHelp[2], Menu: "Go → Turn → Clockwise"},
		{Key: Key{Name: "I", Char: true}, Action: ActInterp, Menu: "Go → Turn → Trilinear Interpolation",
			Help: "nearest / trilinear sampling of a turned plane (the status bar says which)"},
		{Key: Key{Name: KeyUp}, Action: ActPrevChannel, Menu: "View → Channels → Previous Channel",
			Help: "previous / next channel (its window in the contrast panel)"},
		{Key: Key{Name: KeyDown}, Action: ActNextChannel, Menu: "View → Channels → Next Channel",
			Help: "previous / next channel (its window in the contrast panel)"},
	}
	for d := '1'; d <= '9'; d++ {
		b := Binding{Key: Key{Name: string(d), Mods: ctrl}, Action: ActChannel, Alias: d > '1',
			Help: "show / hide channel 1 … 9 in the composite (else show it alone)"}
		if d == '1' {
			b.Label = "Ctrl+1 … Ctrl+9"
		}
		m = append(m, b)
	}
	m = append(m, []Binding{
		{Key: Key{Name: "M", Char: true}, Action: ActChannelMode, Menu: "View → Channels → Cycle Channel Mode",
			Help: "channels: composite, one in colour, one in gray"},
		{Key: Key{Name: "C", Char: true}, Action: ActContrast, Help: "auto-contrast", Menu: "View → Auto-contrast"},
	}...)
	for i, p := range CTPresets { // the CT window presets, Alt+1 … Alt+8
		b := Binding{Key: Key{Name: string(rune('1' + i)), Mods: alt}, Action: ActPreset, Alias: i > 0,
			Help: "CT window: brain, subdural, stroke, bone, lung, mediastinum, abdomen, liver",
			Menu: "View → CT Window → " + titleCase(p.Name)}
		if i == 0 {
			b.Label = "Alt+1 … Alt+8"
		}
		m = append(m, b)
	}
	return append(m, []Binding{
		{Key: Key{Name: "V", Char: true}, Action: ActLayers, Help: "show / hide the layers over the image (a turned plane's sampled on the same plane)",
			Menu: "View → Show / Hide → Layers"},
		{Key: Key{Name: "B", Char: true}, Action: ActScaleBar, Help: "show / hide the scale bar", Menu: "View → Show / Hide → Scale Bar"},
		{Key: Key{Name: "T", Char: true}, Action: ActTimeStamp, Menu: "View → Show / Hide → Time Stamp",
			Help: "show / hide the time stamp (the plane's position without time points)"},
		{Key: Key{Name: "L", Char: true}, Action: ActPickLabel, Help: "show only the label under the pointer (again: every label)"},
		{Key: Key{Name: "R", Char: true}, Action: ActReload, Help: "reload chunks a store did not hold yet"},
		{Key: Key{Name: "H", Char: true}, Action: ActPanels, Help: "show / hide the panels under and beside the picture",
			Menu: "View → Show / Hide → Panels"},
		{Key: Key{Name: "L", Mods: alt}, Action: ActToolLine, Menu: "Measure → Line",
			Help: "draw a line (its profile and length), a rectangle, an ellipse, a polygon, points; Escape: navigate again"},
		{Key: Key{Name: "R", Mods: alt}, Action: ActToolRect, Menu: "Measure → Rectangle",
			Help: "draw a line (its profile and length), a rectangle, an ellipse, a polygon, points; Escape: navigate again"},
		{Key: Key{Name: "E", Mods: alt}, Action: ActToolEllipse, Menu: "Measure → Ellipse",
			Help: "draw a line (its profile and length), a rectangle, an ellipse, a polygon, points; Escape: navigate again"},
		{Key: Key{Name: "P", Mods: alt}, Action: ActToolPolygon, Menu: "Measure → Polygon",
			Help: "draw a line (its profile and length), a rectangle, an ellipse, a polygon, points; Escape: navigate again"},
		{Key: Key{Name: "O", Mods: alt}, Action: ActToolPoint, Menu: "Measure → Points",
			Help: "draw a line (its profile and length), a rectangle, an ellipse, a polygon, points; Escape: navigate again"},
		{Label: "drag (a tool)", Help: "draw; drag a handle to resize, inside to move; a polygon: click each vertex, click the first or Enter to close"},
		{Key: Key{Name: KeyReturn}, Action: ActFinishROI, Help: "close the polygon being drawn"},
		{Key: Key{Name: KeyDelete}, Action: ActDeleteROI, Help: "remove the vertex or point selected, else the ROI selected",
			Menu: "Measure → Delete"},
		{Key: Key{Name: KeyBackspace}, Action: ActDeleteROI, Alias: true, Help: "remove the vertex or point selected, else the ROI selected"},
		{Key: Key{Name: "M", Mods: ctrl}, Action: ActMeasure, Menu: "Measure → Measure",
			Help: "measure the ROIs at full resolution: the region list and its table"},
		{Key: Key{Name: KeyLeft, Mods: alt}, Action: ActPrevFile, Help: "previous / next file of the list", Menu: "Go → Previous File"},
		{Key: Key{Name: KeyRight, Mods: alt}, Action: ActNextFile, Help: "previous / next file of the list", Menu: "Go → Next File"},
		{Key: Key{Name: KeyHome, Mods: alt}, Action: ActFirstFile, Help: "first / last file of the list", Menu: "Go → First File"},
		{Key: Key{Name: KeyEnd, Mods: alt}, Action: ActLastFile, Help: "first / last file of the list", Menu: "Go → Last File"},
		{Key: Key{Name: KeyPageUp, Mods: alt}, Action: ActPrevSeries, Menu: "Go → Previous Series",
			Help: "previous / next image of a file that holds several (Go → Series)"},
		{Key: Key{Name: KeyPageDown, Mods: alt}, Action: ActNextSeries, Menu: "Go → Next Series",
			Help: "previous / next image of a file that holds several (Go → Series)"},
		{Key: Key{Name: "F", Char: true}, Action: ActStrip, Help: "show / hide the strip of files", Menu: "View → Show / Hide → File Strip"},
		{Key: Key{Name: "G", Char: true}, Action: ActHistogram, Help: "show / hide the histogram", Menu: "View → Show / Hide → Histogram"},
		{Key: Key{Name: KeyO, Mods: ctrl}, Action: ActOpen, Help: "open", Menu: "File → Open…"},
		{Key: Key{Name: KeyS, Mods: ctrl}, Action: ActSave, Help: "save the view as PNG", Menu: "File → Save View as PNG…"},
		{Key: Key{Name: "Q", Mods: ctrl}, Action: ActQuit, Help: "quit", Menu: "File → Quit"},
		{Key: Key{Name: KeyF1}, Action: ActHelp, Help: "this list", Menu: "Help → Keyboard Shortcuts"},
		{Key: Key{Name: "?", Char: true}, Action: ActHelp, Help: "this list"},
	}...)
}()

// KeyMap returns the key map: every key the viewer takes, in the order of
// the list of keys. The slice is the caller's.
func KeyMap() []Binding { return append([]Binding(nil), keyMap...) }

// MenuKey returns the key the menu item at path ("View → Fit") shows, and
// whether the key map gives it one.
func MenuKey(path string) (Key, bool) {
	for _, b := range keyMap {
		if b.Menu == path {
			return b.Key, true
		}
	}
	return Key{}, false
}

// binding finds the binding of k: the one for k as it is, else (without
// Alt) the one for the key alone.
func binding(k Key) (Binding, bool) {
	for _, b := range keyMap {
		if b.Key.Name != "" && b.Key == k {
			return b, true
		}
	}
	if k.Mods.Alt || k.Mods == (Mods{}) {
		return Binding{}, false
	}
	k.Mods = Mods{}
	return binding(k)
}

// shadowedByAlt reports whether Alt with the key that types r is bound
// (the measuring tools): the character typed then is not the binding's.
func shadowedByAlt(r rune) bool {
	_, ok := binding(Key{Name: string(unicode.ToUpper(r)), Mods: alt})
	return ok
}

// runeKey is the key map's name of a typed character: a letter upper case.
func runeKey(r rune) Key { return Key{Name: string(unicode.ToUpper(r)), Char: true} }

// shadowedByCtrl reports whether Ctrl with the key that types r is bound
// (Ctrl+1 … Ctrl+9): the character typed then is not the binding's.
func shadowedByCtrl(r rune) bool {
	for _, b := range keyMap {
		if b.Key.Mods == ctrl && !b.Key.Char && b.Key.Name == string(unicode.ToUpper(r)) {
			return true
		}
	}
	return false
}

// keyNames are the list's names of keys Fyne names otherwise.
var keyNames = map[string]string{
	KeyLeft: "←", KeyRight: "→", KeyUp: "↑", KeyDown: "↓", KeyPageUp: "PageUp", KeyPageDown: "PageDown",
}

// String names the key as the list of keys does: "Alt+←", "Ctrl+O", "?".
func (k Key) String() string {
	name := k.Name
	if n, ok := keyNames[name]; ok {
		name = n
	}
	return k.Mods.prefix() + name
}

// prefix names the modifiers as a key's name starts: "Ctrl+Shift+".
func (m Mods) prefix() string {
	p := ""
	if m.Ctrl {
		p += "Ctrl+"
	}
	if m.Alt {
		p += "Alt+"
	}
	if m.Shift {
		p += "Shift+"
	}
	return p
}

// Shortcut is one line of the key list (F1, README).
type Shortcut struct{ Keys, Does string }

// Shortcuts lists the keys and what they do, a line for each run of
// bindings in the key map with the same description.
func Shortcuts() []Shortcut {
	var out []Shortcut
	var keys []string
	for i, b := range keyMap {
		if !b.Alias {
			if b.Label != "" {
				keys = append(keys, b.Label)
			} else {
				keys = append(keys, b.Key.String())
			}
		}
		if i+1 == len(keyMap) || keyMap[i+1].Help != b.Help {
			out = append(out, Shortcut{Keys: strings.Join(keys, " "), Does: b.Help})
			keys = nil
		}
	}
	return out
}

// titleCase writes a preset's name as a menu item names it ("Brain").
func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
