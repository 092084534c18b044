package ui

import (
	"image/color"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"vastview/loader"
	"vastview/loader/demo"
	"vastview/render"
	"vastview/session"
)

// channels is a demo volume of three channels (the demo's time points)
// that its file names, without colours.
type channels struct {
	*demo.Source
	meta loader.Meta
}

func (s *channels) Meta() *loader.Meta { return &s.meta }

func threeChannels() *channels {
	d := demo.NewSized(3, 3, 64, 96)
	src := &channels{Source: d, meta: *d.Meta()}
	src.meta.Axes = "CZYX"
	src.meta.Units = []string{"", "micrometer", "micrometer", "micrometer"}
	src.meta.Synthetic = false
	src.meta.Channels = []loader.Channel{{Label: "DAPI"}, {Label: "GFP"}, {}}
	return src
}

// newChannelViewer is newTestViewer on three channels, shown once every
// channel's window is chosen.
func newChannelViewer(t *testing.T) *Viewer {
	t.Helper()
	v := newTestViewer(t, nil)
	onUI(func() { v.open(threeChannels(), "/data/cells.ome.tif") })
	waitShown(t, v, func(f *session.Frame) bool {
		if !f.Info.Complete || len(f.View.Channels) != 3 {
			return false
		}
		for _, ch := range f.View.Channels {
			if ch.Lo == ch.Hi {
				return false
			}
		}
		return true
	})
	waitPanel(t, v, "three rows", func() bool { return v.chans.box.Visible() && len(v.chans.rows) == 3 })
	return v
}

// waitPanel waits until ok, run on the UI goroutine, holds.
func waitPanel(t *testing.T, v *Viewer, what string, ok func() bool) {
	t.Helper()
	waitFor(t, what, func() (good, _ bool) {
		onUI(func() { good = ok() })
		return good, good
	})
}

// click taps the canvas where o is, as the pointer does: whatever is
// topmost there gets the tap.
func click(v *Viewer, o fyne.CanvasObject) {
	onUI(func() {
		p := fyne.CurrentApp().Driver().AbsolutePositionForObject(o)
		test.TapCanvas(v.win.Canvas(), p.Add(fyne.NewPos(o.Size().Width/2, o.Size().Height/2)))
	})
}

// overlayObjects lists the objects of the top overlay (a dialog), widgets'
// parts too.
func overlayObjects(v *Viewer) []fyne.CanvasObject {
	var out []fyne.CanvasObject
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		out = append(out, o)
		switch w := o.(type) {
		case *fyne.Container:
			for _, c := range w.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(w).Objects() {
				walk(c)
			}
		}
	}
	if top := v.win.Canvas().Overlays().Top(); top != nil {
		walk(top)
	}
	return out
}

// overlayButton is the dialog's button labelled text, or nil.
func overlayButton(v *Viewer, text string) *widget.Button {
	for _, o := range overlayObjects(v) {
		if b, ok := o.(*widget.Button); ok && b.Text == text {
			return b
		}
	}
	return nil
}

func sessionChannels(v *Viewer) (session.ChannelMode, []session.ChannelInfo) { return v.s.Channels() }

func TestChannelPanelListsTheChannels(t *testing.T) {
	v := newChannelViewer(t)
	onUI(func() {
		for c, want := range []string{"DAPI", "GFP", "C3"} {
			r := v.chans.rows[c]
			if r.name.Text != want || !r.check.Checked || r.check.Disabled() {
				t.Errorf("row %d: %q, checked %v, disabled %v", c, r.name.Text, r.check.Checked, r.check.Disabled())
			}
			if want := []string{"#00ff00", "#ff00ff", "#00ffff"}[c]; r.swatch.colormap != want || r.swatch.colour(1) != colourOf(want) {
				t.Errorf("row %d: swatch %s %v, want %s", c, r.swatch.colormap, r.swatch.colour(1), want)
			}
			if r.current != (c == 0) {
				t.Errorf("row %d current %v", c, r.current)
			}
		}
		if v.chans.modes[0].Importance != widget.HighImportance {
			t.Error("Composite is not shown as the mode")
		}
		if !v.chans.box.Visible() || v.chans.box.Size().Width == 0 || v.pv.Size().Width+v.chans.box.Size().Width > v.win.Canvas().Size().Width {
			t.Errorf("panel %v beside a picture %v in a window %v", v.chans.box.Size(), v.pv.Size(), v.win.Canvas().Size())
		}
	})
}

