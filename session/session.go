// Package session is vastview's application core, without a window: the
// data opened (a pyramid over a source, its disk cache and background
// build), the view of it and every change a key, the mouse or a menu makes
// to it, the drawing loop that turns views into frames off the caller's
// goroutine, the histogram, the status, playback and held-key scrubbing,
// exports, the trace, and each file's remembered view. A window (package
// ui) forwards input to a Session and shows what it hands out; so can a
// test.
//
// A Session's methods are safe for concurrent use. It calls its host back
// through two callbacks, OnFrame and OnUpdate, each at most once until the
// host takes what is waiting (TakeFrame, TakeUpdate), so that nothing
// queues up on the host's goroutine however fast frames come.
//
// A Session is composed of parts, each with its own state, that do not
// reach into each other: the session hands each what it needs.
//   - drawer (draw.go): the drawing loop, on its own goroutine, with the
//     latest-frame slot; it draws each Scene through a painter
//     (painter.go), the seam where other renderers join. The same painter
//     draws a Picture (picture.go: `vastview plane --out .png`) and each
//     frame of a Movie, so the command line draws what the window shows.
//   - notifier (notify.go): the changes and problems waiting for the host;
//     its own lock.
//   - opener (opener.go): the open in progress; its own lock.
//   - exportSet (export.go): the exports in progress; its own lock.
//   - player (play.go): playback's playhead and count of frames drawn,
//     handed the time and positions under the session's lock.
//   - scrubber (scrub.go): the held key the session repeats, likewise.
//   - frameTracer (frame.go): the frames shown, written to the trace.
//   - orthoState (ortho.go): the four panels' layout and zooms.
//   - histState (hist.go): the contrast panel's histogram and the ranges
//     it is drawn over, handed the frames and the data shown; its
//     histWorker computes histograms on their own goroutine and hands
//     them back through two functions it is given.
//   - thumbnails (thumbs.go): the browsing list's thumbnails and the
//     worker making them, handed the list, the place in it and whether
//     the keys and playback rest.
//   - projState (project.go): the projection shown instead of the plane
//     and the source it is drawn from, handed the data and the view.
//   - layerState (layers.go): the layers over the data shown, handed the
//     data's metadata and the view; the session has the drawer follow
//     the layers' data.
//   - channelSet (channels.go): how each channel is shown and the mode,
//     handed the view, whose window and colormap are the current
//     channel's.
//   - browseState (browse.go): the browsing list, the place in it and
//     the data opened ahead of need, handed the name of the data shown.
//   - pointer (hover.go): where the pointer is over the picture, and the
//     read-out of the data there, handed the data and the frame shown.
//   - roiState (roi.go, roimeasure.go): the measuring tool, the ROIs drawn
//     and their measurements, computed by workers that hand them back.
//
// Still the session's own, under its lock: the data shown, the view and
// whether it is fitted, the frame shown, the modifier keys, the status
// line and the scale bar and time stamp switches.
//
// Locks are taken in one order: the session's (mu) first, then a part's
// (the drawer's, notifier's, opener's, exportSet's, a projection
// source's); no part calls back into the session while holding its own,
// and the parts kept under the session's lock have none.
package session

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"vastview/loader"
	"vastview/prefs"
	"vastview/render"
)

// Options configure a Session.
type Options struct {
	// Open opens a path or URL; loader.Open when nil.
	Open func(ctx context.Context, path string) (loader.Source, error)
	// Prefs keeps recent files, views and budgets; in memory when nil.
	Prefs *prefs.Prefs
	// Trace, when non-nil, receives the interaction events.
	Trace *Tracer
	// Clock runs the session's timers; the real clock when nil.
	Clock Clock
	// DiskRoot is the folder of the disk cache of computed levels (""
	// the user cache folder, "-" none).
	DiskRoot string
	// OnFrame is called, from any goroutine, when a frame waits to be
	// taken with TakeFrame; not again until it has been.
	OnFrame func()
	// OnUpdate is called, from any goroutine, when something other than
	// the frame changed (see Change) and waits to be taken with
	// TakeUpdate; not again until it has been.
	OnUpdate func()
}

// Change says what changed since the last TakeUpdate.
type Change uint32

