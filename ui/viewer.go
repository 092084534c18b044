// Package ui is vastview's window: widgets, menus, dialogs and key
// bindings over a session.Session, which does everything else. It forwards
// keys, the mouse and drops to the session and shows the frames and
// changes the session hands out; it does no pixel math and no I/O.
package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vastview/assets"
	"vastview/loader"
	"vastview/prefs"
	"vastview/session"
)

// Options configure the viewer.
type Options struct {
	// Session options: how files open, the trace, the disk cache. The
	// callbacks and Prefs are the viewer's own.
	Session session.Options
	// Layers are laid over the first file shown (the command line's
	// --overlay and --layer).
	Layers []Layer
	// OpenErr, when Run is given no source but paths, is why the first
	// of them did not open: the window opens showing it.
	OpenErr error
	// Do runs a function on the UI goroutine (frames, updates, the ends
	// of exports); nil is fyne.Do.
	Do func(func())
}

// Layer is a file to lay over the image, and how.
type Layer struct {
	Path string
	Kind session.LayerKind
}

// Viewer is the main window. Its fields are touched only on the UI
// goroutine.
type Viewer struct {
	app fyne.App
	win fyne.Window
	s   *session.Session

	pv         *planeView
	status     *statusLabel  // level, pending, cache
	hoverLbl   *widget.Label // position and value under the pointer
	readout    *readoutRow   // lays out the read-out and the status
	readoutBox *fyne.Container
	buildBox   *fyne.Container // the build's bar, labelled
	buildBar   *widget.ProgressBar
	buildLbl   *widget.Label
	opening    *fyne.Container // "Opening …" and Cancel
	exportsBox *fyne.Container // the exports running: progress and Cancel
	openLbl    *widget.Label
	axesBox    *fyne.Container // one slider per axis not displayed
	sliders    map[byte]*axisSlider
	tools      *toolbar
	contrast   *contrastControls
	v3         *view3dControls  // the 3-D view's sliders
	chans      *channelPanel    // beside the picture, for several channels
	layers     *layerPanel      // beside the picture, under the channels, while there are layers
	measure    *measurePanel    // beside the picture while measuring: plot, figures, region list
	chanMenu   channelMenuItems // the View menu's channel items
	toggles    []toggle         // the menu's check items, whose checks follow the session
	series     *fyne.MenuItem   // Go → Series: the images of the file shown
	panels     *fyne.Container  // the contrast panel and the sliders
	strip      *fileStrip
	dlg        hider    // the dialog showing, if any
	lastFolder string   // where the last save went
	choosing   *chooser // the last file chooser shown
	trace      *session.Tracer
	laidOut    bool         // the layout event is written
	held       bool         // the picture's size is not passed on yet: the panels are still being made
	do         func(func()) // runs a function on the UI goroutine (Options.Do)

	shown *session.Frame // on screen
}

// hider is a dialog that can be closed.
type hider interface{ Hide() }

// Run opens the window on src (named name: a path or URL, "" for the demo)
// and returns when it is closed or ctx ends (a signal, say), after the
// session has saved the view and stopped. With more than one path in
// list (name among them), they are the browsing list. Without src, the
// window opens on nothing, saying why list's first path did not open
// (opts.OpenErr), with the browsing list and File → Open ready.
func Run(ctx context.Context, src loader.Source, name string, list []string, opts Options) {
	a := app.NewWithID("io.vastview.viewer")
	a.SetIcon(fyne.NewStaticResource("icon.png", assets.Icon))
	v := buildViewer(a, opts, true, openPrefs(a))
	switch {
	case src == nil && len(list) > 0 && opts.OpenErr != nil:
		v.s.OpenFailed(list, opts.OpenErr)
	default:
		v.open(src, name)
		for _, l := range opts.Layers {
			v.s.AddLayer(l.Path, l.Kind)
		}
		if len(list) > 1 {
			v.s.Browse(list)
		}
	}
	// The panels the data asks for (sliders, channels, the file strip)
	// are made before the picture's size is known, so that the first
	// frame is drawn at the size it keeps.
	v.strip.reserved = name != "" || len(list) > 0
	v.takeUpdate()
	v.strip.listChanged()
	stop := context.AfterFunc(ctx, func() { fyne.Do(func() { v.quit("signal") }) })
	defer stop()
	v.win.Show()
	// Once the window shows, with its menu bar: the room the content has.
	fyne.Do(v.release)
	a.Run()
	v.s.Close()
}

