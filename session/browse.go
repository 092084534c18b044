package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"vastview/levels"
	"vastview/loader"
	"vastview/render"
)

// Entry is one file (or folder, or address) of the browsing list.
type Entry struct {
	Path string
	// Err says why it could not be opened, once that was tried; next and
	// previous skip it.
	Err error
}

// browseState is the browsing list part: the files opened together, or
// the files of the folder of the one opened, the one shown, and the data
// opened ahead of need. Its state is the session's, under the session's
// lock; it is handed the name of the data shown (its place in the list)
// and holds the data opened ahead until the session takes or releases
// them.
type browseState struct {
	list  []Entry
	pos   int              // the entry shown, -1 for none
	ahead map[string]*Data // neighbours opened ahead of need, by path
	keep  bool             // keep the view across files of one shape
	gen   uint64           // counts list changes, so stale work can tell
	// picked is the entry selected (clicked) that cannot be shown, "" for
	// none: the data shown stays, the list's place is the picked one's.
	picked string
	// note says, for the status bar, why the entry selected cannot be
	// shown, or which entries the last move skipped and why.
	note string
}

// set makes list the browsing list, entry pos the one shown (-1: none),
// picked the entry selected that cannot be shown ("" for none), note what
// the status bar says; it returns the list's new generation.
func (b *browseState) set(list []Entry, pos int, picked, note string) uint64 {
	b.gen++
	b.list, b.pos, b.picked, b.note = list, pos, picked, note
	return b.gen
}

// listed makes list, listed in the background for generation gen, the
// browsing list, shown the name of the data shown ("" for none), keeping
// why entries of the list before failed; false when the list changed
// meanwhile.
func (b *browseState) listed(gen uint64, list []Entry, shown string) bool {
	if b.gen != gen {
		return false
	}
	keepFailures(list, b.list)
	b.list, b.pos = list, b.indexOf(list, shown)
	return true
}

// indexOf is the place of the entry named shown in list (-1: none).
func (b *browseState) indexOf(list []Entry, shown string) int {
	if shown == "" {
		return -1
	}
	return slices.IndexFunc(list, func(e Entry) bool { return e.Path == shown })
}

// fail marks the entries match picks as failing to open with err.
func (b *browseState) fail(match func(Entry) bool, err error) {
	for i := range b.list {
		if match(b.list[i]) {
			b.list[i].Err = err
		}
	}
}

// place is the place in the list of the entry selected: the picked one,
// else the one shown (-1 for none).
func (b *browseState) place() int {
	if p := b.picked; p != "" {
		if i := slices.IndexFunc(b.list, func(e Entry) bool { return e.Path == p }); i >= 0 {
			return i
		}
	}
	return b.pos
}

