// Package ui is vastview's window: it turns keys, mouse and drops into view
// changes, has the pictures drawn off the UI goroutine, and shows them. It
// does no pixel math and no I/O on the UI goroutine.
package ui

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"vastview/assets"
	"vastview/loader"
	"vastview/prefs"
	"vastview/render"
)

// Options configure the viewer.
type Options struct {
	// Open opens a path (a file, folder or glob); errors are shown and the
	// current data stays.
	Open func(ctx context.Context, path string) (loader.Source, error)
	// Trace, when non-nil, receives the interaction events.
	Trace *Tracer
}

// Viewer is the main window. Its fields are touched only on the UI
// goroutine, except through the drawer.
type Viewer struct {
	opts  Options
	app   fyne.App
	win   fyne.Window
	prefs *prefs.Prefs

	pv       *planeView
	status   *widget.Label // level, pending, cache
	hoverLbl *widget.Label // position and value under the pointer
	buildBar *widget.ProgressBar
	axesBox  *fyne.Container // one slider per axis not displayed
	sliders  map[byte]*axisSlider
	cmapSel  *widget.Select
	contrast *contrastPanel
	hist     *histWorker

	s           *session
	view        render.View
	mods        modifiers
	gen         uint64
	shown       *frame // on screen
	lastFailure string // the load failure last written to the trace
	first       bool   // first_image traced
	hoverX      float32
	hoverY      float32
	hover       bool
	play        *player
	scrub       scrub
	playRate    int // planes per second

	d *drawer
}

// Run opens the window on src (named name) and returns when it is closed.
func Run(src loader.Source, name string, opts Options) {
	a := app.NewWithID("io.vastview.viewer")
	a.SetIcon(fyne.NewStaticResource("icon.png", assets.Icon))
	v := newViewer(a, opts)
	v.openSource(src, name)
	v.win.ShowAndRun()
	v.d.stop()
	if v.s != nil {
		v.saveView()
		v.s.close()
	}
}

func newViewer(a fyne.App, opts Options) *Viewer {
	v := &Viewer{opts: opts, app: a, prefs: prefs.New(a.Preferences()), sliders: map[byte]*axisSlider{}, playRate: defaultPlayRate}
	v.win = a.NewWindow("vastview")
	v.pv = newPlaneView()
	v.pv.scale = func() float32 { return v.win.Canvas().Scale() }
	v.pv.onResize = v.resized
	v.pv.onScroll = v.scrolled
	v.pv.onDrag = v.dragged
	v.pv.onHover = v.hovered
	v.pv.onTap = func() { v.win.Canvas().Unfocus() }
	v.status = widget.NewLabel("")
	v.hoverLbl = widget.NewLabel("")
	v.buildBar = widget.NewProgressBar()
	v.buildBar.Hide()
	v.axesBox = container.NewVBox()
	v.cmapSel = widget.NewSelect(render.ColormapNames(), func(name string) {
		if v.s != nil && name != v.view.Colormap {
			v.view.Colormap = name
			v.changed(time.Now())
		}
	})
	v.contrast = newContrastPanel(func(lo, hi float64) {
		if v.s != nil {
			v.view.Lo, v.view.Hi = lo, hi
			v.changed(time.Now())
		}
	}, func() {
		if v.s != nil {
			v.autoContrast()
			v.changed(time.Now())
		}
	})
	v.hist = newHistWorker()
	go v.hist.run(v)
	bottom := container.NewVBox(v.contrast, v.axesBox, container.NewBorder(nil, nil, v.hoverLbl, container.NewHBox(v.buildBar, v.status)))
	// Sized before its content is set, so that the first layout is the
	// real one and the first view is drawn at its real size.
	v.win.Resize(fyne.NewSize(1024, 800))
	v.win.SetMainMenu(v.menu())
	v.win.SetContent(container.NewBorder(v.toolbar(), bottom, nil, nil, v.pv))
	v.win.Canvas().SetOnTypedKey(v.typedKey)
	v.win.Canvas().SetOnTypedRune(v.typedRune)
	if dc, ok := v.win.Canvas().(desktop.Canvas); ok {
		dc.SetOnKeyDown(v.keyDown)
		dc.SetOnKeyUp(v.keyUp)
	}
	v.addShortcuts()
	v.win.SetOnDropped(func(_ fyne.Position, uris []fyne.URI) { v.dropped(uris) })
	v.d = newDrawer(v)
	go v.d.run()
	go v.tick()
	return v
}

