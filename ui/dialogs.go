package ui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"

	"vastview/loader"
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
// names keep their case).
func (v *Viewer) showProblem(p session.Problem) {
	msg := p.Err.Error()
	if p.Subject != "" {
		msg = p.Subject + ": " + msg
	}
	l := widget.NewLabel(msg)
	l.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustom("Error", "Close", container.NewGridWrap(fyne.NewSize(420, 0), l), v.win)
	v.showDialog(d)
}

func (v *Viewer) openDialog() {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil || r == nil {
			return
		}
		path := uriPath(r.URI())
		r.Close()
		v.s.Open(path)
	}, v.win)
	v.showDialog(d)
}

// openFolderDialog opens a folder: an OME-Zarr store, or a folder of
// frames as one stack (asStack), or its files as the browsing list.
func (v *Viewer) openFolderDialog(asStack bool) {
	d := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
		if err == nil && u != nil {
			v.s.OpenFolder(uriPath(u), asStack)
		}
	}, v.win)
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
// compression, method), and writes it in the background with a progress
// dialog that can cancel it. The data stays open and viewable meanwhile.
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

// runExport starts an export to path with start, showing its progress in
// a dialog titled title that can cancel it, and how it ended.
func (v *Viewer) runExport(title, path string, start func(onEnd func(*session.Export)) (*session.Export, error)) {
	bar := widget.NewProgressBar()
	label := widget.NewLabel("Writing " + displayName(path))
	var e *session.Export
	cancel := widget.NewButton("Cancel", func() {
		if e != nil {
			e.Cancel()
		}
	})
	prog := dialog.NewCustomWithoutButtons(title, container.NewVBox(label, bar, cancel), v.win)
	e, err := start(func(e *session.Export) {
		uiDo(func() {
			prog.Hide()
			switch err := e.Err(); {
			case errors.Is(err, context.Canceled):
			case err != nil:
				v.showProblem(session.Problem{Subject: displayName(e.Path), Err: err})
			default:
				v.showDialog(dialog.NewInformation(title, fmt.Sprintf("Wrote %s", e.Path), v.win))
			}
		})
	})
	if err != nil {
		v.showProblem(session.Problem{Subject: displayName(path), Err: err})
		return
	}
	v.showDialog(prog)
	go v.followExport(e, bar)
}

// movieDialog asks what movie of the view to make: where (an .mp4, or a
// folder or NAME.png for a series of images), along which axis, which
// positions, at what rate; then writes it with a progress dialog that can
// cancel it.
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
	from, to := newEscEntry(v), newEscEntry(v)
	along := widget.NewSelect(choices, func(name string) {
		_, a, b, _ := session.MovieAxis(m, view, session.MovieOptions{Axis: axes[name], To: -1})
		from.SetText(strconv.Itoa(a))
		to.SetText(strconv.Itoa(b))
	})
	def, _, _, _ := session.MovieAxis(m, view, session.MovieOptions{To: -1})
	along.SetSelected(choices[0])
	if op, _ := v.s.Projection(); def != 'T' && len(choices) > 1 && op == loader.NoProjection {
		along.SetSelected(choices[1]) // a projection's movie runs through time
	}
	fps := newEscEntry(v)
	fps.SetText("25")
	if r, ok := v.s.FileRate(); ok {
		fps.SetText(strconv.FormatFloat(r, 'g', 4, 64))
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
		if err == nil {
			o.FPS, err = strconv.ParseFloat(strings.TrimSpace(fps.Text), 64)
		}
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

// followExport moves the progress bar until the export ends.
func (v *Viewer) followExport(e *session.Export, bar *widget.ProgressBar) {
	for {
		select {
		case <-e.Done():
			return
		case <-time.After(200 * time.Millisecond):
			done, total := e.Progress()
			uiDo(func() { bar.SetValue(float64(done) / float64(max(total, 1))) })
		}
	}
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

// browseButton is a Browse… button that picks a file to save to with the
// file dialog (of the extensions exts, any when nil), starting where the
// entry e says, and puts its path in e.
func (v *Viewer) browseButton(e *escEntry, exts []string) *widget.Button {
	return widget.NewButton("Browse…", func() {
		fd := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
			if err != nil || w == nil {
				return
			}
			e.SetText(w.URI().Path())
			w.Close() // an empty file, which the save replaces
		}, v.win)
		fd.SetFileName(filepath.Base(e.Text))
		if l, err := storage.ListerForURI(storage.NewFileURI(filepath.Dir(e.Text))); err == nil {
			fd.SetLocation(l)
		}
		if exts != nil {
			fd.SetFilter(storage.NewExtensionFileFilter(exts))
		}
		fd.Show()
	})
}

// prefsDialog edits the memory and disk budgets, used for the next file.
func (v *Viewer) prefsDialog() {
	p := v.s.Prefs()
	cache := newEscEntry(v)
	cache.SetText(fmt.Sprint(p.CacheBytes() >> 20))
	disk := newEscEntry(v)
	disk.SetText(fmt.Sprint(p.DiskCacheBytes() >> 20))
	items := []*widget.FormItem{
		widget.NewFormItem("Chunk cache (MiB, 0: automatic)", cache),
		widget.NewFormItem("Disk cache of levels (MiB)", disk),
	}
	d := dialog.NewForm("Preferences", "Save", "Cancel", items, func(ok bool) {
		if !ok {
			return
		}
		var c, dk int64
		if _, err := fmt.Sscan(strings.TrimSpace(cache.Text), &c); err == nil && c >= 0 {
			p.SetCacheBytes(c << 20)
		}
		if _, err := fmt.Sscan(strings.TrimSpace(disk.Text), &dk); err == nil && dk > 0 {
			p.SetDiskCacheBytes(dk << 20)
		}
	}, v.win)
	d.Resize(fyne.NewSize(520, d.MinSize().Height))
	v.showDialog(d)
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