// colourOf is the colour written #rrggbb, opaque.
func colourOf(hex string) color.NRGBA {
	c, _ := render.ParseColor(hex)
	return color.NRGBA{c[0], c[1], c[2], 0xff}
}

func TestChannelCheckBoxHidesTheChannel(t *testing.T) {
	v := newChannelViewer(t)
	var check *viewCheck
	onUI(func() { check = v.chans.rows[1].check })
	click(v, check)
	waitShown(t, v, func(f *session.Frame) bool { return f.Info.Complete && len(f.View.Channels) == 2 })
	if _, chans := sessionChannels(v); chans[1].Visible || !chans[0].Visible || !chans[2].Visible {
		t.Errorf("after clearing GFP's box: %+v", chans)
	}
	onUI(func() {
		if check.Checked {
			t.Error("the box is still checked")
		}
		if v.win.Canvas().Focused() != v.pv {
			t.Errorf("the keyboard is %T's, not the picture's", v.win.Canvas().Focused())
		}
	})
	click(v, check)
	waitShown(t, v, func(f *session.Frame) bool { return f.Info.Complete && len(f.View.Channels) == 3 })
}

// TestChannelKeysShowInThePanel presses the channel keys over the
// picture: the panel follows.
func TestChannelKeysShowInThePanel(t *testing.T) {
	v := newChannelViewer(t)
	onUI(func() {
		v.pv.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.Key3, Modifier: fyne.KeyModifierControl})
	})
	waitPanel(t, v, "C3's box cleared", func() bool { return !v.chans.rows[2].check.Checked })
	typeKey(v, fyne.KeyDown)
	waitPanel(t, v, "GFP current", func() bool { return v.chans.rows[1].current && !v.chans.rows[0].current })
	onUI(func() {
		if !v.chans.rows[1].name.TextStyle.Bold || v.chans.rows[0].name.TextStyle.Bold {
			t.Error("the current channel's name is not the bold one")
		}
	})
	onUI(func() { v.pv.TypedRune('m') })
	waitPanel(t, v, "Color mode", func() bool { return v.chans.modes[1].Importance == widget.HighImportance })
	onUI(func() {
		for c, r := range v.chans.rows {
			if !r.check.Disabled() {
				t.Errorf("row %d's box counts in Color mode", c)
			}
			if r.swatch.dim != (c != 1) || (r.name.Importance == widget.LowImportance) != (c != 1) {
				t.Errorf("row %d: dimmed %v, %v; only GFP is drawn", c, r.swatch.dim, r.name.Importance)
			}
		}
		if !v.chanMenu.modes[1].Checked || v.chanMenu.modes[0].Checked {
			t.Error("the View menu does not check Channels: Color")
		}
	})
	// Grayscale: the toolbar shows the gray the picture is drawn in.
	onUI(func() { v.pv.TypedRune('m') })
	waitPanel(t, v, "Grayscale mode", func() bool { return v.chans.modes[2].Importance == widget.HighImportance })
	waitPanel(t, v, "the toolbar's colormap gray", func() bool { return v.tools.cmap.Selected == "gray" })
}

