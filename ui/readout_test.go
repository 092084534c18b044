package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// TestReadoutRowGivesTheReadoutItsRoomFirst: the bottom row shows the
// read-out under the pointer whole and the status beside it whole when
// both fit; when they do not, the read-out stays whole and the status
// is cut; with no read-out, or the work at the right end hidden, the
// status has that room too.
func TestReadoutRowGivesTheReadoutItsRoomFirst(t *testing.T) {
	test.NewTempApp(t)
	// On the UI goroutine: the text measures share caches with its work.
	onUI(func() {
		hover := widget.NewLabel("")
		status := newStatusLabel(nil)
		work := widget.NewLabel("exporting cells.ome.tif")
		r := &readoutRow{hover: hover, status: status, work: work}
		box := container.New(r, hover, status, work)
		const w = 1000
		box.Resize(fyne.NewSize(w, 40))
		set := func(h, s string) {
			hover.SetText(h)
			status.SetText(s)
			box.Refresh()
		}
		whole := func(what string, l *widget.Label) {
			t.Helper()
			if need := textWidth(l, l.Text); l.Size().Width < need {
				t.Errorf("%s %q has %v of the %v pixels it needs", what, l.Text, l.Size().Width, need)
			}
		}
		free := w - work.MinSize().Width - theme.Padding()
		set("Z 494  Y 809  X 1008  (494 µm, 404.5 µm, 504 µm)  T 0  value 3542", "turned, trilinear  zoom 0.29×  level 1/3")
		whole("the read-out", hover)
		whole("the status", &status.Label)
		if end := status.Position().X + status.Size().Width; end > free+0.5 || hover.Position().X != 0 || status.Position().X < hover.Size().Width {
			t.Errorf("read-out at %v+%v, status at %v+%v: overlapping or over the work at %v", hover.Position().X, hover.Size().Width,
				status.Position().X, status.Size().Width, free)
		}

		long := strings.Repeat("Hoechst-33342 27450 ", 4)
		set(long, "turned, trilinear  zoom 0.29× (1.73 µm/px)  level 1/3  pending 0  cache 855 MiB")
		whole("a long read-out", hover)
		if status.Size().Width >= textWidth(&status.Label, status.Text) {
			t.Errorf("the status has its whole width beside a read-out of %v pixels", hover.Size().Width)
		}
		if got := hover.Size().Width + status.Size().Width; got > free+0.5 {
			t.Errorf("read-out and status take %v pixels of %v", got, free)
		}

		set("", status.Text)
		whole("the status with no read-out", &status.Label)
		work.Hide()
		box.Refresh()
		if status.Size().Width < w-0.5 {
			t.Errorf("with nothing else in the row the status has %v of %v pixels", status.Size().Width, w)
		}
	})
}