// openPrefs opens the preferences file in the user's configuration
// folder (vastview/preferences.json), which starts from what Fyne's own
// store held where it does not exist yet. Fyne's store is written in
// place, so that a viewer quitting or killed while writing left it empty;
// this one is put in place atomically and merged with what other viewers
// wrote. Without a configuration folder, Fyne's store is used.
func openPrefs(a fyne.App) prefs.Store {
	dir, err := os.UserConfigDir()
	if err != nil {
		return a.Preferences()
	}
	older := ""
	if root := a.Storage().RootURI(); root != nil {
		older = filepath.Join(root.Path(), "preferences.json")
	}
	s, err := prefs.OpenFile(filepath.Join(dir, "vastview", "preferences.json"), older)
	if err != nil {
		fmt.Fprintln(os.Stderr, "vastview:", err)
	}
	s.OnError = func(err error) { fmt.Fprintln(os.Stderr, "vastview:", err) }
	return s
}

// newViewer makes the viewer's window, its picture sized as it is laid out.
func newViewer(a fyne.App, opts Options) *Viewer {
	return buildViewer(a, opts, false, a.Preferences())
}

// buildViewer makes the viewer's window, its preferences kept in store;
// with held, the picture's size reaches the session only at release.
func buildViewer(a fyne.App, opts Options, held bool, store prefs.Store) *Viewer {
	v := &Viewer{app: a, sliders: map[byte]*axisSlider{}, trace: opts.Session.Trace, held: held, do: opts.Do}
	if v.do == nil {
		v.do = fyne.Do
	}
	so := opts.Session
	so.Prefs = prefs.New(store)
	so.OnFrame = func() { v.do(v.takeFrame) }
	so.OnUpdate = func() { v.do(v.takeUpdate) }
	v.s = session.New(so)
	v.win = a.NewWindow("vastview")
	v.pv = newPlaneView(v)
	v.status = newStatusLabel(v)
	v.hoverLbl = widget.NewLabel("")
	v.hoverLbl.Truncation = fyne.TextTruncateClip // showHover makes it fit
	v.buildBar = widget.NewProgressBar()
	v.buildLbl = widget.NewLabel("levels")
	v.openLbl = widget.NewLabel("")
	v.opening = container.NewHBox(v.openLbl, widget.NewButton("Cancel", v.s.CancelOpen))
	v.opening.Hide()
	v.exportsBox = container.NewHBox()
	v.axesBox = container.NewGridWithColumns(1)
	v.tools = newToolbar(v)
	v.contrast = newContrastControls(v)
	v.v3 = newView3DControls(v)
	v.panels = container.NewVBox(v.contrast.box, v.v3.box, v.axesBox)
	v.chans = newChannelPanel(v)
	v.layers = newLayerPanel(v)
	v.measure = newMeasurePanel(v)
	v.strip = newFileStrip(v)
	build := container.NewBorder(nil, nil, v.buildLbl, nil, v.buildBar)
	// The read-out under the pointer and the status share the bottom row,
	// the read-out first (see readoutRow).
	v.buildBox = container.NewGridWrap(fyne.NewSize(180, v.buildBar.MinSize().Height), build)
	work := container.NewHBox(v.opening, v.exportsBox, v.buildBox)
	v.readout = &readoutRow{hover: v.hoverLbl, status: v.status, work: work}
	v.readoutBox = container.New(v.readout, v.hoverLbl, v.status, work)
	v.showBuild(session.Status{})
	bottom := container.NewVBox(v.strip.scroll, v.panels, v.readoutBox)
	// Sized before its content is set, so that the first layout is the
	// real one and the first view is drawn at its real size.
	v.win.Resize(fyne.NewSize(1024, 800))
	v.win.SetMainMenu(v.menu())
	side := container.NewBorder(nil, container.NewVBox(v.layers.box, v.measure.box), nil, nil, v.chans.box)
	v.win.SetContent(container.NewBorder(v.tools.box, bottom, nil, side, v.pv))
	if v.s.Prefs().PanelHidden(histogramPanel) {
		v.contrast.box.Hide()
	}
	v.win.SetOnDropped(v.dropped)
	// The view is kept while the preferences can still be written: when
	// the window closes or the app is told to quit.
	v.win.SetOnClosed(v.s.SaveView)
	a.Lifecycle().SetOnStopped(v.s.SaveView)
	a.Lifecycle().SetOnEnteredForeground(func() { v.s.ResetModifiers() })
	// Keys reach the canvas when nothing has the focus: while a dialog
	// shows (Escape closes it), or after a click outside the widgets.
	v.win.Canvas().SetOnTypedKey(func(e *fyne.KeyEvent) {
		if e.Name == fyne.KeyEscape || v.modal() {
			v.pv.TypedKey(e)
			return
		}
		v.focusView()
		v.pv.TypedKey(e)
	})
	v.win.Canvas().SetOnTypedRune(func(r rune) {
		if !v.modal() {
			v.focusView()
			v.pv.TypedRune(r)
		}
	})
	if dc, ok := v.win.Canvas().(desktop.Canvas); ok {
		// Presses and releases too: a held key scrubs, and modifiers
		// count, whatever has the focus.
		dc.SetOnKeyDown(func(e *fyne.KeyEvent) {
			if !v.modal() {
				v.focusView()
				v.pv.KeyDown(e)
			}
		})
		dc.SetOnKeyUp(v.pv.KeyUp)
	}
	v.win.Canvas().Focus(v.pv)
	return v
}

