package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vastview/base/testtool"
	"vastview/loader"
	"vastview/loader/demo"
	_ "vastview/loader/formats" // the open dialog lists the files every format reads
	"vastview/prefs"
	"vastview/render"
	"vastview/session"
)

// uiRan is signalled each time the test's UI goroutine has run a function.
var uiRan = make(chan struct{}, 1)

// uiDo and uiDoAndWait run a function on the test's UI goroutine (see
// TestMain); the viewers of the tests are given uiDo as Options.Do.
var uiDo, uiDoAndWait func(func())

// TestMain runs the functions meant for the UI goroutine on one goroutine,
// in order, as the real driver does (the test driver would run them on
// whichever goroutine asks).
func TestMain(m *testing.M) {
	queue := make(chan func(), 1<<16)
	go func() {
		for f := range queue {
			f()
			select {
			case uiRan <- struct{}{}:
			default:
			}
		}
	}()
	uiDo = func(f func()) { queue <- f }
	uiDoAndWait = func(f func()) {
		done := make(chan struct{})
		queue <- func() { f(); close(done) }
		<-done
	}
	os.Exit(m.Run())
}

// stored is a demo volume that says it is stored, as a file's data.
type stored struct{ *demo.Source }

func (s stored) Meta() *loader.Meta {
	m := *s.Source.Meta()
	m.Synthetic = false
	return &m
}

// newTestViewer opens a small procedural volume (2×9×64×96) in a headless
// window of 600×500.
func newTestViewer(t *testing.T, open func(context.Context, string) (loader.Source, error)) *Viewer {
	t.Helper()
	a := test.NewTempApp(t)
	var v *Viewer
	uiDoAndWait(func() {
		v = newViewer(a, Options{Session: session.Options{Open: open, DiskRoot: "-"}, Do: uiDo})
		v.win.Resize(fyne.NewSize(600, 500))
		v.open(stored{demo.NewSized(2, 9, 64, 96)}, "/data/volume.tif")
		v.win.Show()
		v.focusView()
	})
	t.Cleanup(func() {
		uiDoAndWait(func() { v.win.Close() })
		v.s.Close()
	})
	waitShown(t, v, func(f *session.Frame) bool { return f.Info.Complete })
	return v
}

// waitShown waits until the frame on screen satisfies ok, which runs on
// the UI goroutine.
func waitShown(t *testing.T, v *Viewer, ok func(*session.Frame) bool) *session.Frame {
	t.Helper()
	return waitFor(t, "a frame", func() (f *session.Frame, good bool) {
		uiDoAndWait(func() { f = v.shown; good = f != nil && ok(f) })
		return f, good
	})
}

// waitFor checks cond each time the UI goroutine has done something, until
// it holds, failing after a minute.
func waitFor[T any](t *testing.T, what string, cond func() (T, bool)) T {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		v, ok := cond()
		if ok {
			return v
		}
		select {
		case <-uiRan:
		case <-deadline:
			t.Fatalf("no %s; last %+v", what, v)
		}
	}
}

// onUI runs f on the UI goroutine.
func onUI(f func()) { uiDoAndWait(f) }

// typeKey types k as the driver does: to the focused widget, or to the
// canvas when none has the focus (as while a dialog shows).
func typeKey(v *Viewer, k fyne.KeyName) {
	onUI(func() {
		c := v.win.Canvas()
		if f := c.Focused(); f != nil {
			f.TypedKey(&fyne.KeyEvent{Name: k})
		} else if h := c.OnTypedKey(); h != nil {
			h(&fyne.KeyEvent{Name: k})
		}
	})
}

// choose picks option from a toolbar drop-down as a user does: a tap opens
// its menu (and focuses it), the keyboard moves to the option and Enter
// takes it.
func choose(t *testing.T, v *Viewer, s *viewSelect, option string) {
	t.Helper()
	var problem string
	onUI(func() {
		i := slices.Index(s.Options, option)
		if i < 0 {
			problem = fmt.Sprintf("no option %q in %v", option, s.Options)
			return
		}
		test.Tap(s)
		menu, ok := v.win.Canvas().Focused().(*widget.PopUpMenu)
		if !ok {
			problem = fmt.Sprintf("the drop-down's menu does not have the keyboard but %T", v.win.Canvas().Focused())
			return
		}
		for range i + 1 {
			menu.TypedKey(&fyne.KeyEvent{Name: fyne.KeyDown})
		}
		menu.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
		if v.modal() || s.Selected != option {
			problem = fmt.Sprintf("after choosing %q: menu open %v, selected %q", option, v.modal(), s.Selected)
		}
	})
	if problem != "" {
		t.Fatal(problem)
	}
}

