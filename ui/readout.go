package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// readoutRow lays out the window's bottom row: the read-out under the
// pointer on the left, the status line right of it, and what shows the
// work going on (opening, exports, the levels' build) at the right end.
// The read-out comes first: it has the room its text needs, up to the
// whole row; the status has the rest, its text at the right, cut with
// an ellipsis when longer (its first words, as "turned, trilinear", are
// the ones kept). With the pointer off the picture the status has the
// whole row.
type readoutRow struct {
	hover  *widget.Label
	status *statusLabel
	work   fyne.CanvasObject
	size   fyne.Size // as last laid out
}

// textWidth is the width a label needs to show s whole.
func textWidth(l *widget.Label, s string) float32 {
	if s == "" {
		return 0
	}
	return fyne.MeasureText(s, theme.TextSize(), l.TextStyle).Width + 2*theme.InnerPadding()
}

// free is the width left of the work shown at the right end.
func (r *readoutRow) free(size fyne.Size) float32 {
	w := size.Width
	if r.work.Visible() {
		w -= r.work.MinSize().Width + theme.Padding()
	}
	return max(0, w)
}

// HoverRoom is the most the read-out may take as the row is now.
func (r *readoutRow) HoverRoom() float32 { return r.free(r.size) }

func (r *readoutRow) Layout(_ []fyne.CanvasObject, size fyne.Size) {
	r.size = size
	free := r.free(size)
	hw := min(textWidth(r.hover, r.hover.Text), free)
	r.hover.Move(fyne.NewPos(0, 0))
	r.hover.Resize(fyne.NewSize(hw, size.Height))
	r.status.Move(fyne.NewPos(hw, 0))
	r.status.Resize(fyne.NewSize(free-hw, size.Height))
	if r.work.Visible() {
		ws := r.work.MinSize()
		r.work.Move(fyne.NewPos(size.Width-ws.Width, (size.Height-ws.Height)/2))
		r.work.Resize(ws)
	}
}

func (r *readoutRow) MinSize([]fyne.CanvasObject) fyne.Size {
	h := max(r.hover.MinSize().Height, r.status.MinSize().Height)
	if r.work.Visible() {
		h = max(h, r.work.MinSize().Height)
	}
	return fyne.NewSize(0, h)
}
