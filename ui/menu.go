package ui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"

	"vastview/loader"
	"vastview/render"
	"vastview/session"
)

// key is a menu item's shortcut as shown beside it.
func key(k fyne.KeyName, mod fyne.KeyModifier) fyne.Shortcut {
	return &desktop.CustomShortcut{KeyName: k, Modifier: mod}
}

// item is a menu item with the key that does the same.
func item(label string, sc fyne.Shortcut, f func()) *fyne.MenuItem {
	it := fyne.NewMenuItem(label, f)
	it.Shortcut = sc
	return it
}

func (v *Viewer) menu() *fyne.MainMenu {
	v.series = fyne.NewMenuItem("Series", nil)
	v.syncSeries()
	recent := fyne.NewMenuItem("Open Recent", nil)
	for _, p := range v.s.Recent() {
		recent.ChildMenu = appendItem(recent.ChildMenu, fyne.NewMenuItem(loader.Redact(p), func() { v.s.Open(p) }))
	}
	if recent.ChildMenu == nil {
		recent.Disabled = true
	}
	ctrl := fyne.KeyModifierShortcutDefault
	file := fyne.NewMenu("File",
		item("Open…", key(fyne.KeyO, ctrl), v.openDialog),
		fyne.NewMenuItem("Open Folder as Stack…", func() { v.openFolderDialog(true) }),
		fyne.NewMenuItem("Open Folder as List of Files…", func() { v.openFolderDialog(false) }),
		fyne.NewMenuItem("Open URL…", v.openURLDialog),
		recent,
		fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem("Add Layer…", v.addLayerDialog(session.LayerAuto)),
		fyne.NewMenuItem("Add Label Layer…", v.addLayerDialog(session.LayerLabels)),
		fyne.NewMenuItem("Add Layer from Folder…", v.addLayerFolderDialog),
		fyne.NewMenuItemSeparator(),
		item("Save View as PNG…", key(fyne.KeyS, ctrl), v.saveDialog),
		fyne.NewMenuItem("Export Pyramid…", v.exportDialog),
		fyne.NewMenuItem("Export Movie…", v.movieDialog),
		fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem("Preferences…", v.prefsDialog),
		fyne.NewMenuItemSeparator(),
		item("Quit", key(fyne.KeyQ, ctrl), func() { v.quit("Ctrl+Q") }),
	)
	planes := make([]*fyne.MenuItem, 3)
	for i, name := range []string{"XY", "XZ", "YZ"} {
		o := render.Orientation(i)
		planes[i] = item(name, key(fyne.KeyName(rune('1'+i)), 0), func() { v.s.SetOrientation(o) })
	}
	four := v.toggleItem("Four Panels", key(fyne.Key4, 0), func() bool { return v.s.Layout() == session.FourPanels }, func(on bool) {
		v.s.SetLayout(map[bool]session.Layout{true: session.FourPanels, false: session.SingleView}[on])
	})
	// The channels' items in a submenu, high in the menu: the View menu
	// and the submenu fit the window, unscrolled, every key beside its
	// item in sight.
	chans := fyne.NewMenuItem("Channels", nil)
	chans.ChildMenu = fyne.NewMenu("", v.channelItems()...)
	view := fyne.NewMenu("View",
		planes[0], planes[1], planes[2], four,
		v.toggleItem("Link Panel Zoom", nil, v.s.LinkedZoom, v.s.SetLinkedZoom),
		item("Projection: Max, Min, Mean, None", key(fyne.KeyP, 0), v.s.CycleProjection),
		fyne.NewMenuItemSeparator(),
		item("Fit", key(fyne.Key0, 0), v.s.Fit),
		item("Zoom In", key(fyne.KeyPlus, 0), func() { v.s.Rune('+') }),
		item("Zoom Out", key(fyne.KeyMinus, 0), func() { v.s.Rune('-') }),
		item("Auto-contrast", key(fyne.KeyC, 0), v.s.AutoContrast),
		chans,
		fyne.NewMenuItemSeparator(),
		item("Play / Pause", key(fyne.KeySpace, 0), v.s.TogglePlay),
		item("Show / Hide Panels", key(fyne.KeyH, 0), v.togglePanels),
		item("Show / Hide File Strip", key(fyne.KeyF, 0), func() { v.strip.toggle() }),
		item("Show / Hide Histogram", key(fyne.KeyG, 0), v.toggleHistogram),
		fyne.NewMenuItem("Linear / Log Histogram", v.contrast.toggleLinear),
		fyne.NewMenuItemSeparator(),
	)
	view.Items = append(view.Items, v.toggleItem("Scale Bar", key(fyne.KeyB, 0), v.s.ScaleBar, v.s.SetScaleBar),
		v.toggleItem("Time Stamp", key(fyne.KeyT, 0), v.s.TimeStamp, v.s.SetTimeStamp),
		item("Show / Hide Layers", key(fyne.KeyV, 0), v.s.ToggleLayers))
	keep := v.toggleItem("Keep View Across Files", nil, v.s.KeepView, v.s.SetKeepView)
	// The keys reach the menu first: its items press them for the view.
	alt := func(k fyne.KeyName) func() {
		return func() { v.command(v.s.PressWith(string(k), session.Mods{Alt: true})) }
	}
	files := fyne.NewMenu("Go",
		item("Next File", key(fyne.KeyRight, fyne.KeyModifierAlt), alt(fyne.KeyRight)),
		item("Previous File", key(fyne.KeyLeft, fyne.KeyModifierAlt), alt(fyne.KeyLeft)),
		item("First File", key(fyne.KeyHome, fyne.KeyModifierAlt), alt(fyne.KeyHome)),
		item("Last File", key(fyne.KeyEnd, fyne.KeyModifierAlt), alt(fyne.KeyEnd)),
		fyne.NewMenuItemSeparator(),
		item("Next Series", key(fyne.KeyPageDown, fyne.KeyModifierAlt), alt(fyne.KeyPageDown)),
		item("Previous Series", key(fyne.KeyPageUp, fyne.KeyModifierAlt), alt(fyne.KeyPageUp)),
		v.series,
		fyne.NewMenuItemSeparator(),
		keep,
	)
	help := fyne.NewMenu("Help",
		item("Keyboard Shortcuts", key(fyne.KeyF1, 0), v.showShortcuts),
		fyne.NewMenuItem("About", func() {
			v.showDialog(dialog.NewInformation("About vastview", "vastview views image volumes and movies too big to load.", v.win))
		}),
	)
	return fyne.NewMainMenu(file, view, files, help)
}