// neighbours returns the entries next to the one shown that may open: the
// next and the previous not known to fail.
func (b *browseState) neighbours() []int {
	var out []int
	list, pos := b.list, b.pos
	if pos < 0 {
		return nil
	}
	for _, dir := range []int{1, -1} {
		for i := pos + dir; i >= 0 && i < len(list); i += dir {
			if list[i].Err == nil {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// isNeighbour reports whether path is next to the entry shown.
func (b *browseState) isNeighbour(path string) bool {
	for _, i := range b.neighbours() {
		if b.list[i].Path == path {
			return true
		}
	}
	return false
}

// holdAhead keeps d, the data of path opened ahead of need.
func (b *browseState) holdAhead(path string, d *Data) {
	if b.ahead == nil {
		b.ahead = map[string]*Data{}
	}
	b.ahead[path] = d
}

// takeAhead hands over the data of path opened ahead, if any.
func (b *browseState) takeAhead(path string) (*Data, bool) {
	d, ok := b.ahead[path]
	delete(b.ahead, path)
	return d, ok
}

// keepAhead keeps the data opened ahead of the paths in want, returning
// the others' to release, and the paths of want not opened ahead yet.
func (b *browseState) keepAhead(want []string) (todo []string, drop []*Data) {
	keep := map[string]bool{}
	for _, p := range want {
		keep[p] = true
		if _, ok := b.ahead[p]; !ok {
			todo = append(todo, p)
		}
	}
	for p, d := range b.ahead {
		if !keep[p] {
			drop = append(drop, d)
			delete(b.ahead, p)
		}
	}
	return todo, drop
}

// dropAhead hands over all the data opened ahead, to release.
func (b *browseState) dropAhead() []*Data {
	var out []*Data
	for _, d := range b.ahead {
		out = append(out, d)
	}
	b.ahead = nil
	return out
}

// Open opens path (a file, folder, glob or URL) off the calling goroutine
// and shows it, with its folder's other files as the browsing list; an
// error becomes a Problem and the data shown stays. An open already in
// progress is cancelled. Opening shows in Opening.
func (s *Session) Open(path string) { s.OpenList([]string{path}) }

// OpenList opens a set of paths as the browsing list, in their order
// (folders of volumes, movies or mixed files give their files in natural
// order; a folder of 2-D images of one shape and type is one stack), and
// shows the first that opens. One path that is a file makes its folder's
// files the list. Paths that cannot be opened stay in the list with why;
// when none opens, one Problem says so and the data shown stays.
func (s *Session) OpenList(paths []string) {
	if len(paths) == 0 {
		return
	}
	for i := range paths {
		paths[i] = Canonical(paths[i])
	}
	s.startOpen(paths[0], func(ctx context.Context, current func() bool) {
		list, start, err := expandList(ctx, paths)
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				s.problem(displayName(paths[0]), err)
			}
			return
		}
		s.openInList(ctx, current, list, start, 1, false)
	})
}

// OpenFolder opens a folder as one stack of frames (asStack), or as the
// browsing list of its files.
func (s *Session) OpenFolder(dir string, asStack bool) {
	dir = Canonical(dir)
	s.startOpen(dir, func(ctx context.Context, current func() bool) {
		list := []Entry{{Path: dir}}
		if !asStack && !loader.ListedFolder(dir) {
			list = nil
			for _, f := range folderFiles(dir) {
				list = append(list, Entry{Path: f})
			}
			if len(list) == 0 {
				s.problem(displayName(dir), errors.New("no image files in the folder"))
				return
			}
		}
		s.openInList(ctx, current, list, 0, 1, false)
	})
}

// Browse makes paths the browsing list (as OpenList would: folders of
// files give their files) without opening them; the data shown, opened
// from one of them, keeps its place. Listing runs in the background.
func (s *Session) Browse(paths []string) {
	for i := range paths {
		paths[i] = Canonical(paths[i])
	}
	s.listInBackground(nil, func() ([]Entry, bool) {
		list, _, err := expandList(context.Background(), paths)
		return list, err == nil
	})
}

// OpenFailed shows that paths, asked for together, could not be opened,
// err saying why the first did not: that one is selected in the browsing
// list (paths, or for one path its folder's files, listed in the
// background) with why, err is a Problem, and the data shown (if any)
// stays, as when a file that does not open is dropped.
func (s *Session) OpenFailed(paths []string, err error) {
	if len(paths) == 0 {
		return
	}
	for i := range paths {
		paths[i] = Canonical(paths[i])
	}
	first := paths[0]
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.browse.set([]Entry{{Path: first, Err: err}}, -1, first, displayName(first)+" cannot be shown: "+err.Error())
	s.mu.Unlock()
	s.problem(displayName(first), err)
	s.changed(ListChanged | StatusChanged)
	s.Browse(paths)
}

// listAround makes the files of path's folder the browsing list, path the
// one shown, listing the folder in the background.
func (s *Session) listAround(path string) {
	s.listInBackground([]Entry{{Path: path}}, func() ([]Entry, bool) {
		list, _ := folderList(path)
		return list, true
	})
}

// listInBackground makes first the browsing list at once (unless nil),
// then what list returns, unless the list changed meanwhile; the data
// shown keeps its place in it, and its thumbnails and neighbours follow.
func (s *Session) listInBackground(first []Entry, list func() ([]Entry, bool)) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	list0, pos := s.browse.list, s.browse.pos
	if first != nil {
		list0, pos = first, 0
	}
	gen := s.browse.set(list0, pos, s.browse.picked, s.browse.note)
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		l, ok := list()
		if !ok {
			return
		}
		s.mu.Lock()
		if !s.closed && s.browse.listed(gen, l, s.shownNameLocked()) {
			s.startThumbsLocked()
		}
		s.mu.Unlock()
		s.changed(ListChanged)
		s.prefetchNeighbours()
	}()
}