// quit ends the program (File → Quit, Ctrl+Q, a signal): the window
// closes, and the session cancels what runs and keeps the view (see
// session.Close). how is traced.
func (v *Viewer) quit(how string) {
	v.trace.Event("quit", map[string]any{"by": how})
	v.app.Quit()
}

// open shows src as name, or the error.
func (v *Viewer) open(src loader.Source, name string) {
	if err := v.s.OpenSource(src, name); err != nil {
		v.showProblem(session.Problem{Subject: displayName(name), Err: err})
	}
}

// release passes the picture's size on to the session, the panels made:
// the first frame is drawn at it.
func (v *Viewer) release() {
	v.held = false
	v.win.Content().Refresh() // lays the panels out
	v.pv.sizeChanged()
}

// takeFrame shows the newest frame; it runs on the UI goroutine.
func (v *Viewer) takeFrame() {
	f := v.s.TakeFrame()
	if f == nil {
		return
	}
	v.shown = f
	v.pv.show(f.Img)
	v.pv.sizeChanged() // a frame of a size the picture no longer has asks for one that fits
	if len(v.pv.marks.Objects) > 0 || len(v.measure.rois) > 0 {
		v.pv.showOverlay() // at the frame's zoom and position
	}
	if !v.laidOut {
		v.laidOut = true
		v.traceLayout()
		if v.win.Canvas().Focused() == nil && !v.modal() {
			v.focusView() // the window exists now: the keyboard is the picture's
		}
	}
}