// openSource replaces the current data by src. The previous data is
// closed in the background.
func (v *Viewer) openSource(src loader.Source, name string) {
	s, err := openSession(name, src, SessionOptions{CacheBytes: v.prefs.CacheBytes(), DiskBytes: v.prefs.DiskCacheBytes()})
	if err != nil {
		v.showError(name, err)
		return
	}
	if old := v.s; old != nil {
		v.saveView()
		go old.close()
	}
	v.s = s
	v.opts.Trace.Event("open", map[string]any{"path": name})
	m := s.pyr.Meta()
	w, h := v.view.Width, v.view.Height
	v.view = render.View{Orientation: render.XY, Z: m.Size('Z') / 2, Colormap: "gray", Width: w, Height: h}
	if m.Label {
		v.view.Colormap = "glasbey"
	}
	v.cmapSel.Options = render.ColormapNames()
	if m.RGB {
		v.cmapSel.Options = append([]string{render.RGB}, v.cmapSel.Options...)
		v.view.Colormap = render.RGB
		if lo, hi, ok := render.RGBWindow(m.DType); ok {
			v.view.Lo, v.view.Hi = lo, hi
		}
	}
	v.applyChannel()
	if saved, ok := v.prefs.View(name); ok && name != "demo" {
		v.restoreView(saved)
	}
	v.showColormap()
	v.contrast.setHistogram(histogram{})
	v.win.SetTitle("vastview — " + filepath.Base(name))
	if name != "demo" {
		v.prefs.AddRecent(name)
		v.win.SetMainMenu(v.menu())
	}
	v.rebuildSliders()
	v.d.setSession(s)
	v.changed(time.Now())
}

// applyChannel shows the view's channel as the file describes it (OME-Zarr
// omero metadata): in its colour and display window.
func (v *Viewer) applyChannel() {
	m := v.s.pyr.Meta()
	c := v.view.C
	if c >= len(m.Channels) || m.Label || m.RGB {
		return // colour pixels keep the colormap chosen
	}
	ch := m.Channels[c]
	if ch.HasColor {
		v.view.Colormap = fmt.Sprintf("#%02x%02x%02x", ch.Color[0], ch.Color[1], ch.Color[2])
	}
	if ch.HasWindow && ch.Lo < ch.Hi {
		v.view.Lo, v.view.Hi = ch.Lo, ch.Hi
	}
}

// showColormap selects the view's colormap in the toolbar, adding a
// channel's colour to the choices.
func (v *Viewer) showColormap() {
	if !slices.Contains(v.cmapSel.Options, v.view.Colormap) {
		v.cmapSel.Options = append(v.cmapSel.Options, v.view.Colormap)
	}
	v.cmapSel.SetSelected(v.view.Colormap)
	v.contrast.setWindow(v.view.Lo, v.view.Hi)
}

// changed asks for the current view to be drawn, for the input at time at.
func (v *Viewer) changed(at time.Time) { v.moved(at, 0) }

// moved is changed after a step through the planes in direction dir, whose
// neighbours are then prefetched.
func (v *Viewer) moved(at time.Time, dir int) {
	if v.s == nil || v.view.Width <= 0 || v.view.Height <= 0 {
		return // nothing to draw before the window is laid out
	}
	v.gen++
	v.d.ask(request{s: v.s, view: v.view, gen: v.gen, asked: at, dir: dir})
	v.syncSliders()
}

// show puts the newest drawn frame on screen; it runs on the UI goroutine,
// at most once per pending frame.
func (v *Viewer) show(f *frame) {
	if f.s != v.s {
		return // the data changed meanwhile
	}
	prev := v.shown
	v.pv.show(f.img)
	v.shown = f
	defer v.scrubNext(f) // after this frame is traced
	if f.gen == v.gen {
		// What the drawer chose for "fit" and "auto-contrast".
		if v.view.Lo == v.view.Hi && f.lo != f.hi {
			v.view.Lo, v.view.Hi = f.lo, f.hi
			v.contrast.setWindow(f.lo, f.hi)
		}
		if !(v.view.Zoom > 0) {
			v.view.Zoom, v.view.Center = f.view.Zoom, f.view.Center
		}
	}
	if f.info.Unfilled == 0 && f.s.shown.CompareAndSwap(false, true) {
		// The first frame of this data with data everywhere (perhaps coarse).
		v.opts.Trace.Event("first_image", nil)
	}
	if f.info.Complete {
		f.s.startBuild()
		_, _, normal := f.view.Orientation.Axes()
		key := histKey{s: f.s, orientation: f.view.Orientation, t: f.view.T, c: f.view.C, at: f.view.At(normal), level: f.info.Level}
		if key != v.hist.last {
			v.hist.last = key
			v.hist.ask(histRequest{key: key, view: f.view})
		}
	}
	// One frame_shown per view asked for; "refined" when a redraw of the
	// same view after chunks arrived makes it complete.
	ev := "frame_shown"
	if prev != nil && prev.gen == f.gen {
		if !f.info.Complete || prev.info.Complete {
			return
		}
		ev = "refined"
	}
	v.opts.Trace.Event(ev, map[string]any{
		"t": f.view.T, "z": f.view.Z, "c": f.view.C, "level": f.info.Level, "complete": f.info.Complete,
		"latency_ms": float64(time.Since(f.asked).Microseconds()) / 1000, "bytes_read": f.bytesRead,
		"plane": f.view.Orientation.String(), "y": f.view.Y, "x": f.view.X,
		"lo": f.view.Lo, "hi": f.view.Hi, "zoom": f.view.Zoom, "cx": f.view.Center.Col, "cy": f.view.Center.Row,
		"width": f.view.Width, "height": f.view.Height,
	})
	if v.hover {
		v.hovered(v.hoverX, v.hoverY, true)
	}
}

