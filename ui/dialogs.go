package ui

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"

	"vastview/levels"
	"vastview/loader"
	"vastview/prefs"
	"vastview/session"
)

// closable is a dialog the viewer tracks: Escape closes it, and closing it
// hands the keyboard back to the picture.
type closable interface {
	Show()
	Hide()
	SetOnClosed(func())
}

// showDialog shows d and tracks it.
func (v *Viewer) showDialog(d closable) {
	v.dlg = d
	d.SetOnClosed(func() {
		if v.dlg == d {
			v.dlg = nil
		}
		// The dialog took the key releases of what was held.
		v.s.ResetModifiers()
		v.focusView()
	})
	d.Show()
}

// closeDialog closes the dialog showing, if any (Escape).
func (v *Viewer) closeDialog() {
	if v.dlg != nil {
		v.dlg.Hide()
	}
}

// showProblem tells the user what failed, as the session words it (file
// names keep their case; addresses lose their credentials).
func (v *Viewer) showProblem(p session.Problem) {
	msg := p.Message()
	l := widget.NewLabel(msg)
	l.Wrapping = fyne.TextWrapWord
	l.Selectable = true
	d := dialog.NewCustom("Error", "Close", wrapped(l, 420, 360), v.win)
	v.showDialog(d)
}

// wrapped holds a wrapping label at width w: as tall as its lines, or h
// and scrolling beyond, so that a dialog's buttons never cover it.
func wrapped(l *widget.Label, w, h float32) fyne.CanvasObject {
	return container.New(&wrapLayout{l: l, w: w, h: h}, container.NewVScroll(l))
}

// wrapLayout is the layout of wrapped.
type wrapLayout struct {
	l    *widget.Label
	w, h float32
}

// MinSize implements fyne.Layout: the width, and the height of the
// label's lines at that width (at most h).
func (wl *wrapLayout) MinSize([]fyne.CanvasObject) fyne.Size {
	if wl.l.Size().Width != wl.w {
		wl.l.Resize(fyne.NewSize(wl.w, wl.l.MinSize().Height))
	}
	return fyne.NewSize(wl.w, min(wl.l.MinSize().Height, wl.h))
}

// Layout implements fyne.Layout.
func (wl *wrapLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

// openDialog asks for a file (or a folder a format reads, or an address)
// to open.
func (v *Viewer) openDialog() { v.showChooser("Open", "Open", "", nil, v.s.Open) }

// openFolderDialog opens a folder: an OME-Zarr store, or a folder of
// frames as one stack (asStack), or its files as the browsing list.
func (v *Viewer) openFolderDialog(asStack bool) {
	d := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
		if err == nil && u != nil {
			v.s.Prefs().SetLastFolder(uriPath(u))
			v.s.OpenFolder(uriPath(u), asStack)
		}
	}, v.win)
	v.startIn(d, v.s.DialogFolder())
	v.showDialog(d)
}

// openURLDialog asks for the address of a Zarr store served over HTTP(S);
// Enter opens it.
func (v *Viewer) openURLDialog() {
	e := newEscEntry(v)
	e.SetPlaceHolder("https://host/path/image.ome.zarr")
	e.Validator = func(s string) error {
		if !loader.IsURL(strings.TrimSpace(s)) {
			return errors.New("an http:// or https:// address")
		}
		return nil
	}
	d := dialog.NewForm("Open URL", "Open", "Cancel", []*widget.FormItem{widget.NewFormItem("URL", e)}, func(ok bool) {
		if ok {
			v.s.Open(strings.TrimSpace(e.Text))
		}
	}, v.win)
	e.OnSubmitted = func(string) {
		if e.Validate() == nil {
			d.Submit()
		}
	}
	d.Resize(fyne.NewSize(560, 160))
	v.showDialog(d)
	v.win.Canvas().Focus(e)
}

// saveDialog saves the picture on screen as a PNG: the image's part of
// the view, or the whole view when asked.
func (v *Viewer) saveDialog() {
	if v.s.Shown() == nil {
		return
	}
	whole := widget.NewCheck("Whole view (with the margins beside the image)", nil)
	v.askSavePath("Save View as PNG", v.s.SnapshotName(), []string{".png"}, []*widget.FormItem{widget.NewFormItem("", whole)},
		func(path string) {
			if err := v.s.SaveSnapshot(path, whole.Checked); err != nil {
				v.showProblem(session.Problem{Subject: displayName(path), Err: err})
			}
		})
}