// syncSeries lists the images of the file shown in the Go menu's Series
// item, the one shown checked; it is disabled for a file of one image. It
// reports whether the menu changed.
func (v *Viewer) syncSeries() bool {
	list, cur := v.s.Series()
	changed := v.series.ChildMenu != nil || len(list) > 0
	v.series.ChildMenu, v.series.Disabled = nil, len(list) == 0
	for i, s := range list {
		label := "#" + s.Selector
		if s.Name != "" {
			label += "  " + s.Name
		}
		label += fmt.Sprintf("  (%s %s %s)", s.Axes, joinShape(s.Shape), s.DType)
		it := fyne.NewMenuItem(label, func() { v.s.ShowSeries(i) })
		it.Checked = i == cur
		v.series.ChildMenu = appendItem(v.series.ChildMenu, it)
	}
	return changed
}

// joinShape writes a shape as 3×128×128.
func joinShape(shape []int) string {
	s := make([]string, len(shape))
	for i, n := range shape {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, "×")
}

// toggleItem is a menu item checked while get reports true, with the key
// that does the same (sc, nil for none); choosing it sets the opposite.
// Its check follows get (see syncToggles).
func (v *Viewer) toggleItem(label string, sc fyne.Shortcut, get func() bool, set func(bool)) *fyne.MenuItem {
	it := item(label, sc, nil)
	it.Checked = get()
	v.toggles = append(v.toggles, toggle{it, get})
	it.Action = func() {
		set(!get())
		it.Checked = get()
		v.win.MainMenu().Refresh()
	}
	return it
}

// syncToggles checks the menu's toggles as the session has them (a key
// may have changed one).
func (v *Viewer) syncToggles() {
	changed := false
	for _, t := range v.toggles {
		if on := t.get(); t.it.Checked != on {
			t.it.Checked, changed = on, true
		}
	}
	if m := v.win.MainMenu(); changed && m != nil {
		m.Refresh()
	}
}

// toggle is a menu item checked while get reports true.
type toggle struct {
	it  *fyne.MenuItem
	get func() bool
}

func appendItem(m *fyne.Menu, it *fyne.MenuItem) *fyne.Menu {
	if m == nil {
		return fyne.NewMenu("", it)
	}
	m.Items = append(m.Items, it)
	return m
}

// channelMenuItems are the View menu's items for the channels of
// multi-channel data.
type channelMenuItems struct {
	modes      []*fyne.MenuItem // one per channel mode, the one in use checked
	next, prev *fyne.MenuItem
	cycle      *fyne.MenuItem
}

// channelItems makes the View menu's channel items: the modes, the key
// that cycles them, and the next and previous channel, as the keys do.
func (v *Viewer) channelItems() []*fyne.MenuItem {
	m := &v.chanMenu
	m.modes = nil
	for _, cm := range channelModes {
		m.modes = append(m.modes, fyne.NewMenuItem("Channels: "+cm.name, func() { v.s.SetChannelMode(cm.mode) }))
	}
	m.cycle = item("Cycle Channel Mode", key(fyne.KeyM, 0), v.s.CycleChannelMode)
	m.next = item("Next Channel", key(fyne.KeyDown, 0), func() { v.s.StepChannel(1) })
	m.prev = item("Previous Channel", key(fyne.KeyUp, 0), func() { v.s.StepChannel(-1) })
	mode, infos := v.s.Channels()
	v.setChannelItems(mode, len(infos) > 0)
	return append(slices.Clone(m.modes), m.cycle, m.next, m.prev)
}

// syncChannelMenu shows the channel mode in the View menu, its channel
// items enabled for data of several channels only.
func (v *Viewer) syncChannelMenu(mode session.ChannelMode, multi bool) {
	if v.setChannelItems(mode, multi) {
		if mm := v.win.MainMenu(); mm != nil {
			mm.Refresh()
		}
	}
}

// setChannelItems sets the channel items; it reports whether any changed.
func (v *Viewer) setChannelItems(mode session.ChannelMode, multi bool) bool {
	m := &v.chanMenu
	changed := false
	set := func(it *fyne.MenuItem, checked bool) {
		if it.Checked != checked || it.Disabled == multi {
			it.Checked, it.Disabled, changed = checked, !multi, true
		}
	}
	for i, it := range m.modes {
		set(it, multi && channelModes[i].mode == mode)
	}
	for _, it := range []*fyne.MenuItem{m.cycle, m.next, m.prev} {
		set(it, false)
	}
	return changed
}