// TestChannelRowMakesItCurrent clicks a channel's name: it becomes the
// current channel, and the contrast panel shows its window.
func TestChannelRowMakesItCurrent(t *testing.T) {
	v := newChannelViewer(t)
	var name *widget.Label
	onUI(func() { name = v.chans.rows[2].name })
	click(v, name)
	waitShown(t, v, func(f *session.Frame) bool { return f.View.C == 2 && f.Info.Complete })
	_, chans := sessionChannels(v)
	waitPanel(t, v, "C3's window in the contrast panel", func() bool {
		return v.chans.rows[2].current && v.contrast.panel.lo == chans[2].Lo && v.contrast.panel.hi == chans[2].Hi
	})
	onUI(func() {
		if v.win.Canvas().Focused() != v.pv {
			t.Errorf("the keyboard is %T's, not the picture's", v.win.Canvas().Focused())
		}
	})
}

// TestChannelColourFromThePalette clicks a swatch and picks yellow.
func TestChannelColourFromThePalette(t *testing.T) {
	v := newChannelViewer(t)
	var sw *swatch
	onUI(func() { sw = v.chans.rows[2].swatch })
	click(v, sw)
	var yellow *widget.Button
	onUI(func() { yellow = overlayButton(v, "yellow") })
	if yellow == nil {
		t.Fatal("no yellow in the colour chooser")
	}
	onUI(func() { test.Tap(yellow) })
	waitShown(t, v, func(f *session.Frame) bool {
		return f.Info.Complete && len(f.View.Channels) == 3 && f.View.Channels[2].Colormap == "#ffff00"
	})
	waitPanel(t, v, "a yellow swatch", func() bool { return sw.colormap == "#ffff00" && !v.modal() })
	if _, chans := sessionChannels(v); chans[2].Colormap != "#ffff00" || chans[0].Colormap != "#00ff00" {
		t.Errorf("after picking yellow: %+v", chans)
	}
}

// TestChannelColourWrittenWrong writes a colour that is not one: the
// chooser says so and stays, and the channel keeps its colour; a good one
// then takes.
func TestChannelColourWrittenWrong(t *testing.T) {
	v := newChannelViewer(t)
	onUI(func() { v.chooseColour(0) })
	var entry *escEntry
	onUI(func() {
		entry, _ = v.win.Canvas().Focused().(*escEntry)
		if entry == nil {
			return
		}
		if entry.Text != "#00ff00" {
			t.Errorf("the field offers %q, not the channel's colour", entry.Text)
		}
		entry.SetText("#12345")
		entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	})
	if entry == nil {
		t.Fatal("the colour field does not have the keyboard")
	}
	onUI(func() {
		if !v.modal() {
			t.Fatal("a bad colour closed the chooser")
		}
		text := dialogText(v)
		if !strings.Contains(text, `"#12345" is not a colour`) || !strings.Contains(text, "#rrggbb") {
			t.Errorf("the chooser says %q", text)
		}
	})
	if _, chans := sessionChannels(v); chans[0].Colormap != "#00ff00" {
		t.Errorf("a bad colour changed the channel to %s", chans[0].Colormap)
	}
	onUI(func() {
		entry.SetText("FF8000")
		test.Tap(overlayButton(v, "Set"))
	})
	waitShown(t, v, func(f *session.Frame) bool {
		return len(f.View.Channels) == 3 && f.View.Channels[0].Colormap == "#ff8000"
	})
}

// TestNoChannelPanelForOneChannel opens data of one channel: no panel,
// and the View menu's channel items are disabled.
func TestNoChannelPanelForOneChannel(t *testing.T) {
	v := newTestViewer(t, nil)
	onUI(func() {
		if v.chans.box.Visible() {
			t.Error("a channel panel for data of one channel")
		}
		for _, it := range append(v.chanMenu.modes, v.chanMenu.next, v.chanMenu.prev, v.chanMenu.cycle) {
			if !it.Disabled {
				t.Errorf("menu item %q enabled", it.Label)
			}
		}
	})
	// Several channels, then one again.
	onUI(func() { v.open(threeChannels(), "/data/cells.ome.tif") })
	waitPanel(t, v, "the panel", func() bool { return v.chans.box.Visible() && !v.chanMenu.next.Disabled })
	onUI(func() { v.open(stored{demo.NewSized(1, 3, 16, 24)}, "/data/one.tif") })
	waitPanel(t, v, "no panel", func() bool { return !v.chans.box.Visible() && v.chanMenu.next.Disabled })
}