func TestKeysReachTheViewAndTheSlidersFollow(t *testing.T) {
	v := newTestViewer(t, nil)
	for range 3 {
		typeKey(v, fyne.KeyPeriod)
	}
	typeKey(v, fyne.KeyRightBracket)
	waitShown(t, v, func(f *session.Frame) bool { return f.View.Z == 7 && f.View.T == 1 && f.Info.Complete })
	onUI(func() {
		if s := v.sliders['Z']; s == nil || s.slider.Value != 7 || s.label.Text != "z 8/9" {
			t.Errorf("z slider at %v, %q", s.slider.Value, s.label.Text)
		}
		v.sliders['Z'].slider.SetValue(2) // the slider moves the view
	})
	waitShown(t, v, func(f *session.Frame) bool { return f.View.Z == 2 })
}

// TestKeysStillStepAfterTheToolbar chooses a colormap and a rate from the
// toolbar's menus and moves a slider: the keyboard then still steps
// planes, and Space plays instead of opening a menu.
func TestKeysStillStepAfterTheToolbar(t *testing.T) {
	v := newTestViewer(t, nil)
	z := v.s.View().Z
	choose(t, v, v.tools.cmap, "magma")
	typeKey(v, fyne.KeyPeriod)
	waitShown(t, v, func(f *session.Frame) bool { return f.View.Z == z+1 && f.View.Colormap == "magma" })
	choose(t, v, v.tools.rate, "10 fps")
	typeKey(v, fyne.KeyComma)
	waitShown(t, v, func(f *session.Frame) bool { return f.View.Z == z })
	onUI(func() { test.Tap(v.sliders['Z'].slider) })
	typeKey(v, fyne.KeyHome)
	waitShown(t, v, func(f *session.Frame) bool { return f.View.Z == 0 })
	choose(t, v, v.tools.cmap, "gray")
	onUI(func() { v.win.Canvas().Focus(v.tools.cmap) }) // as after a dismissed menu
	typeKey(v, fyne.KeySpace)
	if on, rate := v.s.Playing(); !on || rate != 10 {
		t.Errorf("Space with the colormap menu focused: playing %v at %g", on, rate)
	}
	onUI(func() {
		if !strings.Contains(v.tools.play.Icon.Name(), "pause") {
			t.Errorf("the play button shows %s while playing", v.tools.play.Icon.Name())
		}
	})
	typeKey(v, fyne.KeySpace)
}

// TestCtrlIsReleasedWhenASaveDialogIsCancelled holds Ctrl, presses S and
// cancels the save dialog (its window got the key release): "." steps one
// plane, not 100, and the plain wheel steps rather than zooms.
func TestCtrlIsReleasedWhenASaveDialogIsCancelled(t *testing.T) {
	v := newTestViewer(t, nil)
	typeKey(v, fyne.KeyHome)
	waitShown(t, v, func(f *session.Frame) bool { return f.View.Z == 0 })
	onUI(func() {
		v.pv.KeyDown(&fyne.KeyEvent{Name: "LeftControl"})
		v.saveDialog()
	})
	onUI(func() {
		if !v.modal() || v.dlg == nil {
			t.Error("no save dialog")
			return
		}
		v.dlg.Hide() // Cancel
	})
	typeKey(v, fyne.KeyPeriod)
	onUI(func() {
		v.pv.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(50, 50)}, Scrolled: fyne.Delta{DY: -10}})
	})
	view := waitShown(t, v, func(f *session.Frame) bool { return f.View.Z == 2 }).View
	if view.Zoom != v.s.View().Zoom {
		t.Errorf("the wheel zoomed")
	}
}

func TestDialogsBlockKeysAndEscapeClosesThem(t *testing.T) {
	v := newTestViewer(t, nil)
	z := v.s.View().Z
	typeKey(v, fyne.KeyF1)
	onUI(func() {
		if !v.modal() {
			t.Fatal("F1 showed no list")
		}
	})
	typeKey(v, fyne.KeyPeriod)
	if got := v.s.View().Z; got != z {
		t.Errorf("a key behind the dialog moved the view to %d", got)
	}
	typeKey(v, fyne.KeyEscape)
	onUI(func() {
		if v.modal() {
			t.Error("Escape did not close the list")
		}
	})
	typeKey(v, fyne.KeyPeriod)
	waitShown(t, v, func(f *session.Frame) bool { return f.View.Z == z+1 })
}

func TestTheKeyListIsAlignedAndComplete(t *testing.T) {
	text := shortcutText()
	lines := strings.Split(text, "\n")
	col := len([]rune(lines[0][:strings.Index(lines[0], "previous")]))
	for _, l := range lines {
		r := []rune(l)
		if len(r) <= col || r[col-1] != ' ' || r[col] == ' ' {
			t.Errorf("line %q does not start its description at column %d", l, col)
		}
	}
	for _, want := range []string{"PageUp", "Home", "Space", "Ctrl+O", "Ctrl+S", "F1", "+ -", "\nH ", "Ctrl+1 … Ctrl+9", "\n↑ ↓ ", "\nM "} {
		if !strings.Contains(text, want) {
			t.Errorf("the key list lacks %q", want)
		}
	}
}

