package ui

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"os"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vastview/loader"
	"vastview/render"
)

// axisSlider is the slider and read-out of one axis not displayed.
type axisSlider struct {
	axis   byte
	slider *widget.Slider
	label  *widget.Label
	n      int
	quiet  bool // set while the view moves the slider
}

// rebuildSliders makes one slider per axis the view does not display.
func (v *Viewer) rebuildSliders() {
	m := v.s.pyr.Meta()
	row, col, _ := v.view.Orientation.Axes()
	v.axesBox.RemoveAll()
	v.sliders = map[byte]*axisSlider{}
	for _, a := range []byte("TCZYX") {
		n := m.Size(a)
		if a == row || a == col || n <= 1 {
			continue
		}
		as := &axisSlider{axis: a, n: n, label: widget.NewLabel("")}
		as.slider = widget.NewSlider(0, float64(n-1))
		as.slider.Step = 1
		as.slider.OnChanged = func(f float64) {
			if as.quiet || v.s == nil {
				return
			}
			v.view.SetAt(a, int(f))
			if a == 'C' {
				v.applyChannel()
				v.showColormap()
			}
			v.changed(time.Now())
		}
		as.slider.OnChangeEnded = func(float64) { v.win.Canvas().Unfocus() }
		v.sliders[a] = as
		v.axesBox.Add(container.NewBorder(nil, nil, as.label, nil, as.slider))
	}
	v.syncSliders()
}

// syncSliders moves the sliders and read-outs to the view.
func (v *Viewer) syncSliders() {
	for a, as := range v.sliders {
		i := v.view.At(a)
		as.quiet = true
		as.slider.SetValue(float64(i))
		as.quiet = false
		as.label.SetText(fmt.Sprintf("%c %*d/%d", unicodeLower(a), len(fmt.Sprint(as.n)), i+1, as.n))
	}
}

func unicodeLower(a byte) byte { return a - 'A' + 'a' }

func (v *Viewer) toolbar() fyne.CanvasObject {
	plane := func(o render.Orientation) func() {
		return func() {
			if v.s != nil {
				v.setOrientation(o)
				v.changed(time.Now())
			}
		}
	}
	do := func(f func()) func() {
		return func() {
			if v.s != nil {
				f()
				v.changed(time.Now())
			}
		}
	}
	rate := widget.NewSelect(playRates, func(s string) {
		fmt.Sscan(s, &v.playRate)
		if v.play != nil { // restart at the new rate
			v.togglePlay()
			v.togglePlay()
		}
	})
	rate.SetSelected(fmt.Sprintf("%d fps", defaultPlayRate))
	return container.NewHBox(
		widget.NewButtonWithIcon("", theme.FolderOpenIcon(), v.openDialog),
		widget.NewButton("XY", plane(render.XY)),
		widget.NewButton("XZ", plane(render.XZ)),
		widget.NewButton("YZ", plane(render.YZ)),
		v.cmapSel,
		widget.NewButton("Auto-contrast", do(v.autoContrast)),
		widget.NewButtonWithIcon("Fit", theme.ZoomFitIcon(), do(v.fit)),
		widget.NewButtonWithIcon("", theme.MediaPlayIcon(), func() {
			if v.s != nil {
				v.togglePlay()
			}
		}),
		rate,
	)
}

func (v *Viewer) menu() *fyne.MainMenu {
	recent := fyne.NewMenuItem("Open Recent", nil)
	for _, p := range v.prefs.Recent() {
		recent.ChildMenu = appendItem(recent.ChildMenu, fyne.NewMenuItem(p, func() { v.openPath(p) }))
	}
	if recent.ChildMenu == nil {
		recent.Disabled = true
	}
	file := fyne.NewMenu("File",
		fyne.NewMenuItem("Open…", v.openDialog),
		fyne.NewMenuItem("Open Folder…", v.openFolderDialog),
		fyne.NewMenuItem("Open URL…", v.openURLDialog),
		recent,
		fyne.NewMenuItem("Save View as PNG…", v.saveDialog),
		fyne.NewMenuItem("Export Pyramid…", v.exportDialog),
		fyne.NewMenuItem("Preferences…", v.prefsDialog),
	)
	view := fyne.NewMenu("View",
		fyne.NewMenuItem("XY", func() { v.typedRune('1') }),
		fyne.NewMenuItem("XZ", func() { v.typedRune('2') }),
		fyne.NewMenuItem("YZ", func() { v.typedRune('3') }),
		fyne.NewMenuItem("Fit", func() { v.typedRune('0') }),
		fyne.NewMenuItem("Auto-contrast", func() { v.typedRune('c') }),
	)
	help := fyne.NewMenu("Help",
		fyne.NewMenuItem("Keyboard Shortcuts", v.showShortcuts),
		fyne.NewMenuItem("About", func() {
			dialog.ShowInformation("About vastview", "vastview views image volumes and movies too big to load.", v.win)
		}),
	)
	return fyne.NewMainMenu(file, view, help)
}

