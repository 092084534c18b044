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

// menuKey is the shortcut the key map gives the menu item at path
// ("View → Fit"), nil for none.
func menuKey(path string) fyne.Shortcut {
	k, ok := session.MenuKey(path)
	if !ok {
		return nil
	}
	var mod fyne.KeyModifier
	if k.Mods.Ctrl {
		mod |= fyne.KeyModifierShortcutDefault
	}
	if k.Mods.Alt {
		mod |= fyne.KeyModifierAlt
	}
	if k.Mods.Shift {
		mod |= fyne.KeyModifierShift
	}
	return &desktop.CustomShortcut{KeyName: fyne.KeyName(k.Name), Modifier: mod}
}

// item is the menu item at path ("View → Fit": the item's label last),
// with the key that does the same as the key map gives it.
func item(path string, f func()) *fyne.MenuItem {
	it := fyne.NewMenuItem(path[strings.LastIndex(path, " → ")+len(" → "):], f)
	it.Shortcut = menuKey(path)
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
	file := fyne.NewMenu("File",
		item("File → Open…", v.openDialog),
		fyne.NewMenuItem("Open Folder as Stack…", func() { v.openFolderDialog(true) }),
		fyne.NewMenuItem("Open Folder as List of Files…", func() { v.openFolderDialog(false) }),
		fyne.NewMenuItem("Open URL…", v.openURLDialog),
		recent,
		fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem("Add Layer…", v.addLayerDialog(session.LayerAuto)),
		fyne.NewMenuItem("Add Label Layer…", v.addLayerDialog(session.LayerLabels)),
		fyne.NewMenuItem("Add Layer from Folder…", v.addLayerFolderDialog),
		fyne.NewMenuItemSeparator(),
		item("File → Save View as PNG…", v.saveDialog),
		fyne.NewMenuItem("Export Pyramid…", v.exportDialog),
		fyne.NewMenuItem("Export Movie…", v.movieDialog),
		fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem("Preferences…", v.prefsDialog),
		fyne.NewMenuItemSeparator(),
		item("File → Quit", func() { v.quit("Ctrl+Q") }),
	)
	planes := make([]*fyne.MenuItem, 3)
	for i, name := range []string{"XY", "XZ", "YZ"} {
		o := render.Orientation(i)
		planes[i] = item("View → "+name, func() { v.s.SetOrientation(o) })
	}
	four := v.toggleItem("View → Four Panels", func() bool { return v.s.Layout() == session.FourPanels }, func(on bool) {
		v.s.SetLayout(map[bool]session.Layout{true: session.FourPanels, false: session.SingleView}[on])
	})
	// The channels' items in a submenu, high in the menu: the View menu
	// and the submenu fit the window, unscrolled, every key beside its
	// item in sight.
	chans := fyne.NewMenuItem("Channels", nil)
	chans.ChildMenu = fyne.NewMenu("", v.channelItems()...)
	// Turning the plane (in the Go menu: the View menu fills the window's
	// height): the keys' items press them (Shift for fine steps).
	turn := fyne.NewMenuItem("Turn", nil)
	turnItem := func(name string, r rune) *fyne.MenuItem {
		return item("Go → Turn → "+name, func() { v.s.Rune(r) })
	}
	turn.ChildMenu = fyne.NewMenu("", turnItem("Up", 'w'), turnItem("Down", 's'), turnItem("Left", 'a'),
		turnItem("Right", 'd'), turnItem("Anticlockwise", 'q'), turnItem("Clockwise", 'e'),
		v.toggleItem("Go → Turn → Trilinear Interpolation", func() bool { return v.s.View().Linear },
			func(bool) { v.s.ToggleLinear() }))
	// What is shown beside and over the picture, in a submenu: the View
	// menu fills a window's height.
	show := fyne.NewMenuItem("Show / Hide", nil)
	show.ChildMenu = fyne.NewMenu("",
		item("View → Show / Hide → Panels", v.togglePanels),
		item("View → Show / Hide → File Strip", func() { v.strip.toggle() }),
		item("View → Show / Hide → Histogram", v.toggleHistogram),
		fyne.NewMenuItem("Linear / Log Histogram", v.contrast.toggleLinear),
		v.toggleItem("View → Show / Hide → Scale Bar", v.s.ScaleBar, v.s.SetScaleBar),
		v.toggleItem("View → Show / Hide → Time Stamp", v.s.TimeStamp, v.s.SetTimeStamp),
		item("View → Show / Hide → Layers", v.s.ToggleLayers))
	view := fyne.NewMenu("View", planes[0], planes[1], planes[2], four)
	view.Items = append(view.Items, v.view3dItems()...)
	view.Items = append(view.Items,
		v.toggleItem("View → Link Panel Zoom", v.s.LinkedZoom, v.s.SetLinkedZoom),
		item("View → Projection: Max, Min, Mean, None", v.s.CycleProjection),
		fyne.NewMenuItemSeparator(),
		item("View → Fit", v.s.Fit),
		item("View → Zoom In", func() { v.s.Rune('+') }),
		item("View → Zoom Out", func() { v.s.Rune('-') }),
		item("View → Auto-contrast", v.s.AutoContrast),
		chans,
		fyne.NewMenuItemSeparator(),
		item("View → Play / Pause", v.s.TogglePlay),
		show,
		fyne.NewMenuItemSeparator(),
	)
	view.Items = append(view.Items, v.anatomyItems()...)
	keep := v.toggleItem("Go → Keep View Across Files", v.s.KeepView, v.s.SetKeepView)
	// The keys reach the menu first: its items press them for the view.
	alt := func(k fyne.KeyName) func() {
		return func() { v.command(v.s.PressWith(string(k), session.Mods{Alt: true})) }
	}
	files := fyne.NewMenu("Go",
		item("Go → Next File", alt(fyne.KeyRight)),
		item("Go → Previous File", alt(fyne.KeyLeft)),
		item("Go → First File", alt(fyne.KeyHome)),
		item("Go → Last File", alt(fyne.KeyEnd)),
		fyne.NewMenuItemSeparator(),
		item("Go → Next Series", alt(fyne.KeyPageDown)),
		item("Go → Previous Series", alt(fyne.KeyPageUp)),
		v.series,
		fyne.NewMenuItemSeparator(),
		turn,
		fyne.NewMenuItemSeparator(),
		keep,
	)
	help := fyne.NewMenu("Help",
		item("Help → Keyboard Shortcuts", v.showShortcuts),
		fyne.NewMenuItem("About", func() {
			v.showDialog(dialog.NewInformation("About vastview", "vastview views image volumes and movies too big to load.", v.win))
		}),
	)
	return fyne.NewMainMenu(file, view, files, v.measureMenu(), help)
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

// toggleItem is the menu item at path (as item has it) checked while get
// reports true; choosing it sets the opposite. Its check follows get (see
// syncToggles).
func (v *Viewer) toggleItem(path string, get func() bool, set func(bool)) *fyne.MenuItem {
	it := item(path, nil)
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
	m.cycle = item("View → Channels → Cycle Channel Mode", v.s.CycleChannelMode)
	m.next = item("View → Channels → Next Channel", func() { v.s.StepChannel(1) })
	m.prev = item("View → Channels → Previous Channel", func() { v.s.StepChannel(-1) })
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

// anatomyItems are the View menu's items for medical volumes: the
// display convention (radiological or neurological, remembered), World
// Space for an oblique volume, and the CT window presets.
func (v *Viewer) anatomyItems() []*fyne.MenuItem {
	conv := fyne.NewMenuItem("Display Convention", nil)
	radio := func(name string, c session.Convention) *fyne.MenuItem {
		return v.toggleItem("View → Display Convention → "+name, func() bool { return v.s.Convention() == c },
			func(bool) { v.s.SetConvention(c) })
	}
	conv.ChildMenu = fyne.NewMenu("", radio("Radiological (Right at Left)", session.Radiological),
		radio("Neurological (Right at Right)", session.Neurological))
	presets := fyne.NewMenuItem("CT Window", nil)
	var items []*fyne.MenuItem
	for i, p := range session.CTPresets {
		label := strings.ToUpper(p.Name[:1]) + p.Name[1:]
		it := item("View → CT Window → "+label, func() { v.s.ApplyPreset(i) })
		items = append(items, it)
	}
	presets.ChildMenu = fyne.NewMenu("", items...)
	return []*fyne.MenuItem{conv, v.toggleItem("View → World Space", v.s.WorldSpace, v.s.SetWorldSpace), presets}
}
