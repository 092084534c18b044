package ui

import (
	"context"
	"errors"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"vastview/session"
)

// exportRow is an export running in the background, shown in the status
// bar: what it writes, how far it is, and Cancel. The window stays free
// meanwhile.
type exportRow struct {
	box    *fyne.Container
	label  *widget.Label
	bar    *widget.ProgressBar
	cancel *widget.Button
}

// exportShown is how long the status bar says that an export was written.
const exportShown = 8 * time.Second

// runExport starts an export to path with start (title names it in its
// messages), showing its progress in the status bar with a button that
// cancels it; a failure is shown when it ends.
func (v *Viewer) runExport(title, path string, start func(onEnd func(*session.Export)) (*session.Export, error)) {
	row := &exportRow{label: widget.NewLabel("writing " + displayName(path)), bar: widget.NewProgressBar()}
	row.cancel = widget.NewButton("Cancel", nil)
	row.bar.TextFormatter = func() string { return "" }
	row.box = container.NewHBox(row.label, container.NewGridWrap(fyne.NewSize(120, row.bar.MinSize().Height), row.bar), row.cancel)
	e, err := start(func(e *session.Export) { v.do(func() { v.exportEnded(row, title, e) }) })
	if err != nil {
		v.showProblem(session.Problem{Subject: displayName(path), Err: err})
		return
	}
	row.cancel.OnTapped = func() {
		e.Cancel()
		v.focusView()
	}
	v.exportsBox.Add(row.box)
	v.win.Content().Refresh()
	v.trace.Event("export", map[string]any{"state": "started", "what": title, "path": e.Path})
	v.focusView()
	go v.followExport(e, row)
}

// exportEnded shows how the export ended: a failure in a dialog, a
// written export for a while in the status bar.
func (v *Viewer) exportEnded(row *exportRow, title string, e *session.Export) {
	err := e.Err()
	state := "written"
	switch {
	case errors.Is(err, context.Canceled):
		state = "cancelled"
	case err != nil:
		state = "failed"
	}
	done, total := e.Progress()
	v.trace.Event("export", map[string]any{"state": state, "what": title, "path": e.Path, "done": done, "total": total})
	if state != "written" {
		v.exportsBox.Remove(row.box)
		if state == "failed" {
			v.showProblem(session.Problem{Subject: displayName(e.Path), Err: err})
		}
		return
	}
	row.bar.Hide()
	row.cancel.Hide()
	row.label.SetText("wrote " + displayName(e.Path))
	time.AfterFunc(exportShown, func() { v.do(func() { v.exportsBox.Remove(row.box) }) })
}

// followExport moves the export's progress bar until it ends.
func (v *Viewer) followExport(e *session.Export, row *exportRow) {
	for {
		select {
		case <-e.Done():
			return
		case <-time.After(200 * time.Millisecond):
			done, total := e.Progress()
			v.do(func() {
				row.bar.SetValue(float64(done) / float64(max(total, 1)))
				if total > 0 {
					row.label.SetText(fmt.Sprintf("writing %s %d/%d", displayName(e.Path), done, total))
				}
				if v.trace != nil { // where Cancel is, for a script to click
					v.trace.Event("export", map[string]any{"state": "running", "path": e.Path, "done": done, "total": total,
						"cancel": v.rect(row.cancel)})
				}
			})
		}
	}
}