func TestMenusShowTheKeysOfTheKeyMap(t *testing.T) {
	v := newTestViewer(t, nil)
	want := map[string]string{}
	for _, b := range session.KeyMap() {
		if b.Menu != "" {
			want[b.Menu] = string(menuKey(b.Menu).(fyne.KeyboardShortcut).Key())
		}
	}
	var walk func(path string, items []*fyne.MenuItem)
	walk = func(path string, items []*fyne.MenuItem) {
		for _, it := range items {
			p := path + " → " + it.Label
			if it.ChildMenu != nil {
				walk(p, it.ChildMenu.Items)
			}
			sc, _ := it.Shortcut.(fyne.KeyboardShortcut)
			k, ok := want[p]
			switch {
			case ok && (sc == nil || string(sc.Key()) != k):
				t.Errorf("menu item %q shows %v, the key map has %q", p, it.Shortcut, k)
			case !ok && sc != nil:
				t.Errorf("menu item %q shows %v, a key the key map does not give it", p, sc.ShortcutName())
			}
			delete(want, p)
		}
	}
	onUI(func() {
		for _, m := range v.win.MainMenu().Items {
			walk(m.Label, m.Items)
		}
	})
	if len(want) > 0 {
		t.Errorf("the key map names menu items the menus lack: %v", want)
	}
}

func TestPlaneButtonsShowTheActivePlane(t *testing.T) {
	v := newTestViewer(t, nil)
	onUI(func() { test.Tap(v.tools.planes[render.XZ]) })
	waitShown(t, v, func(f *session.Frame) bool { return f.View.Orientation == render.XZ })
	onUI(func() {
		for i, b := range v.tools.planes {
			if want := i == int(render.XZ); (b.Importance == widget.HighImportance) != want {
				t.Errorf("button %s highlighted %v", b.Text, !want)
			}
		}
		if v.sliders['Y'] == nil || v.sliders['Z'] != nil {
			t.Errorf("sliders %v for the XZ plane", v.sliders)
		}
	})
	// Turned out of XZ (about the screen's vertical axis), the plane is
	// none of the three: no button is highlighted; XZ aligns it again. A
	// turn about the axis into the screen leaves it the XZ plane. In the
	// four panels the active panel's button stays highlighted, turned or
	// not.
	highlighted := func() (on []string) {
		for _, b := range v.tools.planes {
			if b.Importance == widget.HighImportance {
				on = append(on, b.Text)
			}
		}
		return on
	}
	for _, c := range []struct {
		do   func()
		want string
	}{
		{func() { v.s.Turn(1, 30) }, ""},
		{func() { onUI(func() { test.Tap(v.tools.planes[render.XZ]) }) }, "XZ"},
		{func() { v.s.Turn(2, 30) }, "XZ"},
		{func() { v.s.Turn(1, 30); v.s.SetLayout(session.FourPanels) }, "XZ"}, // the panel the keys move
	} {
		c.do()
		turn := v.s.View().Turn
		waitShown(t, v, func(f *session.Frame) bool { return f.View.Turn == turn })
		waitPanel(t, v, fmt.Sprintf("highlighted plane buttons %q", c.want), func() bool { return strings.Join(highlighted(), " ") == c.want })
	}
}

func TestUnsupportedDropShowsTheErrorAndKeepsTheData(t *testing.T) {
	junk := filepath.Join(t.TempDir(), "NotImage.txt")
	os.WriteFile(junk, []byte("not an image"), 0o644)
	v := newTestViewer(t, loader.Open)
	before := v.s.Data()
	onUI(func() { v.dropped(fyne.Position{}, []fyne.URI{storage.NewFileURI(junk)}) })
	text := waitFor(t, "an error dialog", func() (s string, ok bool) {
		onUI(func() {
			if d, isCustom := v.dlg.(*dialog.CustomDialog); isCustom && d != nil && v.modal() {
				s, ok = dialogText(v), true
			}
		})
		return s, ok
	})
	if !strings.Contains(text, "NotImage.txt: not a supported image format") {
		t.Errorf("error dialog says %q", text)
	}
	if v.s.Data() != before {
		t.Error("the dropped file replaced the data")
	}
}