// traceLayout writes where the picture and the toolbar's controls are in
// the window, in pixels ([x, y, width, height]), so that a script driving
// the window (with xdotool, say) can click them.
func (v *Viewer) traceLayout() {
	if v.trace == nil {
		return
	}
	// The menu bar lies above the content; the File menu's entries (""
	// for a separator) let a script reach one with the arrow keys.
	content := v.rect(v.win.Content())
	var file []string
	if mm := v.win.MainMenu(); mm != nil && len(mm.Items) > 0 {
		for _, it := range mm.Items[0].Items {
			file = append(file, it.Label)
		}
	}
	cs, scale := v.win.Canvas().Size(), v.win.Canvas().Scale()
	v.trace.Event("layout", map[string]any{
		"window": []int{int(cs.Width * scale), int(cs.Height * scale)}, "hover": v.rect(v.hoverLbl),
		"picture": v.rect(v.pv), "colormap": v.rect(v.tools.cmap), "rate": v.rect(v.tools.rate), "play": v.rect(v.tools.play),
		"tools": v.tools.roi.rects(),
		"menu":  []int{0, 0, content[2], content[1]}, "file_menu": file,
	})
}

// rect is where o is in the window, in pixels: [x, y, width, height].
func (v *Viewer) rect(o fyne.CanvasObject) []int {
	p, s := fyne.CurrentApp().Driver().AbsolutePositionForObject(o), o.Size()
	scale := v.win.Canvas().Scale()
	return []int{int(p.X * scale), int(p.Y * scale), int(s.Width * scale), int(s.Height * scale)}
}

// takeUpdate brings the widgets in line with the session.
func (v *Viewer) takeUpdate() {
	u := v.s.TakeUpdate()
	// Whatever moved the panels since (a layout that settled after the
	// last frame), the picture is drawn at the size it has now.
	defer v.pv.sizeChanged()
	c := u.Changes
	if c&session.DataChanged != 0 {
		v.win.SetTitle(v.s.Title())
		if m := v.win.MainMenu(); v.syncSeries() && m != nil {
			m.Refresh()
		}
		v.rebuildSliders()
		v.contrast.setHistogram()
		v.tools.dataChanged()
	}
	if c&session.ViewChanged != 0 {
		v.syncToggles()
		v.syncSliders()
		v.tools.viewChanged()
		v.tools.projChanged()
		v.contrast.viewChanged()
		v.v3.sync()
	}
	if c&(session.DataChanged|session.ViewChanged) != 0 {
		v.chans.sync()
	}
	if c&(session.DataChanged|session.LayersChanged) != 0 {
		v.layers.sync()
	}
	if c&session.LayersChanged != 0 && c&session.DataChanged == 0 {
		v.rebuildSliders() // the layers may reach beyond the data
	}
	if c&session.HistogramChanged != 0 {
		v.contrast.setHistogram()
	}
	if c&(session.StatusChanged|session.OpeningChanged) != 0 {
		v.updateStatus()
	}
	if c&session.HoverChanged != 0 {
		v.showHover(v.s.HoverText())
	}
	if c&session.PlayChanged != 0 {
		v.tools.playChanged()
	}
	if c&session.RecentChanged != 0 {
		v.win.SetMainMenu(v.menu())
	}
	if c&(session.ListChanged|session.DataChanged) != 0 {
		v.win.SetTitle(v.s.Title())
		v.strip.listChanged()
	}
	if c&session.ThumbnailsChanged != 0 {
		v.strip.thumbsChanged()
	}
	if c&(session.ROIChanged|session.DataChanged) != 0 {
		v.tools.roi.sync()
		v.pv.showOverlay()
		v.measure.sync()
	}
	for _, p := range u.Problems {
		v.showProblem(p)
	}
}

// showHover shows the read-out under the pointer, abbreviated until it
// fits the row (the physical position goes first, then the wide gaps), so
// that every value stays in sight.
func (v *Viewer) showHover(text string) {
	l := v.hoverLbl
	room := v.readout.HoverRoom() - 2*theme.InnerPadding()
	width := func(s string) float32 { return fyne.MeasureText(s, theme.TextSize(), l.TextStyle).Width }
	shown := text
	for _, abbreviate := range []func(string) string{dropPhysical, tighten} {
		if width(shown) <= room {
			break
		}
		shown = abbreviate(shown)
	}
	if shown == l.Text {
		return
	}
	l.SetText(shown)
	v.readoutBox.Refresh()
	if v.trace != nil && shown != "" {
		scale := v.win.Canvas().Scale()
		v.trace.Event("hover", map[string]any{"text": shown, "width": int(width(shown) * scale), "room": int(room * scale)})
	}
}

