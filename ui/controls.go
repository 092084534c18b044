package ui

import (
	"fmt"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"vastview/loader"
	"vastview/render"
	"vastview/session"
)

// keyForwarder hands the keys a focused toolbar widget gets to the view,
// so that after choosing from a menu or moving a slider the keyboard still
// steps planes; Escape and Tab keep their usual meaning.
//
// A widget embeds it beside a struct that embeds the Fyne widget (as
// viewSelect embeds selectWidget): its key methods, one level less deep
// than the Fyne widget's, are the ones the widget has.
type keyForwarder struct{ v *Viewer }

// TypedKey implements fyne.Focusable: the view takes the key.
func (k keyForwarder) TypedKey(e *fyne.KeyEvent) {
	k.v.focusView()
	k.v.pv.TypedKey(e)
}

// TypedRune implements fyne.Focusable: the view takes the character.
func (k keyForwarder) TypedRune(r rune) {
	k.v.focusView()
	k.v.pv.TypedRune(r)
}

// KeyDown implements desktop.Keyable: the view takes the keyboard.
func (k keyForwarder) KeyDown(e *fyne.KeyEvent) {
	k.v.focusView()
	k.v.pv.KeyDown(e)
}

// KeyUp implements desktop.Keyable.
func (k keyForwarder) KeyUp(e *fyne.KeyEvent) { k.v.pv.KeyUp(e) }

// The Fyne widgets the toolbar's widgets extend, one level down.
type (
	selectWidget struct{ widget.Select }
	sliderWidget struct{ widget.Slider }
	checkWidget  struct{ widget.Check }
)

// viewSelect is a drop-down whose keys go to the view.
type viewSelect struct {
	selectWidget
	keyForwarder
	quiet bool // set while the view selects an option
}

func newViewSelect(v *Viewer, changed func(string)) *viewSelect {
	s := &viewSelect{keyForwarder: keyForwarder{v}}
	s.OnChanged = func(o string) {
		if s.quiet {
			return
		}
		changed(o)
		v.focusView()
	}
	s.ExtendBaseWidget(s)
	return s
}

// show selects o without calling the change handler: the view chose it.
func (s *viewSelect) show(o string) {
	if s.Selected != o {
		s.quiet = true
		s.SetSelected(o)
		s.quiet = false
	}
}

// viewSlider is a slider whose keys go to the view.
type viewSlider struct {
	sliderWidget
	keyForwarder
}

func newViewSlider(v *Viewer, lo, hi float64) *viewSlider {
	s := &viewSlider{keyForwarder: keyForwarder{v}}
	s.Min, s.Max, s.Step = lo, hi, 1
	s.OnChangeEnded = func(float64) { v.focusView() }
	s.ExtendBaseWidget(s)
	return s
}

var (
	_ desktop.Keyable = (*viewSelect)(nil)
	_ desktop.Keyable = (*viewSlider)(nil)
)

// axisSlider is the slider and read-out of one axis not displayed.
type axisSlider struct {
	axis   byte
	slider *viewSlider
	label  *widget.Label
	quiet  bool // set while the view moves the slider
}

// rebuildSliders makes one slider per axis the view does not display.
func (v *Viewer) rebuildSliders() {
	m := v.s.Meta()
	v.axesBox.RemoveAll()
	v.sliders = map[byte]*axisSlider{}
	if m == nil {
		return
	}
	for _, a := range v.s.Axes() {
		as := &axisSlider{axis: a, label: widget.NewLabel("")}
		as.label.TextStyle.Monospace = true
		first, last := v.s.AxisRange(a) // the data's, and its layers'
		if a == 'C' {
			first, last = 0, m.Size(a)-1
		}
		as.slider = newViewSlider(v, float64(first), float64(last))
		as.slider.OnChanged = func(f float64) {
			if !as.quiet {
				v.s.SetAt(a, int(f))
			}
		}
		v.sliders[a] = as
		v.axesBox.Add(container.NewBorder(nil, nil, as.label, nil, as.slider))
	}
	if op, _ := v.s.Projection(); op != loader.NoProjection {
		v.addSlabSlider()
	}
	// One row, however many sliders: a projection's slab slider takes
	// room beside the others, not from the picture.
	v.axesBox.Layout = layout.NewGridLayoutWithColumns(max(1, len(v.axesBox.Objects)))
	v.axesBox.Refresh()
	v.syncSliders()
}