// The changes a host shows.
const (
	DataChanged       Change = 1 << iota // other data: title, sliders, channels
	ViewChanged                          // position, plane, zoom, window, colormap
	HistogramChanged                     // the contrast panel's bars
	StatusChanged                        // the status line and progress
	HoverChanged                         // the read-out under the pointer
	PlayChanged                          // playing or not, the rate
	RecentChanged                        // the recent files
	OpeningChanged                       // a file is being opened, or no longer
	ListChanged                          // the browsing list, or the place in it
	ThumbnailsChanged                    // a thumbnail of the list is made
	LayersChanged                        // the layers over the image, or how they are shown
	ROIChanged                           // the measuring tool, the ROIs, their measurements
)

// Problem is an error to show the user: what failed (a file's name, an
// action) and why.
type Problem struct {
	Subject string
	Err     error
}

// Message is the problem as the user reads it, "Subject: Err", without the
// credentials or signatures an address in it may carry (loader.Redact).
func (p Problem) Message() string {
	msg := p.Err.Error()
	if p.Subject != "" {
		msg = p.Subject + ": " + msg
	}
	return loader.Redact(msg)
}

// Update is what changed since the last TakeUpdate, and the problems to
// show, oldest first.
type Update struct {
	Changes  Change
	Problems []Problem
}

// Session is the application core. See the package documentation.
type Session struct {
	opts  Options
	clock Clock
	prefs *prefs.Prefs
	trace *Tracer

	mu     sync.Mutex
	data   *Data
	view   render.View
	chans  channelSet // per channel: window and colormap; the mode
	fitted bool       // the view fits the plane (until a zoom or pan)
	gen    uint64
	shown  *Frame // taken by the host: on screen
	mods   Mods
	// dragging is set while a drag of an oblique plane goes on: the
	// levels being built pause, so that its frames get the cores, until
	// it ends (dragEnd resumes them).
	dragging bool
	dragEnd  func()
	scrub    scrubber
	play     player
	hover    pointer // where the pointer is, and the read-out there
	hist     histState
	status   string
	opens    opener    // the open in progress: its own lock
	exports  exportSet // its own lock
	browse   browseState
	thumbs   thumbnails
	layers   layerState
	noBar    bool       // the scale bar is hidden (View → Show / Hide → Scale Bar)
	conv     Convention // how anatomical volumes are laid on the screen (View → Display Convention)
	stamp    bool       // the time stamp is drawn (View → Show / Hide → Time Stamp)
	proj     projState
	ortho    orthoState
	v3       view3dState
	traced   frameTracer
	rois     roiState // the measuring tools and the ROIs

	notes notifier // what waits for the host: its own lock

	closed bool
	done   chan struct{} // closed by Close
	draw   *drawer
	hw     *histWorker
	tick   Timer
	wg     sync.WaitGroup // background work in flight (but exports and opens)
}

// New starts a session with no data.
func New(opts Options) *Session {
	s := &Session{opts: opts, clock: opts.Clock, prefs: opts.Prefs, trace: opts.Trace, done: make(chan struct{})}
	s.notes.onUpdate = opts.OnUpdate
	s.traced.trace = opts.Trace
	if s.opts.Open == nil {
		s.opts.Open = loader.Open
	}
	s.thumbs.open, s.thumbs.root = s.opts.Open, opts.DiskRoot
	s.browse.keep = true
	if s.clock == nil {
		s.clock = realClock{}
	}
	if s.prefs == nil {
		s.prefs = prefs.New(&prefs.MapStore{})
	}
	if c, err := ParseConvention(s.prefs.DisplayConvention()); err == nil && c != StorageOrder {
		s.conv = c
	}
	s.play.rate = defaultPlayRate
	s.rois.reset()
	s.draw = newDrawer(s)
	s.hw = newHistWorker(s.channelRange, s.setHistogram)
	go s.draw.run()
	go s.hw.run()
	s.mu.Lock()
	s.scheduleTick()
	s.mu.Unlock()
	return s
}