// dialogText is the text of the labels in the top overlay.
func dialogText(v *Viewer) string {
	var b strings.Builder
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch w := o.(type) {
		case *widget.Label:
			b.WriteString(w.Text + "\n")
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
	walk(v.win.Canvas().Overlays().Top())
	return b.String()
}

func TestDroppedAddressesOpenAsURLsAndFilesAsPaths(t *testing.T) {
	opened := make(chan string, 2)
	v := newTestViewer(t, func(ctx context.Context, p string) (loader.Source, error) {
		opened <- p
		return nil, loader.ErrFormat
	})
	web, err := storage.ParseURI("https://example.org/data/cells.ome.zarr")
	if err != nil {
		t.Fatal(err)
	}
	onUI(func() { v.dropped(fyne.Position{}, []fyne.URI{web}) })
	if got := <-opened; got != "https://example.org/data/cells.ome.zarr" {
		t.Errorf("a dropped URL opened as %q", got)
	}
	onUI(func() { v.dropped(fyne.Position{}, []fyne.URI{storage.NewFileURI("/data/a b.tif")}) })
	if got := <-opened; got != "/data/a b.tif" {
		t.Errorf("a dropped file opened as %q", got)
	}
}

func TestContrastPanelFollowsAndSetsTheWindow(t *testing.T) {
	v := newTestViewer(t, nil)
	waitFor(t, "the histogram", func() (ok, good bool) {
		onUI(func() {
			view := v.s.View()
			good = v.contrast.panel.valid() && v.contrast.panel.lo == view.Lo && v.contrast.panel.hi == view.Hi
		})
		return good, good
	})
	// Dragging the window (simulated at its callback) redraws with it.
	onUI(func() { v.contrast.panel.onChange(5000, 9000) })
	waitShown(t, v, func(f *session.Frame) bool { return f.View.Lo == 5000 && f.View.Hi == 9000 })
	onUI(func() {
		if v.contrast.lo.Text != "5000" || v.contrast.hi.Text != "9000" {
			t.Errorf("entries show %q %q", v.contrast.lo.Text, v.contrast.hi.Text)
		}
		// Typed numbers set the window.
		v.contrast.lo.SetText("1234")
		v.contrast.hi.SetText("4321")
		v.contrast.typed()
	})
	waitShown(t, v, func(f *session.Frame) bool { return f.View.Lo == 1234 && f.View.Hi == 4321 })
	// A double tap goes back to auto-contrast.
	onUI(func() { v.contrast.panel.DoubleTapped(nil) })
	waitShown(t, v, func(f *session.Frame) bool { return f.View.Lo != 1234 && f.View.Lo < f.View.Hi })
}

// TestLongStatusDoesNotWidenTheWindow puts a long message in the status
// bar: the window's minimum width stays.
func TestLongStatusDoesNotWidenTheWindow(t *testing.T) {
	v := newTestViewer(t, nil)
	var before, after float32
	var full string
	// In one turn of the UI thread, so that the session's own status
	// updates cannot replace the message before it is clicked.
	onUI(func() {
		before = v.win.Content().MinSize().Width
		v.status.SetText(strings.Repeat("error: GET http://store/0/0/5/0/0: 503 Service Unavailable ", 10))
		after = v.win.Content().MinSize().Width
		test.Tap(v.status)
		full = dialogText(v)
	})
	if after > before {
		t.Errorf("a long status widened the window from %g to %g", before, after)
	}
	if !strings.Contains(full, strings.Repeat("error: GET http://store/0/0/5/0/0: 503 Service Unavailable ", 10)) {
		t.Errorf("clicking the status shows %q", full)
	}
}

// The window opens at 1024 pixels wide, and its rows fit it: a row wider
// than the window makes the window grow after it is shown, and the
// picture change its size under the user.
func TestTheRowsFitTheDefaultWindow(t *testing.T) {
	v := newTestViewer(t, nil)
	var need float32
	onUI(func() { need = v.win.Content().MinSize().Width })
	if room := float32(1024) - 2*theme.Padding(); need > room {
		t.Errorf("the window's content needs %g pixels across, the default window holds %g", need, room)
	}
}

func TestPanelsHideAndShowWithH(t *testing.T) {
	v := newTestViewer(t, nil)
	var h0 float32
	onUI(func() { h0 = v.pv.Size().Height })
	onUI(func() { v.pv.TypedRune('h') })
	onUI(func() {
		if v.panels.Visible() || v.pv.Size().Height <= h0 {
			t.Errorf("after H the panels show %v, picture %g high (was %g)", v.panels.Visible(), v.pv.Size().Height, h0)
		}
		v.pv.TypedRune('H')
		if !v.panels.Visible() {
			t.Error("a second H did not bring the panels back")
		}
	})
}

// TestSaveDialogSavesOnEnterAndCancelsOnEscape presses Ctrl+S: the path
// offered is the folder and the positional name; Escape in it cancels,
// and Enter writes the PNG of the image's part of the picture.
func TestSaveDialogSavesOnEnterAndCancelsOnEscape(t *testing.T) {
	v := newTestViewer(t, nil)
	dir := t.TempDir()
	var entry *escEntry
	onUI(func() {
		v.lastFolder = dir
		v.command(session.SaveView)
		entry, _ = v.win.Canvas().Focused().(*escEntry)
	})
	if entry == nil {
		t.Fatal("the save dialog's path does not have the keyboard")
	}
	want := filepath.Join(dir, "volume_z004_t000.png")
	onUI(func() {
		if entry.Text != want {
			t.Errorf("offered %q, want %q", entry.Text, want)
		}
		entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
		if v.modal() {
			t.Error("Escape in the path did not close the dialog")
		}
		v.command(session.SaveView)
		entry, _ = v.win.Canvas().Focused().(*escEntry)
		entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	})
	m := v.s.Meta()
	v.s.Close() // waits for the file
	img := testtool.ReadPNG(t, want)
	// The image's part of the view, without the margins beside it.
	part := render.ImageRect(m, v.shown.View)
	if b := img.Bounds(); b.Dx() != part.Dx() || b.Dy() != part.Dy() || part.Dx() >= v.shown.Img.Rect.Dx() {
		t.Errorf("saved %v, the image's part of the %v picture is %v", b, v.shown.Img.Rect, part)
	}
}

// TestOpenURLSubmitsOnEnter types an address into Open URL… and presses
// Enter: the address is opened.
func TestOpenURLSubmitsOnEnter(t *testing.T) {
	opened := make(chan string, 1)
	v := newTestViewer(t, func(ctx context.Context, p string) (loader.Source, error) {
		opened <- p
		return nil, loader.ErrFormat
	})
	onUI(func() {
		v.openURLDialog()
		e, ok := v.win.Canvas().Focused().(*escEntry)
		if !ok {
			t.Error("the address field does not have the keyboard")
			return
		}
		test.Type(e, " https://example.org/a.ome.zarr ")
		e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	})
	if got := <-opened; got != "https://example.org/a.ome.zarr" {
		t.Errorf("opened %q", got)
	}
}

func TestHistogramBarsLinearOrLog(t *testing.T) {
	counts := []int64{1, 10, 1000}
	lg, lin := barHeights(counts, 100, false), barHeights(counts, 100, true)
	if lin[0] != 1 || lin[1] != 1 || lin[2] != 100 {
		t.Errorf("linear bars %v, want [1 1 100]", lin)
	}
	if lg[2] != 100 || lg[0] <= lin[0] || lg[1] <= lin[1] {
		t.Errorf("log bars %v do not lift the small counts of %v", lg, lin)
	}
	v := newTestViewer(t, nil)
	onUI(func() {
		v.contrast.toggleLinear()
		if !v.contrast.panel.linear {
			t.Error("View → Show / Hide → Linear / Log Histogram did not switch the bars")
		}
	})
}

// TestADropOfSeveralFilesIsTheBrowsingList drops three files, one of
// which does not open: the list holds all three in order, the first is
// shown, and the one that failed is marked once tried.
func TestADropOfSeveralFilesIsTheBrowsingList(t *testing.T) {
	opened := make(chan string, 8)
	v := newTestViewer(t, func(ctx context.Context, p string) (loader.Source, error) {
		opened <- p
		if strings.HasSuffix(p, "bad.tif") {
			return nil, loader.ErrFormat
		}
		return stored{demo.NewSized(1, 3, 16, 24)}, nil
	})
	uris := []fyne.URI{storage.NewFileURI("/data/one.tif"), storage.NewFileURI("/data/bad.tif"), storage.NewFileURI("/data/three.tif")}
	onUI(func() { v.dropped(fyne.Position{}, uris) })
	waitShown(t, v, func(f *session.Frame) bool { return v.s.Data().Name == "/data/one.tif" })
	list, pos := v.s.List()
	if len(list) != 3 || pos != 0 || list[2].Path != "/data/three.tif" {
		t.Fatalf("list %v at %d", list, pos)
	}
	onUI(func() {
		v.pv.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyRight, Modifier: fyne.KeyModifierAlt})
	})
	waitShown(t, v, func(f *session.Frame) bool { return v.s.Data().Name == "/data/three.tif" })
	title := waitFor(t, "the title", func() (s string, ok bool) {
		onUI(func() { s = v.win.Title() })
		return s, strings.HasSuffix(s, "three.tif — 3/3")
	})
	if list, _ := v.s.List(); list[1].Err == nil {
		t.Errorf("bad.tif is not marked (title %q)", title)
	}
	onUI(func() {
		if len(v.strip.cards) != 3 || !v.strip.scroll.Visible() {
			t.Errorf("the strip has %d cards, visible %v", len(v.strip.cards), v.strip.scroll.Visible())
		}
		v.pv.TypedRune('f')
		if v.strip.scroll.Visible() {
			t.Error("F did not hide the strip")
		}
	})
}