// keepFailures copies to the entries of list why those of old with the
// same path did not open.
func keepFailures(list, old []Entry) {
	why := map[string]error{}
	for _, e := range old {
		if e.Err != nil {
			why[e.Path] = e.Err
		}
	}
	for i := range list {
		if err, ok := why[list[i].Path]; ok && list[i].Err == nil {
			list[i].Err = err
		}
	}
}

// openInList opens the entry at start of list, or the next one in
// direction dir that opens, marking those that do not; it then shows it
// (keeping the view when asked and the shapes match) with list as the
// browsing list.
//
// With dir 0 only the entry at start is tried: when it does not open, it
// is selected (picked) with why, and the data shown stays.
func (s *Session) openInList(ctx context.Context, current func() bool, list []Entry, start, dir int, keep bool) {
	var problems, skipped []Problem
	for i := start; i >= 0 && i < len(list); i += dir {
		if list[i].Err == nil {
			d, err := s.dataFor(ctx, list[i].Path)
			if err == nil {
				if !current() {
					d.Release()
					return
				}
				s.showInList(list, i, d, keep, skipNote(skipped))
				return
			}
			if errors.Is(err, context.Canceled) {
				return
			}
			list[i].Err = err
			problems = append(problems, Problem{Subject: displayName(list[i].Path), Err: err})
		}
		skipped = append(skipped, Problem{Subject: displayName(list[i].Path), Err: list[i].Err})
		if dir == 0 {
			if current() {
				s.pickInList(list, i)
			}
			return
		}
	}
	if current() {
		s.noteFailures(problems, skipped)
	}
	switch {
	case len(problems) == 1:
		s.problem(problems[0].Subject, problems[0].Err)
	case len(problems) > 1:
		var each []string
		for _, p := range problems {
			each = append(each, p.Subject+": "+p.Err.Error())
		}
		s.problem("", fmt.Errorf("none of the %d files could be opened: %s", len(problems), strings.Join(each, "; ")))
	}
}

// showInList shows d, opened from entry i of list, with list as the
// browsing list; note is what the status bar says of the entries skipped
// on the way ("" for none).
func (s *Session) showInList(list []Entry, i int, d *Data, keep bool, note string) {
	s.mu.Lock()
	s.browse.set(list, i, "", note)
	s.startThumbsLocked()
	s.mu.Unlock()
	s.traceNote(note)
	if err := s.show(d, keep); err != nil {
		s.problem(displayName(list[i].Path), err)
	}
}

// pickInList selects entry i of list, which cannot be shown, with list as
// the browsing list: the data shown stays, and the status bar says why.
func (s *Session) pickInList(list []Entry, i int) {
	note := displayName(list[i].Path) + " cannot be shown: " + list[i].Err.Error()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.browse.set(list, s.browse.indexOf(list, s.shownNameLocked()), list[i].Path, note)
	s.startThumbsLocked()
	s.traceNote(note) // before the list says so: a host reading it finds the trace written
	s.mu.Unlock()
	s.changed(ListChanged | StatusChanged)
}

// noteFailures marks the entries of the list shown that failed to open
// (problems) when no entry opened, and, when all of them were known to
// fail before, says in the status bar that they were skipped.
func (s *Session) noteFailures(problems, skipped []Problem) {
	note := ""
	if len(problems) == 0 {
		note = skipNote(skipped)
	}
	s.mu.Lock()
	for _, p := range problems {
		s.browse.fail(func(e Entry) bool { return displayName(e.Path) == p.Subject && e.Err == nil }, p.Err)
	}
	if note != "" {
		s.browse.note = note
	}
	s.mu.Unlock()
	s.traceNote(note)
	s.changed(ListChanged | StatusChanged)
}

// skipNote is what the status bar says of the entries a move skipped.
func skipNote(skipped []Problem) string {
	if len(skipped) == 0 {
		return ""
	}
	var each []string
	for _, p := range skipped {
		each = append(each, p.Subject+" ("+p.Err.Error()+")")
	}
	return "skipped " + strings.Join(each, ", ")
}

// traceNote writes a note on the browsing list to the trace as an error.
func (s *Session) traceNote(note string) {
	if note != "" {
		s.trace.Event("error", map[string]any{"message": note})
	}
}

