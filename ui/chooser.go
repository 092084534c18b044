package ui

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vastview/loader"
)

// Fyne's dialog.FileDialog (2.7) is not used for choosing files: its open
// mode has no path box (the name is a label), it takes one filter and
// offers the user no choice of it, and a double-click's second click that
// lands after a folder has opened acts on the new folder's entry under the
// pointer (each item keeps its last click time across the folders it
// shows), so it opened a file. chooser does these.

// chooser is the dialog that picks a file (or folder) to open or to save
// to: a path box that takes a typed or pasted path (Enter takes it), the
// entries of a folder (folders first; files the filter lets through), a
// choice of filter, Up, and the buttons. A click selects an entry (its path
// goes in the box), a double-click opens a folder or takes a file; clicks
// that land while a folder is still changing are ignored.
type chooser struct {
	v       *Viewer
	dlg     *dialog.ConfirmDialog
	dir     string
	path    *escEntry
	filter  *widget.Select
	list    *widget.List
	entries []chooserEntry
	// settled is when the folder shown last changed plus a double-tap
	// delay: taps before it were aimed at the folder before.
	settled time.Time
	now     func() time.Time
	exts    []string // the save mode's file types (nil: open mode)
	shown   bool
	take    func(path string)
}

// chooserEntry is an entry of the folder shown.
type chooserEntry struct {
	name string
	dir  bool
}

// Filter choices.
const (
	filterRead = "Images vastview reads"
	filterAll  = "All files"
)

// showChooser shows a chooser titled title, in the folder the session
// says (that of the file shown, else the one last used), and calls take
// with the path chosen. With exts (a save), the filter is those types and
// a path not yet existing may be typed; confirm is the button's label.
func (v *Viewer) showChooser(title, confirm, start string, exts []string, take func(path string)) *chooser {
	c := &chooser{v: v, now: time.Now, exts: exts}
	c.take = func(p string) {
		v.s.Prefs().SetLastFolder(c.dir)
		take(p)
	}
	c.path = newEscEntry(v)
	c.path.SetPlaceHolder("a path: typed, pasted, or chosen below")
	c.path.OnSubmitted = func(string) { c.submit(true) }
	first := filterRead
	if exts != nil {
		first = strings.Join(exts, ", ")
	}
	choices := []string{first, filterAll}
	if first == "" { // a save of any type
		choices, first = choices[1:], filterAll
	}
	c.filter = widget.NewSelect(choices, func(string) { c.load(c.dir) })
	c.filter.Selected = first
	c.list = widget.NewList(func() int { return len(c.entries) },
		func() fyne.CanvasObject { return newChooserItem(c) },
		func(id widget.ListItemID, o fyne.CanvasObject) { o.(*chooserItem).set(id) })
	up := widget.NewButtonWithIcon("", theme.MoveUpIcon(), func() { c.load(filepath.Dir(c.dir)) })
	top := container.NewBorder(nil, nil, up, nil, c.path)
	bottom := container.NewBorder(nil, nil, widget.NewLabel("Show"), nil, c.filter)
	content := container.NewBorder(top, bottom, nil, nil, c.list)
	c.dlg = dialog.NewCustomConfirm(title, confirm, "Cancel", content, func(ok bool) {
		if ok {
			c.submit(false)
		}
	}, v.win)
	if start == "" {
		start = v.s.DialogFolder()
	}
	c.load(start)
	c.dlg.Resize(fyne.NewSize(680, 520))
	c.path.onEscape = c.dlg.Hide
	if v.dlg == nil {
		v.showDialog(c.dlg)
	} else {
		c.dlg.Show() // over another dialog (Browse… in a save form), which stays tracked
	}
	c.shown = true
	v.win.Canvas().Focus(c.path)
	v.choosing = c
	return c
}

