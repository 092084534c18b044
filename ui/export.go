package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"vastview/levels/omezarr"
)

// exportDialog asks where to write the open data, with every level, as
// OME-Zarr, and writes it in the background with a progress dialog that
// can cancel it. The data stays open and viewable meanwhile.
func (v *Viewer) exportDialog() {
	s := v.s
	if s == nil {
		return
	}
	base := strings.TrimSuffix(filepath.Base(s.name), filepath.Ext(s.name))
	v.askSavePath(base+".ome.zarr", nil, func(path string) {
		os.Remove(path) // the dialog made an empty file; the export makes a folder
		if !strings.HasSuffix(path, ".zarr") {
			path += ".ome.zarr"
		}
		v.export(s, path)
	})
}

// export writes s to path, showing progress.
func (v *Viewer) export(s *session, path string) {
	ctx, cancel := context.WithCancel(context.Background())
	bar := widget.NewProgressBar()
	label := widget.NewLabel("Writing " + filepath.Base(path))
	prog := dialog.NewCustomWithoutButtons("Export pyramid", container.NewVBox(label, bar,
		widget.NewButton("Cancel", cancel)), v.win)
	prog.Show()
	go func() {
		err := omezarr.Write(ctx, path, s.pyr, omezarr.Options{
			Type: map[bool]string{true: "mode", false: "mean"}[s.pyr.Meta().Label],
			Progress: func(done, total int) {
				uiDo(func() { bar.SetValue(float64(done) / float64(max(total, 1))) })
			},
		})
		cancel()
		uiDo(func() {
			prog.Hide()
			switch {
			case errors.Is(err, context.Canceled):
			case err != nil:
				v.showError(path, err)
			default:
				dialog.ShowInformation("Export pyramid", fmt.Sprintf("Wrote %s", path), v.win)
			}
		})
	}()
}