// TestAFileThatDoesNotOpenSaysWhyOnItsCard drops three files, the second
// of which does not open: its card says why in place of a thumbnail, and a
// click on it selects it and puts why in the status bar; the file shown
// stays.
func TestAFileThatDoesNotOpenSaysWhyOnItsCard(t *testing.T) {
	v := newTestViewer(t, func(ctx context.Context, p string) (loader.Source, error) {
		if strings.HasSuffix(p, "bad.tif") {
			return nil, loader.ErrFormat
		}
		return stored{demo.NewSized(1, 3, 16, 24)}, nil
	})
	uris := []fyne.URI{storage.NewFileURI("/data/one.tif"), storage.NewFileURI("/data/bad.tif"), storage.NewFileURI("/data/three.tif")}
	onUI(func() { v.dropped(fyne.Position{}, uris) })
	waitShown(t, v, func(f *session.Frame) bool { return v.s.Data().Name == "/data/one.tif" })
	card := waitFor(t, "the card of bad.tif saying why", func() (c *fileCard, ok bool) {
		onUI(func() {
			if len(v.strip.cards) == 3 {
				c = v.strip.cards[1]
				ok = showsWhole(c, "not a supported image format")
			}
		})
		return c, ok
	})
	onUI(func() { card.Tapped(&fyne.PointEvent{}) })
	status := waitFor(t, "the status to say why", func() (s string, ok bool) {
		onUI(func() { s = v.status.Text })
		return s, strings.Contains(s, "bad.tif cannot be shown: not a supported image format")
	})
	if _, pos := v.s.List(); pos != 1 {
		t.Errorf("at %d after a click on bad.tif (status %q)", pos, status)
	}
	if d := v.s.Data(); d.Name != "/data/one.tif" {
		t.Errorf("%s shown after a click on bad.tif", d.Name)
	}
}