// load shows the folder dir (and keeps the path box's text when it is
// a name typed for a save).
func (c *chooser) load(dir string) {
	if dir == "" {
		return
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		c.path.SetText(dir)
		c.path.SetValidationError(err)
		return
	}
	if c.dir != dir {
		c.settled = c.now().Add(doubleTapDelay())
	}
	c.dir = dir
	all := c.filter.Selected == filterAll
	c.entries = c.entries[:0]
	for _, e := range ents {
		name := e.Name()
		if name == "" || name[0] == '.' {
			continue
		}
		isDir := e.IsDir()
		if e.Type()&os.ModeSymlink != 0 {
			if st, err := os.Stat(filepath.Join(dir, name)); err == nil {
				isDir = st.IsDir()
			}
		}
		if isDir || all || c.exts == nil && loader.Listed(name) || c.exts != nil && loader.HasExt(name, c.exts...) {
			c.entries = append(c.entries, chooserEntry{name: name, dir: isDir})
		}
	}
	slices.SortFunc(c.entries, func(a, b chooserEntry) int {
		if a.dir != b.dir {
			if a.dir {
				return -1
			}
			return 1
		}
		return loader.NaturalCompare(a.name, b.name)
	})
	text := strings.TrimSuffix(dir, string(filepath.Separator)) + string(filepath.Separator)
	if name := filepath.Base(c.path.Text); c.exts != nil && c.path.Text != "" && !strings.HasSuffix(c.path.Text, string(filepath.Separator)) {
		text = filepath.Join(dir, name) // the name typed for a save stays
	}
	c.path.SetText(text)
	c.path.SetValidationError(nil)
	c.list.UnselectAll()
	if c.shown { // the list has its scroller only once shown
		c.list.ScrollToTop()
	}
	c.list.Refresh()
}

// submit takes the path in the box. A folder opens in the chooser when
// typed (typed) unless a format reads it as one image (a Zarr store, a
// DICOM series), or when saving; else it is taken.
func (c *chooser) submit(typed bool) {
	p := strings.TrimSpace(c.path.Text)
	if p == "" {
		return
	}
	if strings.HasPrefix(p, "~"+string(filepath.Separator)) {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if !filepath.IsAbs(p) && !loader.IsURL(p) {
		p = filepath.Join(c.dir, p)
	}
	st, err := os.Stat(p)
	if err == nil && st.IsDir() && (c.exts != nil || typed && !loader.FolderIsImage(p)) && filepath.Clean(p) != filepath.Clean(c.dir) {
		c.load(filepath.Clean(p))
		return
	}
	if err != nil && c.exts == nil && !loader.IsURL(p) && !loader.IsPattern(p) {
		c.path.SetValidationError(err)
		return
	}
	c.dlg.Hide()
	c.take(filepath.Clean(p))
}

// tapped selects entry id; a tap that landed while the folder was still
// changing is ignored.
func (c *chooser) tapped(id int) {
	if id >= len(c.entries) || c.now().Before(c.settled) {
		c.list.UnselectAll()
		return
	}
	c.path.SetText(filepath.Join(c.dir, c.entries[id].name))
	c.list.Select(id)
}

// doubleTapped opens folder entry id in the chooser, or takes file entry
// id.
func (c *chooser) doubleTapped(id int) {
	if id >= len(c.entries) || c.now().Before(c.settled) {
		return
	}
	p := filepath.Join(c.dir, c.entries[id].name)
	if c.entries[id].dir {
		c.load(p)
		return
	}
	c.path.SetText(p)
	c.submit(false)
}

// doubleTapDelay is the driver's double-tap delay.
func doubleTapDelay() time.Duration {
	if a := fyne.CurrentApp(); a != nil {
		return a.Driver().DoubleTapDelay()
	}
	return 300 * time.Millisecond
}

// chooserItem is a row of the chooser's list.
type chooserItem struct {
	widget.BaseWidget
	c    *chooser
	id   int
	icon *widget.Icon
	name *widget.Label
}

func newChooserItem(c *chooser) *chooserItem {
	it := &chooserItem{c: c, id: -1, icon: widget.NewIcon(theme.FileIcon()), name: widget.NewLabel("")}
	it.name.Truncation = fyne.TextTruncateEllipsis
	it.ExtendBaseWidget(it)
	return it
}

// set shows entry id.
func (it *chooserItem) set(id int) {
	it.id = id
	e := it.c.entries[id]
	it.name.SetText(e.name)
	if e.dir {
		it.icon.SetResource(theme.FolderIcon())
	} else {
		it.icon.SetResource(theme.FileIcon())
	}
}

// Tapped implements fyne.Tappable: select the entry.
func (it *chooserItem) Tapped(*fyne.PointEvent) { it.c.tapped(it.id) }

// DoubleTapped implements fyne.DoubleTappable: open a folder, take a
// file.
func (it *chooserItem) DoubleTapped(*fyne.PointEvent) { it.c.doubleTapped(it.id) }

func (it *chooserItem) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewBorder(nil, nil, it.icon, nil, it.name))
}
