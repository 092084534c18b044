package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"vastview/session"
)

// measureMenu is the Measure menu: the tools (with their keys), Measure
// (Ctrl+M, as Fiji's), the region list, and the files of measurements,
// ROIs and points.
func (v *Viewer) measureMenu() *fyne.Menu {
	tool := func(name string, t session.Tool) *fyne.MenuItem {
		return item("Measure → "+name, func() { v.s.SetTool(t) })
	}
	return fyne.NewMenu("Measure",
		fyne.NewMenuItem("Navigate (Escape)", func() { v.s.SetTool(session.Navigate) }),
		tool("Line", session.LineTool),
		tool("Rectangle", session.RectTool),
		tool("Ellipse", session.EllipseTool),
		tool("Polygon", session.PolygonTool),
		tool("Points", session.PointTool),
		fyne.NewMenuItemSeparator(),
		item("Measure → Measure", func() { v.command(v.s.PressWith("M", session.Mods{Ctrl: true})) }),
		fyne.NewMenuItem("Region List", v.measure.togglePanel),
		item("Measure → Delete", func() { v.s.DeleteSelected() }),
		fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem("Export CSV…", v.exportResultsDialog),
		fyne.NewMenuItem("Import ROIs…", v.importROIsDialog),
		fyne.NewMenuItem("Export ROIs…", v.exportROIsDialog),
		fyne.NewMenuItem("Import Points CSV…", v.importPointsDialog),
		fyne.NewMenuItem("Export Points CSV…", v.exportPointsDialog),
	)
}

// saveWith asks for a path and saves to it with save, showing what
// failed.
func (v *Viewer) saveWith(title, name, ext string, save func(path string) error) {
	v.askSavePath(title, name, []string{ext}, nil, func(path string) {
		if err := save(path); err != nil {
			v.showProblem(session.Problem{Subject: displayName(path), Err: err})
		}
	})
}

// openWith asks for a file and reads it with open, showing what failed.
func (v *Viewer) openWith(title, ext string, open func(path string) error) {
	v.showChooser(title, "Open", "", []string{ext}, func(path string) {
		if err := open(path); err != nil {
			v.showProblem(session.Problem{Subject: displayName(path), Err: err})
		}
	})
}

// exportResultsDialog saves the measurements table as CSV.
func (v *Viewer) exportResultsDialog() {
	v.saveWith("Export Measurements as CSV", "Results.csv", ".csv", v.s.ExportResults)
}

// exportROIsDialog saves the ROIs as JSON.
func (v *Viewer) exportROIsDialog() { v.saveWith("Export ROIs", "rois.json", ".json", v.s.ExportROIs) }

// importROIsDialog adds the ROIs of a JSON file.
func (v *Viewer) importROIsDialog() { v.openWith("Import ROIs", ".json", v.s.ImportROIs) }

// exportPointsDialog saves the set of points selected as napari's points
// CSV.
func (v *Viewer) exportPointsDialog() {
	i := v.s.Selected()
	v.saveWith("Export Points as CSV", "points.csv", ".csv", func(path string) error { return v.s.ExportPoints(i, path) })
}

// importPointsDialog adds the points of a napari points CSV.
func (v *Viewer) importPointsDialog() { v.openWith("Import Points CSV", ".csv", v.s.ImportPoints) }

// dialogForm is a dialog of one entry; OK (or Enter) hands its text to
// done.
func dialogForm(title string, e *escEntry, v *Viewer, done func(string)) *dialog.FormDialog {
	d := dialog.NewForm(title, "OK", "Cancel", []*widget.FormItem{widget.NewFormItem("Name", e)}, func(ok bool) {
		if ok {
			done(e.Text)
		}
	}, v.win)
	e.OnSubmitted = func(string) { d.Submit() }
	d.Resize(fyne.NewSize(400, d.MinSize().Height))
	return d
}
