package ui

import (
	"image"
	"image/color"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// cardWidth is the width of a card in the file strip, in units.
const cardWidth = 110

// fileStrip shows the browsing list around the file shown as a row of
// thumbnails with names: the file shown is highlighted in the middle; a
// click opens a file; a file that could not be opened says why in place
// of its thumbnail (a click selects it, and the status bar says it all). Only the stripWindow files nearest the one shown
// have a card: the window is repainted whole every frame, so a strip of a
// thousand files costs what one of fifteen does.
type fileStrip struct {
	v      *Viewer
	row    *fyne.Container
	scroll *container.Scroll
	cards  []*fileCard
	first  int      // the list index of cards[0]
	paths  []string // the list the cards are of
	hidden bool     // hidden by the user (F)
	// reserved keeps the strip's room from the start for a file opened:
	// its folder is listed in the background, and the picture keeps its
	// size when the list arrives.
	reserved bool
}

// stripWindow is the number of files with a card.
const stripWindow = 15

func newFileStrip(v *Viewer) *fileStrip {
	s := &fileStrip{v: v, row: container.NewHBox(), hidden: v.s.Prefs().PanelHidden(stripPanel)}
	s.scroll = container.NewHScroll(s.row)
	s.scroll.SetMinSize(fyne.NewSize(0, cardThumb+44))
	s.scroll.Hide()
	return s
}

// ThumbUnits is the size a thumbnail is made at, in units.
const ThumbUnits = 72

// cardThumb is the size a thumbnail is shown at in the strip, in units:
// small, so that the picture keeps most of the window.
const cardThumb = 48

// stripPanel names the strip among the panels the user may hide.
const stripPanel = "strip"

// listChanged rebuilds the cards when the list changed, highlights the
// file shown and scrolls it into sight. The strip shows for lists of more
// than one file, unless the user hid it.
func (s *fileStrip) listChanged() {
	list, pos := s.v.s.List()
	var ps []string
	for _, e := range list {
		ps = append(ps, e.Path)
	}
	first := max(0, min(pos-stripWindow/2, len(list)-stripWindow))
	if !slices.Equal(ps, s.paths) || first != s.first {
		s.paths, s.first = ps, first
		s.row.RemoveAll()
		s.cards = nil
		for i := first; i < min(len(list), first+stripWindow); i++ {
			c := newFileCard(s.v, i, list[i].Path)
			s.cards = append(s.cards, c)
			s.row.Add(c)
		}
		s.thumbsChanged()
	}
	for k, c := range s.cards {
		c.set(s.first+k == pos, list[s.first+k].Err)
	}
	if (len(list) > 1 || s.reserved) && !s.hidden {
		s.scroll.Show()
	} else {
		s.scroll.Hide()
	}
	if k := pos - s.first; k >= 0 && k < len(s.cards) {
		s.follow(k)
	}
}

// follow scrolls card i into sight.
func (s *fileStrip) follow(i int) {
	x := float32(i) * (cardWidth + theme.Padding())
	w := s.scroll.Size().Width
	off := s.scroll.Offset.X
	if x < off || x+cardWidth > off+w {
		s.scroll.Offset.X = max(0, x-w/2+cardWidth/2)
		s.scroll.Refresh()
	}
}

// thumbsChanged shows the thumbnails made since.
func (s *fileStrip) thumbsChanged() {
	for _, c := range s.cards {
		if c.img.Image == nil {
			if img, ok := s.v.s.Thumbnail(c.path); ok && img != nil {
				c.img.Image = img
				c.img.Refresh()
			}
		}
	}
}

// toggle shows or hides the strip (F).
func (s *fileStrip) toggle() {
	s.hidden = !s.hidden
	s.v.s.Prefs().SetPanelHidden(stripPanel, s.hidden)
	s.listChanged()
	s.v.win.Content().Refresh()
}

// fileCard is one file of the strip.
type fileCard struct {
	widget.BaseWidget
	v    *Viewer
	i    int
	path string
	img  *canvas.Image
	why  *widget.Label // why the file cannot be opened, over the thumbnail
	name *widget.Label
	bg   *canvas.Rectangle
	box  *fyne.Container
}

func newFileCard(v *Viewer, i int, path string) *fileCard {
	c := &fileCard{v: v, i: i, path: path, img: canvas.NewImageFromImage(nil), name: widget.NewLabel(displayName(path)),
		bg: canvas.NewRectangle(color.Transparent)}
	c.img.FillMode = canvas.ImageFillContain
	c.img.ScaleMode = canvas.ImageScaleFastest
	c.img.SetMinSize(fyne.NewSize(cardThumb, cardThumb))
	c.name.Truncation = fyne.TextTruncateEllipsis
	c.name.Alignment = fyne.TextAlignCenter
	c.why = widget.NewLabel("")
	c.why.Wrapping = fyne.TextWrapWord
	c.why.SizeName = theme.SizeNameCaptionText
	c.why.Importance = widget.DangerImportance
	c.why.Hide()
	c.box = container.NewStack(c.bg, container.NewBorder(nil, c.name, nil, nil, container.NewStack(c.img, c.why)))
	c.ExtendBaseWidget(c)
	return c
}

// set highlights the card of the file shown, and dims one that failed.
func (c *fileCard) set(current bool, err error) {
	switch {
	case current:
		c.bg.FillColor = theme.Color(theme.ColorNamePrimary)
	default:
		c.bg.FillColor = color.Transparent
	}
	if err != nil {
		// Red, but on the highlight in the highlight's text colour.
		c.why.Importance = widget.DangerImportance
		if current {
			c.why.Importance = widget.MediumImportance
		}
		c.why.SetText(cardReason(err))
		c.why.Show()
		c.img.Hide()
	} else {
		c.why.Hide()
		c.img.Show()
	}
	c.bg.Refresh()
}

// cardReasonRunes bounds the reason a card shows: four lines of small
// text; the status bar shows the whole of it.
const cardReasonRunes = 64

// cardReason is the reason a card shows why its file cannot be opened.
func cardReason(err error) string {
	r := []rune("cannot open: " + err.Error())
	if len(r) > cardReasonRunes {
		r = append(r[:cardReasonRunes-1], '…')
	}
	return string(r)
}

// Tapped implements fyne.Tappable: open the file, or select it and say
// why it cannot be opened.
func (c *fileCard) Tapped(*fyne.PointEvent) {
	c.v.s.OpenEntry(c.i)
	c.v.focusView()
}

// MinSize implements fyne.CanvasObject.
func (c *fileCard) MinSize() fyne.Size {
	return fyne.NewSize(cardWidth, c.box.MinSize().Height)
}

func (c *fileCard) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(c.box) }

var _ image.Image = (*image.RGBA)(nil)
