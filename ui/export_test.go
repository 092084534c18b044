package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// walk calls f on o and every object under it, through containers and
// widgets' renderers.
func walk(o fyne.CanvasObject, f func(fyne.CanvasObject)) {
	f(o)
	switch c := o.(type) {
	case *fyne.Container:
		for _, k := range c.Objects {
			walk(k, f)
		}
	case *container.Scroll:
		walk(c.Content, f)
	case fyne.Widget:
		for _, k := range test.WidgetRenderer(c).Objects() {
			walk(k, f)
		}
	}
}

// TestExportDialogOffersThePyramidChoices opens File → Export Pyramid…:
// the dialog is titled, offers the Zarr version, the compression and the
// method, and exporting with Zarr 3 and gzip writes a Zarr 3 store whose
// chunks are gzip-compressed.
func TestExportDialogOffersThePyramidChoices(t *testing.T) {
	v := newTestViewer(t, nil)
	dir := t.TempDir()
	var selects []*widget.Select
	var texts []string
	onUI(func() {
		v.lastFolder = dir
		v.exportDialog()
		walk(v.win.Canvas().Overlays().Top(), func(o fyne.CanvasObject) {
			switch w := o.(type) {
			case *widget.Select:
				selects = append(selects, w)
			case *widget.Label:
				texts = append(texts, w.Text)
			case *widget.RichText:
				texts = append(texts, w.String())
			case *canvas.Text:
				texts = append(texts, w.Text)
			}
		})
	})
	all := strings.Join(texts, "|")
	for _, want := range []string{"Export OME-Zarr Pyramid", "Zarr version", "Compression", "Levels by"} {
		if !strings.Contains(all, want) {
			t.Errorf("the export dialog lacks %q: %s", want, all)
		}
	}
	if len(selects) != 3 {
		t.Fatalf("%d choices in the export dialog, want 3", len(selects))
	}
	onUI(func() {
		selects[0].SetSelected(selects[0].Options[1]) // Zarr 3
		selects[1].SetSelected("gzip")
		entry, _ := v.win.Canvas().Focused().(*escEntry)
		entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	})
	out := filepath.Join(dir, "volume.ome.zarr")
	deadline := time.Now().Add(time.Minute)
	for {
		b, err := os.ReadFile(filepath.Join(out, "0", "zarr.json"))
		if err == nil && strings.Contains(string(b), "gzip") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no gzip-compressed Zarr 3 level 0 in %s: %v %s", out, err, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