// tick refreshes the status bar twice a second until the viewer stops.
func (v *Viewer) tick() {
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			uiDo(v.updateStatus)
		case <-v.d.quit:
			return
		}
	}
}

func (v *Viewer) updateStatus() {
	if v.s == nil {
		return
	}
	pyr := v.s.pyr
	level, complete := 0, true
	if v.shown != nil {
		level, complete = v.shown.info.Level, v.shown.info.Complete
	}
	state := ""
	if !complete {
		state = " (refining)"
	}
	text := fmt.Sprintf("level %d/%d%s   pending %d   cache %s",
		level, len(pyr.Levels())-1, state, pyr.Pending(), humanBytes(pyr.CacheUsed()))
	if n := pyr.NotStored(); n > 0 {
		text += fmt.Sprintf("   %d chunks not stored yet (R reloads)", n)
	}
	if msg, ok := v.s.lastFailure(); ok {
		text += "   error: " + msg
		if msg != v.lastFailure {
			v.lastFailure = msg
			v.opts.Trace.Event("error", map[string]any{"message": msg})
		}
	}
	v.status.SetText(text)
	done, total := v.s.progress()
	select {
	case <-v.s.done:
		v.buildBar.Hide()
		if v.s.err != nil {
			v.status.SetText(v.status.Text + "   levels: " + v.s.err.Error())
		}
		return
	default:
	}
	if total > 0 && done < total {
		v.buildBar.Max = float64(total)
		v.buildBar.SetValue(float64(done))
		v.buildBar.Show()
	} else {
		v.buildBar.Hide()
	}
}

// showError shows err in a dialog; the current data stays open.
func (v *Viewer) showError(name string, err error) {
	v.opts.Trace.Event("error", map[string]any{"message": err.Error()})
	dialog.ShowError(fmt.Errorf("%s: %w", filepath.Base(name), err), v.win)
}

// openPath opens a file off the UI goroutine and shows it, or the error.
func (v *Viewer) openPath(path string) {
	if v.opts.Open == nil {
		return
	}
	go func() {
		src, err := v.opts.Open(context.Background(), path)
		uiDo(func() {
			if err != nil {
				v.showError(path, err)
				return
			}
			v.openSource(src, path)
		})
	}()
}

// dropped opens the first dropped file or folder.
func (v *Viewer) dropped(uris []fyne.URI) {
	if len(uris) > 0 {
		v.openPath(uriPath(uris[0]))
	}
}

// uriPath is the file path of a file URI, or the whole address of another
// (an http(s) URL of a Zarr store).
func uriPath(u fyne.URI) string {
	if u.Scheme() == "file" {
		return u.Path()
	}
	return u.String()
}

func (v *Viewer) saveView() {
	if v.s == nil || v.s.name == "demo" {
		return
	}
	w := v.view
	v.prefs.SetView(v.s.name, prefs.View{
		Plane: w.Orientation.String(), T: w.T, C: w.C, Z: w.Z, Y: w.Y, X: w.X,
		Zoom: w.Zoom, CenterX: w.Center.Col, CenterY: w.Center.Row, Lo: w.Lo, Hi: w.Hi, Colormap: w.Colormap,
	})
}

func (v *Viewer) restoreView(p prefs.View) {
	o, err := render.ParseOrientation(p.Plane)
	if err != nil {
		return
	}
	m := v.s.pyr.Meta()
	w := &v.view
	w.Orientation, w.Zoom, w.Center = o, p.Zoom, render.Point{Col: p.CenterX, Row: p.CenterY}
	w.T, w.C = clampInt(p.T, 0, m.Size('T')-1), clampInt(p.C, 0, m.Size('C')-1)
	w.Z, w.Y, w.X = clampInt(p.Z, 0, m.Size('Z')-1), clampInt(p.Y, 0, m.Size('Y')-1), clampInt(p.X, 0, m.Size('X')-1)
	w.Lo, w.Hi = p.Lo, p.Hi
	if _, err := render.ColormapNamed(p.Colormap); err == nil {
		w.Colormap = p.Colormap
	}
}

func humanBytes(b int64) string {
	f := float64(b)
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	return fmt.Sprintf("%.3g %s", f, units[i])
}

// uiDo and uiDoAndWait run a function on the UI goroutine; tests replace
// them, since the test driver runs functions on the calling goroutine.
var (
	uiDo        = fyne.Do
	uiDoAndWait = fyne.DoAndWait
)