// Close saves the view of the data shown, cancels the exports and the open
// in progress and waits for them, stops drawing, and closes the data. The
// session is not used afterwards.
func (s *Session) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.done)
	s.saveViewLocked()
	s.stopPlayLocked()
	if s.tick != nil {
		s.tick.Stop()
	}
	s.opens.close()
	s.exports.close()
	d := s.data
	s.data = nil
	proj, oproj := s.proj.take(), s.ortho.proj
	s.ortho.proj = nil
	layers := s.dropLayersLocked()
	ahead := s.browse.dropAhead()
	s.mu.Unlock()
	s.opens.wait() // before wg: an open may start work wg counts
	s.wg.Wait()
	s.exports.wait()
	for _, p := range []*projection{proj, oproj} {
		if p != nil {
			p.close()
		}
	}
	for _, a := range ahead {
		a.Release()
	}
	for _, l := range layers {
		l.Release()
	}
	s.draw.stop()
	s.hw.stop()
	if d != nil {
		d.Release()
	}
	s.trace.Event("closed", nil)
}

// Canonical is the name a file or address is known by: URLs as they are,
// paths cleaned and made absolute, so that "data/x.tif" and
// "/abs/data/x.tif" are one file in the recent list and the saved views.
func Canonical(path string) string {
	if path == "" || loader.IsURL(path) {
		return path
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}

// startOpen runs open off the calling goroutine as the open in progress
// (see opener.start).
func (s *Session) startOpen(path string, open func(ctx context.Context, current func() bool)) {
	s.opens.start(path, open, func() { s.changed(OpeningChanged) })
}

// Opening returns the path being opened, if any.
func (s *Session) Opening() (string, bool) { return s.opens.path() }

// CancelOpen stops the open in progress (a slow server, say).
func (s *Session) CancelOpen() { s.opens.cancel() }

// OpenSource shows src, already opened, named name (a path or URL, "" for
// the built-in demo); it owns src. The data shown before is released in
// the background (an export of it goes on). The browsing list becomes the
// files of name's folder (listed in the background).
func (s *Session) OpenSource(src loader.Source, name string) error {
	name = Canonical(name)
	d, err := s.openData(name, src, false)
	if err != nil {
		return err
	}
	if err := s.show(d, false); err != nil {
		return err
	}
	if name != "" {
		s.listAround(name)
	}
	return nil
}

// openData builds the Data of src with the session's budgets; data opened
// ahead of need gets a part of the chunk cache and builds no levels until
// it is shown.
func (s *Session) openData(name string, src loader.Source, ahead bool) (*Data, error) {
	opt := DataOptions{CacheBytes: s.prefs.CacheBytes(), DiskBytes: s.prefs.DiskCacheBytes(), DiskRoot: s.opts.DiskRoot}
	if ahead {
		opt.CacheBytes = aheadCacheBytes(opt.CacheBytes)
		opt.Hold = true
	}
	return OpenData(name, src, opt)
}

// show makes d the data shown (the session owns its reference); with
// keep, the view stays as it is when d has the shape of the data shown
// before (comparing acquisitions), else d gets its own last view.
func (s *Session) show(d *Data, keep bool) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		d.Release()
		return errors.New("the viewer is closing")
	}
	old := s.data
	s.saveViewLocked()
	s.stopPlayLocked()
	s.play.chosen = false // the new data's own rate, until one is chosen
	oldLayers := s.dropLayersLocked()
	s.data = d
	d.readWhenShown, _ = d.Pyr.BytesRead()
	s.shown = nil
	s.trace.Event("open", map[string]any{"path": d.Name})
	if !(keep && old != nil && sameGeometry(old.Pyr.Meta(), d.Pyr.Meta())) {
		s.resetViewLocked()
	} else {
		s.keepChannelLocked()
		s.autoAgainLocked() // "auto" stays auto: the new file's own window
		s.loadChannelLocked()
	}
	recent := false
	if d.Persist() {
		s.prefs.AddRecent(d.Name)
		recent = true
	}
	s.hist.reset()
	s.rois.reset()
	s.restoreROIsLocked()
	s.draw.follow(d)
	d.Pyr.SetCacheBytes(s.prefs.CacheBytes())
	s.askLocked(s.clock.Now(), 0)
	keepOld := old != nil && s.isNeighbourLocked(old.Name)
	if keepOld {
		s.browse.holdAhead(old.Name, old) // back is one key away
	}
	s.mu.Unlock()
	if old != nil && !keepOld {
		go old.Release()
	}
	for _, l := range oldLayers {
		go l.Release()
	}
	s.restoreLayers(d)
	c := DataChanged | ViewChanged | HistogramChanged | StatusChanged | HoverChanged | PlayChanged | ListChanged | LayersChanged
	if recent {
		c |= RecentChanged
	}
	s.changed(c)
	return nil
}