// TestTheErrorDialogShowsTheWholeMessage shows a problem whose message
// takes several lines: the label is given the height of all of its lines
// at its width, and the Close button lies below it.
func TestTheErrorDialogShowsTheWholeMessage(t *testing.T) {
	v := newTestViewer(t, loader.Open)
	msg := "not a supported image format: the file starts with bytes that no reader knows, " +
		"and its name ends in .xyz, which none of TIFF, Zarr, NRRD, NIfTI, MetaImage, DICOM, CZI, LIF or ND2 uses"
	onUI(func() {
		v.showProblem(session.Problem{Subject: "/data/some/long/folder/sample_0001.xyz", Err: errors.New(msg)})
	})
	onUI(func() {
		var label *widget.Label
		var close *widget.Button
		var walk func(o fyne.CanvasObject)
		walk = func(o fyne.CanvasObject) {
			switch w := o.(type) {
			case *widget.Label:
				if strings.Contains(w.Text, msg) {
					label = w
				}
			case *widget.Button:
				if w.Text == "Close" {
					close = w
				}
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
		walk(v.win.Canvas().Overlays().Top())
		if label == nil || close == nil {
			t.Fatalf("label %v, button %v", label, close)
		}
		d := fyne.CurrentApp().Driver()
		lp, bp := d.AbsolutePositionForObject(label), d.AbsolutePositionForObject(close)
		lines := label.MinSize().Height
		if label.Size().Height < lines {
			t.Errorf("the label is %v high, its lines %v", label.Size().Height, lines)
		}
		if lp.Y+lines > bp.Y {
			t.Errorf("the message (y %v, height %v) runs under the Close button (y %v)", lp.Y, lines, bp.Y)
		}
	})
}

// showsWhole reports whether a label of w shows text (among its own)
// uncut: visible, and not truncated to its width.
func showsWhole(w fyne.Widget, text string) bool {
	for _, o := range test.WidgetRenderer(w).Objects() {
		var found bool
		var walk func(o fyne.CanvasObject)
		walk = func(o fyne.CanvasObject) {
			switch x := o.(type) {
			case *widget.Label:
				found = found || x.Visible() && x.Truncation == fyne.TextTruncateOff && strings.Contains(x.Text, text)
			case *fyne.Container:
				for _, c := range x.Objects {
					walk(c)
				}
			}
		}
		walk(o)
		if found {
			return true
		}
	}
	return false
}

// TestTheOpenDialogStartsBesideTheFileAndTakesATypedPath opens the open
// dialog on a file's data: it shows the file's folder, folders and the
// files vastview reads (all files when asked); a double-click opens a
// folder, and a click that lands while it is still changing is ignored; a
// path typed in the box and Enter open it; the folder is remembered.
func TestTheOpenDialogStartsBesideTheFileAndTakesATypedPath(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.tif"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "b.tif"), []byte("x"), 0o644)
	opened := make(chan string, 4)
	v := newTestViewer(t, func(ctx context.Context, p string) (loader.Source, error) {
		opened <- p
		return stored{demo.NewSized(1, 3, 16, 24)}, nil
	})
	onUI(func() { v.open(stored{demo.NewSized(1, 3, 16, 24)}, filepath.Join(dir, "a.tif")) })
	names := func(c *chooser) string {
		var out []string
		for _, e := range c.entries {
			out = append(out, e.name)
		}
		return strings.Join(out, " ")
	}
	onUI(func() {
		v.openDialog()
		c := v.choosing
		if c == nil || c.dir != dir {
			t.Fatalf("the open dialog starts in %v, want %s", c, dir)
		}
		if got := names(c); got != "sub a.tif" {
			t.Errorf("entries %q, want folders and images", got)
		}
		c.filter.SetSelected(filterAll)
		if got := names(c); got != "sub a.tif notes.txt" {
			t.Errorf("entries %q with all files", got)
		}
		now := time.Now()
		c.now = func() time.Time { return now }
		c.settled = now
		c.doubleTapped(0) // sub
		if c.dir != filepath.Join(dir, "sub") {
			t.Fatalf("a double-click on sub shows %s", c.dir)
		}
		c.tapped(0) // the second click of a double-click, on sub's b.tif
		c.doubleTapped(0)
		if c.path.Text != filepath.Join(dir, "sub")+"/" || v.dlg == nil {
			t.Errorf("a click while sub opened made the path %q (dialog showing %v)", c.path.Text, v.dlg != nil)
		}
		now = now.Add(time.Second)
		c.tapped(0)
		if c.path.Text != filepath.Join(dir, "sub", "b.tif") {
			t.Errorf("a click on b.tif made the path %q", c.path.Text)
		}
		c.path.SetText(filepath.Join(dir, "a.tif"))
		c.path.OnSubmitted(c.path.Text)
		if v.dlg != nil {
			t.Error("the dialog stays after Enter on a path")
		}
	})
	select {
	case got := <-opened:
		if got != filepath.Join(dir, "a.tif") {
			t.Errorf("opened %s", got)
		}
	case <-time.After(time.Minute):
		t.Fatal("the typed path did not open")
	}
	if got := v.s.Prefs().LastFolder(); got != filepath.Join(dir, "sub") {
		t.Errorf("last folder %q", got)
	}
}

// TestATypedFolderOpensInTheDialogUnlessItIsAnImage: a folder of frames
// typed in the open dialog's path box is shown in the dialog, as any
// plain folder is; a Zarr store typed there is opened.
func TestATypedFolderOpensInTheDialogUnlessItIsAnImage(t *testing.T) {
	dir := t.TempDir()
	frames := filepath.Join(dir, "frames")
	os.Mkdir(frames, 0o755)
	png := []byte("\x89PNG\r\n\x1a\n")
	os.WriteFile(filepath.Join(frames, "f1.png"), png, 0o644)
	os.WriteFile(filepath.Join(frames, "f2.png"), png, 0o644)
	store := filepath.Join(dir, "s.zarr")
	os.Mkdir(store, 0o755)
	os.WriteFile(filepath.Join(store, "zarr.json"), []byte("{}"), 0o644)
	opened := make(chan string, 4)
	v := newTestViewer(t, func(ctx context.Context, p string) (loader.Source, error) {
		opened <- p
		return stored{demo.NewSized(1, 3, 16, 24)}, nil
	})
	onUI(func() { v.open(stored{demo.NewSized(1, 3, 16, 24)}, filepath.Join(dir, "a.tif")) })
	var shown string
	var showing bool
	onUI(func() {
		v.openDialog()
		c := v.choosing
		c.path.SetText(frames)
		c.path.OnSubmitted(c.path.Text)
		shown, showing = c.dir, v.dlg != nil
	})
	if shown != frames || !showing {
		t.Fatalf("a typed folder of frames: the dialog shows %s (showing %v), want %s", shown, showing, frames)
	}
	onUI(func() {
		c := v.choosing
		c.path.SetText(store)
		c.path.OnSubmitted(c.path.Text)
		showing = v.dlg != nil
	})
	if showing {
		t.Error("the dialog stays after Enter on a Zarr store")
	}
	// Other opens may come first (the strip's thumbnail of a.tif).
	deadline := time.After(time.Minute)
	for got := ""; got != store; {
		select {
		case got = <-opened:
		case <-deadline:
			t.Fatal("the typed store did not open")
		}
	}
}

// TestBrowseInASaveDialogPicksAPath: Browse… in the save dialog opens the
// chooser in the folder the path names, showing folders and PNG files
// only until all files are asked for; a name typed and Enter put the path
// in the save dialog, which stays.
func TestBrowseInASaveDialogPicksAPath(t *testing.T) {
	v := newTestViewer(t, nil)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "old.png"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	os.Mkdir(filepath.Join(dir, "shots"), 0o755)
	onUI(func() {
		v.lastFolder = dir
		v.command(session.SaveView)
		entry, _ := v.win.Canvas().Focused().(*escEntry)
		form := v.dlg
		v.browseButton(entry, []string{".png"}).OnTapped()
		c := v.choosing
		if c.dir != dir {
			t.Fatalf("the chooser starts in %s, want %s", c.dir, dir)
		}
		var names []string
		for _, e := range c.entries {
			names = append(names, e.name)
		}
		if got := strings.Join(names, " "); got != "shots old.png" {
			t.Errorf("entries %q", got)
		}
		c.path.SetText(filepath.Join(dir, "shots", "new.png"))
		c.path.OnSubmitted(c.path.Text)
		if entry.Text != filepath.Join(dir, "shots", "new.png") {
			t.Errorf("the save path is %q", entry.Text)
		}
		if v.dlg != form {
			t.Error("the save dialog closed with the chooser")
		}
	})
}

// TestMenuItemsShowTheirKeys checks that the View menu's items that a key
// also does carry that key, which the menu writes beside them.
func TestMenuItemsShowTheirKeys(t *testing.T) {
	v := newTestViewer(t, nil)
	var m *fyne.MainMenu
	uiDoAndWait(func() { m = v.win.MainMenu() })
	keys := map[string]fyne.KeyName{}
	var walk func(items []*fyne.MenuItem)
	walk = func(items []*fyne.MenuItem) {
		for _, it := range items {
			if sc, ok := it.Shortcut.(*desktop.CustomShortcut); ok {
				keys[it.Label] = sc.KeyName
			}
			if it.ChildMenu != nil {
				walk(it.ChildMenu.Items)
			}
		}
	}
	for _, menu := range m.Items {
		walk(menu.Items)
	}
	for label, want := range map[string]fyne.KeyName{
		"Four Panels": fyne.Key4, "Scale Bar": fyne.KeyB, "Time Stamp": fyne.KeyT,
		"Projection: Max, Min, Mean, None": fyne.KeyP, "Histogram": fyne.KeyG,
		"Layers": fyne.KeyV, "Cycle Channel Mode": fyne.KeyM,
		"3-D View": fyne.Key5, "Next Mode: Max, Min, Mean, Translucent, Isosurface": fyne.KeyN,
		"Clip with the Plane": fyne.KeyX,
	} {
		if keys[label] != want {
			t.Errorf("menu item %q shows key %q, want %q", label, keys[label], want)
		}
	}
}

// TestHoverAbbreviations shortens a read-out that does not fit: first
// without the physical position, then with single gaps; every value stays.
func TestHoverAbbreviations(t *testing.T) {
	full := "X 349  Y 266   (174.5 µm, 133 µm)  Z 2   GFP 27450 RFP 30640   label 69"
	if got := dropPhysical(full); got != "X 349  Y 266  Z 2   GFP 27450 RFP 30640   label 69" {
		t.Errorf("without the physical position: %q", got)
	}
	if got := tighten(dropPhysical(full)); got != "X 349 Y 266 Z 2 GFP 27450 RFP 30640 label 69" {
		t.Errorf("tightened: %q", got)
	}
	if got := dropPhysical("X 1  Y 2  C 0 (DAPI)  value 3"); got != "X 1  Y 2  C 0 (DAPI)  value 3" {
		t.Errorf("a channel's name taken for the position: %q", got)
	}
}

func TestPreferencesTakeSizesAndRefuseOthers(t *testing.T) {
	test.NewTempApp(t)
	p := prefs.New(&prefs.MapStore{})
	p.SetCacheBytes(1 << 30)
	p.SetDiskCacheBytes(8 << 30)
	var e *escEntry
	uiDoAndWait(func() { e = budgetEntry(nil, p.CacheBytes(), true) })
	if e.Text != "1GiB" || e.Validate() != nil {
		t.Errorf("the chunk cache field shows %q (valid: %v)", e.Text, e.Validate())
	}
	uiDoAndWait(func() { e.SetText("lots") })
	if e.Validate() == nil {
		t.Error("the chunk cache field takes \"lots\"")
	}
	for _, c := range [][2]string{{"lots", "2GiB"}, {"1GiB", "0"}, {"-5", "2GiB"}} {
		if err := setBudgets(p, c[0], c[1]); err == nil {
			t.Errorf("setBudgets(%q, %q): no error", c[0], c[1])
		}
	}
	if p.CacheBytes() != 1<<30 || p.DiskCacheBytes() != 8<<30 {
		t.Errorf("refused sizes changed the budgets to %d, %d", p.CacheBytes(), p.DiskCacheBytes())
	}
	if err := setBudgets(p, "0", "512 MiB"); err != nil || p.CacheBytes() != 0 || p.DiskCacheBytes() != 512<<20 {
		t.Errorf("setBudgets(0, 512 MiB): %v; budgets %d, %d", err, p.CacheBytes(), p.DiskCacheBytes())
	}
}

func TestToolbarWidgetsHandTheirKeysToTheView(t *testing.T) {
	v := newTestViewer(t, nil)
	var widgets []fyne.Focusable
	uiDoAndWait(func() {
		widgets = []fyne.Focusable{newViewSlider(v, 0, 10), newViewSelect(v, func(string) {}), newViewCheck(v, func(bool) {})}
	})
	for i, w := range widgets {
		z := v.s.View().Z
		uiDoAndWait(func() {
			w.(desktop.Keyable).KeyDown(&fyne.KeyEvent{Name: fyne.KeyRight})
			w.TypedKey(&fyne.KeyEvent{Name: fyne.KeyRight})
			w.(desktop.Keyable).KeyUp(&fyne.KeyEvent{Name: fyne.KeyRight})
		})
		waitShown(t, v, func(f *session.Frame) bool { return f.View.Z == z+1 })
		uiDoAndWait(func() {
			if f := v.win.Canvas().Focused(); f != v.pv {
				t.Errorf("widget %d: the keyboard is with %T, not the view", i, f)
			}
			v.win.Canvas().Unfocus()
		})
	}
}