// addSlabSlider adds the slider of the projection's slab: how many planes
// about the view's it covers, all at the right end (session.SlabPlanes:
// for a turned plane, its normal's extent through the data).
func (v *Viewer) addSlabSlider() {
	as := &axisSlider{axis: slabAxis, label: widget.NewLabel("")}
	as.label.TextStyle.Monospace = true
	as.slider = newViewSlider(v, 1, float64(v.s.SlabPlanes()))
	as.slider.OnChanged = func(f float64) {
		if as.quiet {
			return
		}
		op, _ := v.s.Projection()
		thick := int(f)
		if thick >= int(as.slider.Max) {
			thick = 0 // every plane
		}
		v.s.SetProjection(op, thick)
	}
	v.sliders[slabAxis] = as
	v.axesBox.Add(container.NewBorder(nil, nil, as.label, nil, as.slider))
}

// slabAxis keys the slab's slider among the axes' sliders.
const slabAxis = '#'

// syncSliders moves the sliders and read-outs to the view, rebuilding
// them when the axes shown changed (another plane).
func (v *Viewer) syncSliders() {
	axes := v.s.Axes()
	op, thick := v.s.Projection()
	if op != loader.NoProjection {
		axes = append(axes, slabAxis)
	}
	same := len(axes) == len(v.sliders)
	for _, a := range axes {
		same = same && v.sliders[a] != nil
	}
	if !same {
		v.rebuildSliders()
		return
	}
	view := v.s.View()
	if as := v.sliders[slabAxis]; as != nil {
		if n := float64(v.s.SlabPlanes()); as.slider.Max != n { // the plane turned
			as.quiet = true
			as.slider.Max = n
			as.slider.Refresh()
			as.quiet = false
		}
		n := int(as.slider.Max)
		if thick <= 0 {
			thick = n
		}
		if float64(thick) != as.slider.Value {
			as.quiet = true
			as.slider.SetValue(float64(thick))
			as.quiet = false
		}
		if l := v.s.SlabLabel(); as.label.Text != l {
			as.label.SetText(l)
		}
	}
	for a, as := range v.sliders {
		if a == slabAxis {
			continue
		}
		if i := float64(view.At(a)); as.slider.Value != i {
			as.quiet = true
			as.slider.SetValue(i)
			as.quiet = false
		}
		if l := v.s.AxisLabel(a); as.label.Text != l {
			as.label.SetText(l)
		}
	}
}

// toolbar is the row above the picture.
type toolbar struct {
	v      *Viewer
	box    *fyne.Container
	planes [3]*widget.Button
	cmap   *viewSelect
	play   *widget.Button
	rate   *viewSelect
	proj   *viewSelect  // plane, or a projection along its normal
	roi    *toolButtons // the measuring tools

	shown       bool // orientation and colormap are on show
	orientation render.Orientation
	turned      bool // one plane shown, turned out of XY, XZ and YZ
	colormap    string
}

func newToolbar(v *Viewer) *toolbar {
	t := &toolbar{v: v}
	for i, name := range []string{"XY", "XZ", "YZ"} {
		o := render.Orientation(i)
		t.planes[i] = widget.NewButton(name, func() {
			v.s.SetOrientation(o)
			v.focusView()
		})
	}
	t.cmap = newViewSelect(v, func(name string) { v.s.SetColormap(name) })
	t.rate = newViewSelect(v, func(s string) {
		var fps float64
		if _, err := fmt.Sscanf(s, "%g", &fps); err == nil {
			v.s.SetPlayRate(fps)
		}
	})
	t.proj = newViewSelect(v, func(name string) {
		_, thick := v.s.Projection()
		op, _ := loader.ParseProjection(name) // "plane": none
		v.s.SetProjection(op, thick)
	})
	t.proj.Options = []string{"plane", loader.ProjectMax.String(), loader.ProjectMin.String(), loader.ProjectMean.String()}
	t.play = widget.NewButtonWithIcon("", theme.MediaPlayIcon(), func() {
		v.s.TogglePlay()
		v.focusView()
	})
	t.roi = newToolButtons(v)
	t.box = container.NewBorder(nil, nil, container.NewHBox(
		widget.NewButtonWithIcon("", theme.FolderOpenIcon(), v.openDialog),
		t.planes[0], t.planes[1], t.planes[2],
		t.proj,
		t.cmap,
		// Fiji's Brightness & Contrast names it so; View → Auto-contrast and C too.
		widget.NewButton("Auto", func() { v.s.AutoContrast(); v.focusView() }),
		widget.NewButtonWithIcon("Fit", theme.ZoomFitIcon(), func() { v.s.Fit(); v.focusView() }),
		t.play,
		t.rate,
		t.roi.box,
	), nil)
	t.dataChanged()
	return t
}