// dropPhysical leaves out the physical position, "(12.5 µm, 3 µm)".
func dropPhysical(s string) string {
	i := strings.Index(s, "(")
	j := strings.Index(s, ")")
	if i < 0 || j < i || !strings.Contains(s[i:j], ",") {
		return s
	}
	return strings.TrimRight(s[:i], " ") + "  " + strings.TrimLeft(s[j+1:], " ")
}

// tighten writes every gap as one space.
func tighten(s string) string { return strings.Join(strings.Fields(s), " ") }

// updateStatus shows the session's status.
func (v *Viewer) updateStatus() {
	st := v.s.Status()
	if st.Text != v.status.Text {
		v.status.SetText(st.Text)
		v.readoutBox.Refresh()
	}
	v.showBuild(st)
	if st.Opening != "" {
		v.openLbl.SetText("Opening " + displayName(st.Opening) + " …")
		v.opening.Show()
	} else {
		v.opening.Hide()
	}
}

// showBuild shows the progress of the background build, labelled.
func (v *Viewer) showBuild(st session.Status) {
	if st.Building != v.buildBox.Visible() {
		// The status has the bar's room when it is hidden.
		if st.Building {
			v.buildBox.Show()
		} else {
			v.buildBox.Hide()
		}
		v.readoutBox.Refresh()
	}
	if st.Building {
		v.buildBar.Max = float64(st.Total)
		v.buildBar.SetValue(float64(st.Done))
	}
}

// statusLabel is the status line: cut to its room with an ellipsis, the
// whole text in a dialog when clicked.
type statusLabel struct {
	widget.Label
	v *Viewer
}

func newStatusLabel(v *Viewer) *statusLabel {
	l := &statusLabel{v: v}
	l.Truncation = fyne.TextTruncateEllipsis
	l.Alignment = fyne.TextAlignTrailing
	l.ExtendBaseWidget(l)
	return l
}

// Tapped implements fyne.Tappable: the whole status.
func (l *statusLabel) Tapped(*fyne.PointEvent) {
	if l.Text == "" {
		return
	}
	full := widget.NewLabel(l.Text)
	full.Wrapping = fyne.TextWrapWord
	full.Selectable = true
	l.v.showDialog(dialog.NewCustom("Status", "Close", container.NewGridWrap(fyne.NewSize(520, 120), full), l.v.win))
}

// dropped opens the dropped files and folders as the browsing list, or,
// dropped with Shift held or onto the layer list, lays them over the
// image as layers.
func (v *Viewer) dropped(pos fyne.Position, uris []fyne.URI) {
	var paths []string
	for _, u := range uris {
		paths = append(paths, uriPath(u))
	}
	if v.s.Data() != nil && (v.s.Modifiers().Shift || v.layers.contains(pos)) {
		for _, p := range paths {
			v.s.AddLayer(p, session.LayerAuto)
		}
		return
	}
	v.s.OpenList(paths)
}

// uriPath is the file path of a file URI, or the whole address of another
// (an http(s) URL of a Zarr store).
func uriPath(u fyne.URI) string {
	if u.Scheme() == "file" {
		return u.Path()
	}
	return u.String()
}

// displayName is a path's last element, without the credentials or
// signature an address may carry.
func displayName(p string) string {
	p = loader.Redact(p)
	for i := len(p) - 1; i > 0; i-- {
		if p[i] == '/' && i < len(p)-1 {
			return p[i+1:]
		}
	}
	return p
}