// Note is what the status bar says of the browsing list: why the entry
// selected cannot be shown, or which entries the last move skipped and
// why ("" for nothing).
func (s *Session) Note() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.browse.note
}

// placeLocked is the place in the list of the entry selected: the picked
// one, else the one shown (-1 for none).
func (s *Session) placeLocked() int { return s.browse.place() }

// shownNameLocked is the name of the data shown, "" for none.
func (s *Session) shownNameLocked() string {
	if s.data == nil {
		return ""
	}
	return s.data.Name
}

// Series lists the images of the file shown when it holds several (nil
// otherwise), and which of them is shown.
func (s *Session) Series() ([]loader.Series, int) {
	m := s.Meta()
	if m == nil {
		return nil, 0
	}
	return m.Series, m.SeriesIndex
}

// ShowSeries shows image i of the file shown (PATH#i), in its place in the
// browsing list; the view is kept when the shapes match and the keep-view
// option is on. An image that cannot be opened is a Problem, and the one
// shown stays.
func (s *Session) ShowSeries(i int) {
	s.mu.Lock()
	d, list, pos, keep := s.data, slices.Clone(s.browse.list), s.browse.pos, s.browse.keep
	s.mu.Unlock()
	if d == nil || d.Name == "" {
		return
	}
	m := d.Pyr.Meta()
	if i < 0 || i >= len(m.Series) || i == m.SeriesIndex {
		return
	}
	file, _ := loader.SplitSelector(d.Name)
	path := loader.WithSelector(file, m.Series[i].Selector)
	if pos < 0 || pos >= len(list) {
		list, pos = []Entry{{Path: path}}, 0
	}
	s.startOpen(path, func(ctx context.Context, current func() bool) {
		nd, err := s.dataFor(ctx, path)
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				s.problem(displayName(path), err)
			}
			return
		}
		if !current() {
			nd.Release()
			return
		}
		list[pos] = Entry{Path: path}
		s.showInList(list, pos, nd, keep, "")
	})
}

// NextSeries shows the next image of the file shown (dir 1) or the
// previous one (dir -1), when it holds several.
func (s *Session) NextSeries(dir int) {
	if list, cur := s.Series(); cur+dir >= 0 && cur+dir < len(list) {
		s.ShowSeries(cur + dir)
	}
}

// dataFor returns the data of path: the one opened ahead, or newly opened.
func (s *Session) dataFor(ctx context.Context, path string) (*Data, error) {
	s.mu.Lock()
	if d, ok := s.browse.takeAhead(path); ok {
		s.mu.Unlock()
		return d, nil
	}
	s.mu.Unlock()
	src, err := s.opts.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	return s.openData(path, src, false)
}

// NextFile shows the next file of the browsing list that opens (dir 1),
// the previous one (dir -1), the first (FirstFile) or the last
// (LastFile), keeping the view when the shapes match and the keep-view
// option is on.
func (s *Session) NextFile(dir int) {
	s.moveInList(func(pos, n int) (int, int) { return pos + dir, dir })
}

// FirstFile shows the first file of the browsing list that opens.
func (s *Session) FirstFile() { s.moveInList(func(int, int) (int, int) { return 0, 1 }) }

// LastFile shows the last file of the browsing list that opens.
func (s *Session) LastFile() { s.moveInList(func(_, n int) (int, int) { return n - 1, -1 }) }

// moveInList opens the entry where picks it, looking on in its direction.
func (s *Session) moveInList(pick func(pos, n int) (int, int)) {
	s.mu.Lock()
	list := slices.Clone(s.browse.list)
	pos, keep := s.placeLocked(), s.browse.keep
	s.mu.Unlock()
	if len(list) < 2 {
		return
	}
	start, dir := pick(pos, len(list))
	if start < 0 || start >= len(list) || start == pos {
		return
	}
	s.startOpen(list[start].Path, func(ctx context.Context, current func() bool) {
		s.openInList(ctx, current, list, start, dir, keep)
	})
}

// OpenEntry shows entry i of the browsing list (a click in the file
// strip); an entry that cannot be opened is selected, the data shown
// stays, and Note says why.
func (s *Session) OpenEntry(i int) {
	s.moveInList(func(pos, n int) (int, int) { return i, 0 })
}