// exportDialog asks where to write the data shown, with every level, as
// OME-Zarr, and how (the pyramid command's choices: Zarr version,
// compression, method), and writes it in the background, its progress and
// Cancel in the status bar. The data stays open and viewable meanwhile.
func (v *Viewer) exportDialog() {
	m := v.s.Meta()
	if v.s.Data() == nil || m == nil {
		return
	}
	versions := []string{"2 (OME-NGFF 0.4)", "3 (OME-NGFF 0.5)"}
	version := widget.NewSelect(versions, nil)
	version.SetSelected(versions[0])
	codec := widget.NewSelect([]string{"zstd", "gzip", "none"}, nil)
	codec.SetSelected("zstd")
	method := widget.NewSelect([]string{"mean", "mode"}, nil)
	method.SetSelected(map[bool]string{true: "mode", false: "mean"}[m.Label])
	items := []*widget.FormItem{
		widget.NewFormItem("Zarr version", version),
		widget.NewFormItem("Compression", codec),
		widget.NewFormItem("Levels by", method),
	}
	items[2].HintText = "mean for intensities, mode for label images"
	v.askSavePath("Export OME-Zarr Pyramid", v.s.ExportName(), nil, items, func(path string) {
		o := session.ExportOptions{Version: 2, Codec: codec.Selected, Method: method.Selected}
		if version.Selected == versions[1] {
			o.Version = 3
		}
		v.export(path, o)
	})
}

// export writes the data shown to path, showing progress.
func (v *Viewer) export(path string, o session.ExportOptions) {
	v.runExport("Export pyramid", path, func(onEnd func(*session.Export)) (*session.Export, error) {
		return v.s.Export(path, o, onEnd)
	})
}

// movieDialog asks what movie of the view to make: where (an .mp4, or a
// folder or NAME.png for a series of images), along which axis, which
// positions, at what rate (MovieFPS's for the axis chosen, until
// changed); then writes it in the background, its progress and Cancel in
// the status bar.
func (v *Viewer) movieDialog() {
	m := v.s.Meta()
	if m == nil {
		return
	}
	view := v.s.View()
	path := newEscEntry(v)
	folder := v.lastFolder
	if folder == "" {
		folder = v.s.SaveFolder()
	}
	path.SetText(filepath.Join(folder, v.s.MovieName()))
	browse := v.browseButton(path, nil)
	axes := map[string]byte{"time (t)": 'T', "planes (z)": 'Z'}
	var choices []string
	for _, name := range []string{"time (t)", "planes (z)"} {
		if _, _, _, err := session.MovieAxis(m, view, session.MovieOptions{Axis: axes[name], To: -1}); err == nil {
			choices = append(choices, name)
		}
	}
	from, to, fps := newEscEntry(v), newEscEntry(v), newEscEntry(v)
	defFPS := "" // the rate offered for the axis chosen, as shown
	along := widget.NewSelect(choices, func(name string) {
		axis, a, b, _ := session.MovieAxis(m, view, session.MovieOptions{Axis: axes[name], To: -1})
		from.SetText(strconv.Itoa(a))
		to.SetText(strconv.Itoa(b))
		defFPS = strconv.FormatFloat(session.MovieFPS(m, axis), 'g', 4, 64)
		fps.SetText(defFPS)
	})
	def, _, _, _ := session.MovieAxis(m, view, session.MovieOptions{To: -1})
	along.SetSelected(choices[0])
	if op, _ := v.s.Projection(); def != 'T' && len(choices) > 1 && op == loader.NoProjection {
		along.SetSelected(choices[1]) // a projection's movie runs through time
	}
	overwrite := widget.NewCheck("Replace an existing movie", nil)
	d := dialog.NewForm("Export Movie", "Export", "Cancel", []*widget.FormItem{
		widget.NewFormItem("Path", container.NewBorder(nil, nil, nil, browse, path)),
		widget.NewFormItem("Along", along),
		widget.NewFormItem("From", from),
		widget.NewFormItem("To", to),
		widget.NewFormItem("Frames per second", fps),
		widget.NewFormItem("", overwrite),
	}, func(ok bool) {
		out := strings.TrimSpace(path.Text)
		if !ok || out == "" {
			return
		}
		v.lastFolder = filepath.Dir(out)
		o := session.MovieOptions{Axis: axes[along.Selected], Overwrite: overwrite.Checked}
		var err error
		if o.From, err = strconv.Atoi(strings.TrimSpace(from.Text)); err == nil {
			o.To, err = strconv.Atoi(strings.TrimSpace(to.Text))
		}
		if r := strings.TrimSpace(fps.Text); err == nil && r != defFPS {
			o.FPS, err = strconv.ParseFloat(r, 64)
		} // else 0: the rate offered, exactly (2/3, not 0.6667)
		if err != nil {
			v.showProblem(session.Problem{Subject: "Export Movie", Err: fmt.Errorf("from, to and the rate are numbers: %v", err)})
			return
		}
		v.runExport("Export movie", out, func(onEnd func(*session.Export)) (*session.Export, error) {
			return v.s.ExportMovie(out, o, onEnd)
		})
	}, v.win)
	path.OnSubmitted = func(string) { d.Submit() }
	d.Resize(fyne.NewSize(640, d.MinSize().Height))
	v.showDialog(d)
	v.win.Canvas().Focus(path)
}