// resetViewLocked sets the view for newly opened data: its own last view
// if it has one, else the middle plane, fitted, each channel as the file
// describes it.
func (s *Session) resetViewLocked() {
	m := s.data.Pyr.Meta()
	w, h := s.view.Width, s.view.Height
	four := s.ortho.on
	if four { // laid out again for the new data
		w, h = s.ortho.w, s.ortho.h
		s.ortho.on = false
		s.dropOrthoProjLocked()
	}
	s.view = render.View{Orientation: render.XY, Z: m.Size('Z') / 2, Width: w, Height: h}
	s.fitted = true
	s.chans.reset(m)
	s.loadChannelLocked()
	three := s.v3.on
	s.v3 = view3dState{cam: frontCamera(m, s.conv)}
	if s.data.Persist() {
		if saved, ok := s.prefs.View(s.data.Name); ok {
			s.restoreViewLocked(saved)
			four = saved.Layout == "four"
			three = saved.Layout == "3d"
		}
	}
	s.v3.on = three && !four && can3D(m)
	s.view.Flips = Flips(m, s.conv)
	s.ortho.places = panelPlaces(m)
	if four {
		s.setLayoutLocked(m, FourPanels)
	}
}

// Data returns the data shown, or nil. It stays valid while shown; hold it
// longer only through an export.
func (s *Session) Data() *Data {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.data
}

// Meta describes the data shown (with every level), or is nil.
func (s *Session) Meta() *loader.Meta {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.data == nil {
		return nil
	}
	return s.data.Pyr.Meta()
}

// View returns the view: what the next frame shows.
func (s *Session) View() render.View {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.view
}

// Title is the window's title: the data's file name, and its place in the
// browsing list ("cells.tif — 3/12"), or "vastview".
func (s *Session) Title() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var title string
	switch {
	case s.browse.picked != "":
		title = "vastview — " + displayName(s.browse.picked) + " (cannot be shown)"
	case s.data == nil:
		return "vastview"
	case s.data.Name == "":
		return "vastview — demo"
	default:
		title = "vastview — " + displayName(s.data.Name)
	}
	if n, at := len(s.browse.list), s.placeLocked(); n > 1 && at >= 0 {
		title += fmt.Sprintf(" — %d/%d", at+1, n)
	}
	return title
}

// displayName is a path's or URL's last element, without the
// credentials or signature an address may carry (loader.Redact).
func displayName(name string) string {
	name = strings.TrimRight(loader.Redact(name), "/")
	if i := strings.LastIndexAny(name, "/\\"); i >= 0 && i < len(name)-1 {
		return name[i+1:]
	}
	return name
}

// Recent returns the recent files, most recent first.
func (s *Session) Recent() []string { return s.prefs.Recent() }

// Prefs is the session's preferences.
func (s *Session) Prefs() *prefs.Prefs { return s.prefs }

// TakeUpdate returns what changed since it was last called, and lets
// OnUpdate be called again.
func (s *Session) TakeUpdate() Update { return s.notes.take() }

// changed notes c and calls OnUpdate unless a call is waiting already. It
// must not be called with s.mu held.
func (s *Session) changed(c Change) {
	s.notes.note(c)
	s.notes.flush()
}

// noteLocked notes c for the next TakeUpdate; flush then tells the host.
// (It may be called with s.mu held or not.)
func (s *Session) noteLocked(c Change) { s.notes.note(c) }

// flush calls OnUpdate if something waits to be taken and no call is
// waiting already. It must not be called with s.mu held.
func (s *Session) flush() { s.notes.flush() }

// problem reports err about subject to the user and in the trace.
func (s *Session) problem(subject string, err error) {
	s.trace.Event("error", map[string]any{"message": fmt.Sprintf("%s: %v", subject, err)})
	s.notes.problem(Problem{Subject: subject, Err: err})
	s.notes.flush()
}

// unlockNotify notes c, unlocks s.mu and tells the host.
func (s *Session) unlockNotify(c Change) {
	s.notes.note(c)
	s.mu.Unlock()
	s.notes.flush()
}

// Now is the session clock's time.
func (s *Session) Now() time.Time { return s.clock.Now() }