// List returns the browsing list and the place in it of the entry
// selected: the file shown, or an entry picked that cannot be shown (-1
// when none).
func (s *Session) List() ([]Entry, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.browse.list), s.placeLocked()
}

// SetKeepView sets whether the next file opens at the view of the one
// shown when their shapes match (on by default).
func (s *Session) SetKeepView(on bool) {
	s.mu.Lock()
	s.browse.keep = on
	s.mu.Unlock()
}

// KeepView reports the keep-view option.
func (s *Session) KeepView() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.browse.keep
}

// sameGeometry reports whether two arrays have the same axes, shape and
// sample type: one view fits both.
func sameGeometry(a, b *loader.Meta) bool {
	return a.Axes == b.Axes && slices.Equal(a.Shape, b.Shape) && a.DType == b.DType && a.RGB == b.RGB
}

// isNeighbourLocked reports whether path is next to the file shown in the
// browsing list.
func (s *Session) isNeighbourLocked(path string) bool { return s.browse.isNeighbour(path) }

// aheadCacheBytes is the chunk cache of data opened ahead (see
// levels.Part).
func aheadCacheBytes(budget int64) int64 { return levels.Part(budget, levels.PartAhead) }

// prefetchNeighbours opens the next and previous files of the list ahead
// of need and asks for the chunks of their first view, so that moving to
// them shows their first image at once; files no longer next to the one
// shown are released.
func (s *Session) prefetchNeighbours() {
	s.mu.Lock()
	if s.closed || s.data == nil {
		s.mu.Unlock()
		return
	}
	var want []string
	for _, i := range s.browse.neighbours() {
		want = append(want, s.browse.list[i].Path)
	}
	todo, drop := s.browse.keepAhead(want)
	view, cur, keep, gen := s.drawnViewLocked(), s.data, s.browse.keep, s.browse.gen
	s.wg.Add(len(todo))
	s.mu.Unlock()
	for _, d := range drop {
		go d.Release()
	}
	for _, p := range todo {
		go func() {
			defer s.wg.Done()
			s.openAhead(p, view, cur, keep, gen)
		}()
	}
}

// openAhead opens path as data ahead of need and asks for the chunks of
// the view it would first show.
func (s *Session) openAhead(path string, view render.View, cur *Data, keep bool, gen uint64) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := s.stopOnClose(cancel)
	defer stop()
	src, err := s.opts.Open(ctx, path)
	var d *Data
	if err == nil {
		d, err = s.openData(path, src, true)
	}
	if err != nil {
		if s.markFailed(path, err, gen) {
			s.prefetchNeighbours() // the one beyond it, then
		}
		return
	}
	s.mu.Lock()
	if s.closed || s.browse.gen != gen || !s.browse.isNeighbour(path) || s.browse.ahead[path] != nil {
		s.mu.Unlock()
		d.Release()
		return
	}
	s.browse.holdAhead(path, d)
	s.mu.Unlock()
	m := d.Pyr.Meta()
	if !(keep && sameGeometry(cur.Pyr.Meta(), m)) {
		w, h := view.Width, view.Height
		view = render.View{Orientation: render.XY, Z: m.Size('Z') / 2, Width: w, Height: h}
		if p, ok := s.prefs.View(path); ok {
			if o, err := loader.ParseOrientation(p.Plane); err == nil {
				view.Orientation, view.Zoom, view.Center = o, p.Zoom, render.Point{Col: p.CenterX, Row: p.CenterY}
				view.T, view.Z, view.Y, view.X = p.T, p.Z, p.Y, p.X
			}
		}
	}
	var r render.Renderer
	r.RequestFinest(view, d.Pyr, 1, firstPlaneBytes)
	r.Render(view, d.Pyr, 1)
}

// markFailed notes that path of the list gen could not be opened, and
// reports whether it did (the list is still that one).
func (s *Session) markFailed(path string, err error, gen uint64) bool {
	if errors.Is(err, context.Canceled) {
		return false
	}
	s.mu.Lock()
	marked := s.browse.gen == gen && !s.closed
	if marked {
		s.browse.fail(func(e Entry) bool { return e.Path == path }, err)
	}
	s.mu.Unlock()
	s.changed(ListChanged)
	return marked
}