func TestChannelPanelHidesWithH(t *testing.T) {
	v := newChannelViewer(t)
	var w float32
	onUI(func() { w = v.pv.Size().Width })
	onUI(func() { v.pv.TypedRune('h') })
	onUI(func() {
		if v.chans.box.Visible() || v.pv.Size().Width <= w {
			t.Errorf("after H: panel shown %v, picture %g wide (was %g)", v.chans.box.Visible(), v.pv.Size().Width, w)
		}
		v.pv.TypedRune('h')
		if !v.chans.box.Visible() {
			t.Error("a second H did not bring the channel panel back")
		}
	})
}

// TestChannelMenuItems uses the View menu's Channels submenu: the mode and the next
// channel, with the keys shown beside them.
func TestChannelMenuItems(t *testing.T) {
	v := newChannelViewer(t)
	onUI(func() {
		keys := map[string]fyne.KeyName{"Cycle Channel Mode": fyne.KeyM, "Next Channel": fyne.KeyDown, "Previous Channel": fyne.KeyUp}
		for _, m := range v.win.MainMenu().Items {
			for _, sub := range m.Items {
				if sub.ChildMenu == nil {
					continue
				}
				for _, it := range sub.ChildMenu.Items {
					if k, ok := keys[it.Label]; ok {
						if sc, _ := it.Shortcut.(fyne.KeyboardShortcut); sc == nil || sc.Key() != k || m.Label != "View" || sub.Label != "Channels" {
							t.Errorf("%s → %s → %q has shortcut %v", m.Label, sub.Label, it.Label, it.Shortcut)
						}
						delete(keys, it.Label)
					}
				}
			}
		}
		if len(keys) > 0 {
			t.Errorf("no menu items %v", keys)
		}
		v.chanMenu.modes[2].Action()
	})
	waitPanel(t, v, "Grayscale mode", func() bool { return v.chans.modes[2].Importance == widget.HighImportance })
	waitShown(t, v, func(f *session.Frame) bool { return f.View.Colormap == "gray" && len(f.View.Channels) == 0 })
	onUI(func() { v.chanMenu.next.Action() })
	waitPanel(t, v, "GFP current", func() bool { return v.chans.rows[1].current })
	onUI(func() { v.chanMenu.prev.Action(); v.chanMenu.prev.Action() })
	waitPanel(t, v, "C3 current", func() bool { return v.chans.rows[2].current })
}

// TestSwatchShowsTheColourDrawn checks the swatch's colours: a ramp's
// colour, written or named, in full; another colormap from dark to bright.
func TestSwatchShowsTheColourDrawn(t *testing.T) {
	test.NewTempApp(t)
	s := newSwatch(nil)
	for name, want := range map[string]string{"#FF8000": "#ff8000", "green": "#00ff00"} {
		s.setColormap(name)
		if !s.solid || s.colour(0) != colourOf(want) || s.colour(1) != colourOf(want) {
			t.Errorf("swatch of %s: %v … %v, want %s", name, s.colour(0), s.colour(1), want)
		}
	}
	s.setColormap("fire")
	if s.solid || s.colour(0) != colourOf("#000000") || s.colour(1) != colourOf("#ffffff") {
		t.Errorf("swatch of fire: %v … %v, want black to white", s.colour(0), s.colour(1))
	}
	s.setDim(true)
	if s.colour(1).A == 0xff {
		t.Error("a dimmed swatch is opaque")
	}
}