func appendItem(m *fyne.Menu, it *fyne.MenuItem) *fyne.Menu {
	if m == nil {
		return fyne.NewMenu("", it)
	}
	m.Items = append(m.Items, it)
	return m
}

func (v *Viewer) openDialog() {
	dialog.ShowFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil || r == nil {
			return
		}
		path := r.URI().Path()
		r.Close()
		v.openPath(path)
	}, v.win)
}

// openFolderDialog opens a folder: an OME-Zarr store or a folder of frames.
func (v *Viewer) openFolderDialog() {
	dialog.ShowFolderOpen(func(u fyne.ListableURI, err error) {
		if err == nil && u != nil {
			v.openPath(u.Path())
		}
	}, v.win)
}

// openURLDialog asks for the address of a Zarr store served over HTTP(S).
func (v *Viewer) openURLDialog() {
	e := widget.NewEntry()
	e.SetPlaceHolder("https://host/path/image.ome.zarr")
	e.Validator = func(s string) error {
		if !loader.IsURL(strings.TrimSpace(s)) {
			return errors.New("an http:// or https:// address")
		}
		return nil
	}
	d := dialog.NewForm("Open URL", "Open", "Cancel", []*widget.FormItem{widget.NewFormItem("URL", e)}, func(ok bool) {
		if ok {
			v.openPath(strings.TrimSpace(e.Text))
		}
	}, v.win)
	d.Resize(fyne.NewSize(560, 160))
	d.Show()
}

// saveDialog saves the picture on screen as a PNG.
func (v *Viewer) saveDialog() {
	f := v.shown
	if f == nil {
		return
	}
	v.askSavePath("view.png", []string{".png"}, func(path string) {
		go func() {
			var b bytes.Buffer
			err := png.Encode(&b, f.img)
			if err == nil {
				err = os.WriteFile(path, b.Bytes(), 0o644)
			}
			if err != nil {
				uiDo(func() { v.showError(path, err) })
			}
		}()
	})
}

// askSavePath asks where to save, suggesting name (and, with exts, only
// those file types), and passes the chosen path to save.
func (v *Viewer) askSavePath(name string, exts []string, save func(path string)) {
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil || w == nil {
			return
		}
		path := w.URI().Path()
		w.Close()
		save(path)
	}, v.win)
	d.SetFileName(name)
	if exts != nil {
		d.SetFilter(storage.NewExtensionFileFilter(exts))
	}
	d.Show()
}

// prefsDialog edits the memory and disk budgets, used for the next file.
func (v *Viewer) prefsDialog() {
	cache := widget.NewEntry()
	cache.SetText(fmt.Sprint(v.prefs.CacheBytes() >> 20))
	disk := widget.NewEntry()
	disk.SetText(fmt.Sprint(v.prefs.DiskCacheBytes() >> 20))
	items := []*widget.FormItem{
		widget.NewFormItem("Chunk cache (MiB, 0: automatic)", cache),
		widget.NewFormItem("Disk cache of levels (MiB)", disk),
	}
	dialog.ShowForm("Preferences", "Save", "Cancel", items, func(ok bool) {
		if !ok {
			return
		}
		var c, d int64
		if _, err := fmt.Sscan(strings.TrimSpace(cache.Text), &c); err == nil && c >= 0 {
			v.prefs.SetCacheBytes(c << 20)
		}
		if _, err := fmt.Sscan(strings.TrimSpace(disk.Text), &d); err == nil && d > 0 {
			v.prefs.SetDiskCacheBytes(d << 20)
		}
	}, v.win)
}

const shortcuts = `, .  ← →        previous / next plane (Shift ×10, Ctrl ×100)
[ ]              previous / next time point
Home End         first / last plane
Space            play / pause
wheel            previous / next plane
Ctrl+wheel       zoom about the pointer
drag             pan
0                fit
1 2 3            XY, XZ, YZ
C                auto-contrast
R                reload chunks a store did not hold yet
Ctrl+O           open
Ctrl+S           save the view as PNG
F1 ?             this list`

func (v *Viewer) showShortcuts() {
	l := widget.NewLabel(shortcuts)
	l.TextStyle.Monospace = true
	dialog.ShowCustom("Keyboard shortcuts", "Close", l, v.win)
}