// stopOnClose calls cancel when the session closes; the returned function
// stops that.
func (s *Session) stopOnClose(cancel context.CancelFunc) func() {
	done := make(chan struct{})
	go func() {
		select {
		case <-s.done:
			cancel()
		case <-done:
		}
	}()
	return func() { close(done) }
}

// expandList turns the paths given into a browsing list and the entry to
// show first.
func expandList(ctx context.Context, paths []string) ([]Entry, int, error) {
	if len(paths) == 1 {
		st, err := os.Stat(paths[0])
		switch {
		case err != nil && !loader.IsURL(paths[0]):
			// An image of a file that holds several has its file's place.
			if file, sel := loader.SplitSelector(paths[0]); sel != "" {
				if st, err := os.Stat(file); err == nil && !st.IsDir() {
					list, start := folderList(paths[0])
					return list, start, nil
				}
			}
			return []Entry{{Path: paths[0]}}, 0, nil // opening it says what it is
		case loader.IsURL(paths[0]) || loader.IsPattern(paths[0]):
			return []Entry{{Path: paths[0]}}, 0, nil
		case !st.IsDir():
			list, start := folderList(paths[0])
			return list, start, nil
		}
	}
	var list []Entry
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		if files := listedFiles(ctx, p); files != nil {
			for _, f := range files {
				list = append(list, Entry{Path: f})
			}
			continue
		}
		list = append(list, Entry{Path: p})
	}
	if len(list) == 0 {
		return nil, 0, errors.New("no image files in the folder")
	}
	return list, 0, nil
}

// listedFiles returns the files a folder among the paths given stands for
// in the browsing list: nil when it is an entry of its own, as a file is
// (not a folder; a folder a format reads as one image: a Zarr store, a
// DICOM series, a stack of 2-D frames of one shape; a folder with no file
// a format lists, which opening then explains); else its files (a folder
// of volumes, movies or mixed files).
func listedFiles(ctx context.Context, p string) []string {
	st, err := os.Stat(p)
	if err != nil || !st.IsDir() || loader.FolderIsImage(p) {
		return nil
	}
	if isStack(ctx, p) {
		return nil
	}
	return folderFiles(p)
}

// folderList is the browsing list of a file: the files of its folder, and
// its place among them.
// An image of a file that holds several (PATH#SELECTOR) has its file's place.
func folderList(path string) ([]Entry, int) {
	file, _ := loader.SplitSelector(path)
	files := folderFiles(filepath.Dir(file))
	i := slices.Index(files, file)
	if i < 0 { // a file no format lists by its name
		files = append(files, file)
		slices.SortFunc(files, loader.NaturalCompare)
		i = slices.Index(files, file)
	}
	list := make([]Entry, len(files))
	for k, f := range files {
		list[k] = Entry{Path: f}
	}
	list[i].Path = path
	return list, i
}

// folderFiles lists the files of dir that a format reads and the folders
// that are one image (a Zarr store, an N5 container), by their names and
// markers (loader.Listed, loader.ListedFolder), in natural order.
func folderFiles(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() && loader.ListedFolder(p) || !e.IsDir() && loader.Listed(e.Name()) {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, loader.NaturalCompare)
	return out
}

// isStack reports whether a folder is one stack of frames: its files are
// all 2-D images, and its first and last have one shape and type. A
// folder of volumes, movies or mixed files is a list of files instead.
func isStack(ctx context.Context, dir string) bool {
	files := folderFiles(dir)
	if len(files) == 0 {
		return false
	}
	for _, f := range files {
		if !loader.IsFrame(filepath.Base(f)) {
			return false
		}
	}
	var metas []*loader.Meta
	for _, f := range []string{files[0], files[len(files)-1]} {
		src, err := loader.Open(ctx, f)
		if err != nil {
			return false
		}
		metas = append(metas, src.Meta())
		src.Close()
	}
	return planes(metas[0]) == 1 && sameGeometry(metas[0], metas[1])
}

// planes is the number of 2-D images an array holds (colour samples are
// one image).
func planes(m *loader.Meta) int {
	n := 1
	for i, a := range []byte(m.Axes) {
		if a != 'Y' && a != 'X' && !(a == 'C' && m.RGB) {
			n *= m.Shape[i]
		}
	}
	return n
}