// dataChanged offers what the data allows: its planes, its colormaps, its
// own frame rate.
func (t *toolbar) dataChanged() {
	ok := t.v.s.Orientations()
	for i, b := range t.planes {
		if slices.Contains(ok, render.Orientation(i)) {
			b.Enable()
		} else {
			b.Disable()
		}
	}
	var rates []string
	for _, r := range session.PlayRates {
		rates = append(rates, session.RateName(r))
	}
	if r, ok := t.v.s.FileRate(); ok && !slices.Contains(rates, session.RateName(r)) {
		rates = append([]string{session.RateName(r)}, rates...)
	}
	t.rate.Options = rates
	t.shown = false
	t.viewChanged()
	t.playChanged()
}

// viewChanged shows the plane and colormap in use (a step through the
// planes changes neither: nothing is redrawn then).
func (t *toolbar) viewChanged() {
	view := t.v.s.View()
	// One channel in gray is drawn in gray whatever its own colours.
	if mode, chans := t.v.s.Channels(); len(chans) > 1 && mode == session.OneGray {
		view.Colormap = "gray"
	}
	// A turned plane shown alone is none of the three: its button aligns
	// it again. In the four panels the buttons pick the panel the keys
	// move, turned or not.
	turned := session.PlaneTurned(view) && t.v.s.Layout() != session.FourPanels
	if t.shown && view.Orientation == t.orientation && turned == t.turned && view.Colormap == t.colormap {
		return
	}
	t.shown, t.orientation, t.turned, t.colormap = true, view.Orientation, turned, view.Colormap
	for i, b := range t.planes {
		if render.Orientation(i) == view.Orientation && !turned {
			b.Importance = widget.HighImportance
		} else {
			b.Importance = widget.MediumImportance
		}
		b.Refresh()
	}
	t.cmap.Options = t.v.s.Colormaps()
	t.cmap.show(view.Colormap)
}

// projChanged shows the projection drawn.
func (t *toolbar) projChanged() {
	if op, _ := t.v.s.Projection(); op != loader.NoProjection {
		t.proj.show(op.String())
	} else {
		t.proj.show("plane")
	}
}

// playChanged shows play or pause, and the rate.
func (t *toolbar) playChanged() {
	on, rate := t.v.s.Playing()
	if on {
		t.play.SetIcon(theme.MediaPauseIcon())
	} else {
		t.play.SetIcon(theme.MediaPlayIcon())
	}
	name := session.RateName(rate)
	if !slices.Contains(t.rate.Options, name) {
		t.rate.Options = append(t.rate.Options, name)
	}
	t.rate.show(name)
}

// togglePanels shows or hides the panels under and beside the picture.
func (v *Viewer) togglePanels() {
	if v.panels.Visible() {
		v.panels.Hide()
	} else {
		v.panels.Show()
	}
	v.chans.sync()
	v.layers.sync()
	v.win.Content().Refresh() // the picture takes the room, or gives it back
}

// histogramPanel names the histogram among the panels the user may hide.
const histogramPanel = "histogram"

// toggleHistogram shows or hides the histogram and its window entries
// (G), and remembers the choice.
func (v *Viewer) toggleHistogram() {
	b := v.contrast.box
	if b.Visible() {
		b.Hide()
	} else {
		b.Show()
	}
	v.s.Prefs().SetPanelHidden(histogramPanel, !b.Visible())
	v.win.Content().Refresh()
}