// escEntry is a text field in which Escape closes the dialog it is in.
type escEntry struct {
	widget.Entry
	onEscape func()
}

func newEscEntry(v *Viewer) *escEntry {
	e := &escEntry{onEscape: v.closeDialog}
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey implements fyne.Focusable.
func (e *escEntry) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape && e.onEscape != nil {
		e.onEscape()
		return
	}
	e.Entry.TypedKey(k)
}

// askSavePath asks where to save: the path to write, first the folder of
// the data shown (or the last one saved to) and name; Enter saves, Escape
// cancels, Browse… picks another place. With exts, only those file types.
// The dialog is titled title; extra are further choices under the path.
func (v *Viewer) askSavePath(title, name string, exts []string, extra []*widget.FormItem, save func(path string)) {
	e := newEscEntry(v)
	folder := v.lastFolder
	if folder == "" {
		folder = v.s.SaveFolder()
	}
	e.SetText(filepath.Join(folder, name))
	var d *dialog.FormDialog
	browse := v.browseButton(e, exts)
	items := append([]*widget.FormItem{widget.NewFormItem("Path", container.NewBorder(nil, nil, nil, browse, e))}, extra...)
	d = dialog.NewForm(title, "Save", "Cancel", items, func(ok bool) {
		if path := strings.TrimSpace(e.Text); ok && path != "" {
			v.lastFolder = filepath.Dir(path)
			save(path)
		}
	}, v.win)
	e.OnSubmitted = func(string) { d.Submit() }
	d.Resize(fyne.NewSize(640, d.MinSize().Height))
	v.showDialog(d)
	v.win.Canvas().Focus(e)
}

// browseButton is a Browse… button that picks a path to save to with the
// chooser (showing files of the extensions exts, or all), starting where
// the entry e says, and puts it in e; the dialog e is in stays.
func (v *Viewer) browseButton(e *escEntry, exts []string) *widget.Button {
	return widget.NewButton("Browse…", func() {
		if exts == nil {
			exts = []string{}
		}
		c := v.showChooser("Save to", "Choose", filepath.Dir(e.Text), exts, func(p string) { e.SetText(p) })
		c.path.SetText(e.Text)
	})
}

// startIn makes a folder dialog start in dir.
func (v *Viewer) startIn(d *dialog.FileDialog, dir string) {
	if l, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
		d.SetLocation(l)
	}
}

// prefsDialog edits the memory and disk budgets, used for the next file.
// Its Save button is enabled while both are sizes (levels.ParseBudget).
func (v *Viewer) prefsDialog() {
	p := v.s.Prefs()
	cache, disk := budgetEntry(v, p.CacheBytes(), true), budgetEntry(v, p.DiskCacheBytes(), false)
	items := []*widget.FormItem{
		widget.NewFormItem("Chunk cache (e.g. 2GiB, 0: automatic)", cache),
		widget.NewFormItem("Disk cache of levels (e.g. 20GiB)", disk),
	}
	d := dialog.NewForm("Preferences", "Save", "Cancel", items, func(ok bool) {
		if !ok {
			return
		}
		if err := setBudgets(p, cache.Text, disk.Text); err != nil {
			v.showDialog(dialog.NewError(err, v.win))
		}
	}, v.win)
	d.Resize(fyne.NewSize(520, d.MinSize().Height))
	v.showDialog(d)
}

// budgetEntry is a field holding a budget of n bytes, valid while its
// text is a size (0 too when zero is set).
func budgetEntry(v *Viewer, n int64, zero bool) *escEntry {
	e := newEscEntry(v)
	e.SetText(levels.FormatBudget(n))
	e.Validator = func(s string) error {
		_, err := levels.ParseBudget(s, zero)
		return err
	}
	return e
}

// setBudgets stores the budgets the Preferences dialog's fields give;
// a field that is not a size changes nothing, and its error is returned.
func setBudgets(p *prefs.Prefs, cache, disk string) error {
	c, err := levels.ParseBudget(cache, true)
	if err != nil {
		return err
	}
	dk, err := levels.ParseBudget(disk, false)
	if err != nil {
		return err
	}
	p.SetCacheBytes(c)
	p.SetDiskCacheBytes(dk)
	return nil
}

// shortcutText is the list of keys, one per line, in two aligned columns.
func shortcutText() string {
	list := session.Shortcuts()
	w := 0
	for _, s := range list {
		w = max(w, len([]rune(s.Keys)))
	}
	var b strings.Builder
	for i, s := range list {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s.Keys + strings.Repeat(" ", w-len([]rune(s.Keys))+2) + s.Does)
	}
	return b.String()
}

func (v *Viewer) showShortcuts() {
	l := widget.NewLabel(shortcutText())
	l.TextStyle.Monospace = true
	v.showDialog(dialog.NewCustom("Keyboard shortcuts", "Close", l, v.win))
}
