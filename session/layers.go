package session

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path"
	"path/filepath"
	"regexp"
	"slices"

	"vastview/levels"
	"vastview/loader"
	"vastview/prefs"
	"vastview/render"
	"vastview/render/oblique"
)

// LayerKind says how a layer being added is drawn.
type LayerKind uint8

// The kinds of layer.
const (
	// LayerAuto is a label layer when the file says it holds labels (an
	// OME-Zarr image-label) or its integer samples and its name do
	// ("labels", "mask", "seg", "annotation", "instances"), else an
	// image layer.
	LayerAuto LayerKind = iota
	LayerImage
	LayerLabels
)

// Layer is one layer over the image, as the layer list shows and sets it.
type Layer struct {
	Name     string // the file's name, for the list
	Path     string // what was opened
	Labels   bool   // a label layer (else an image, drawn as a composite of its channels)
	Visible  bool
	Opacity  float64 // 0..1
	Blending render.Blending
	Outline  bool   // label layers: only the edges of each label
	Selected uint32 // label layers: when not 0, the only label shown
}

// defaultLabelOpacity and defaultImageOpacity are a new layer's opacity,
// as napari's.
const (
	defaultLabelOpacity = 0.7
	defaultImageOpacity = 1
)

// layer is one layer over the data shown: its own data, with its own
// pyramid, and where it lies.
type layer struct {
	Layer
	d       *Data
	al      render.Alignment
	palette [][3]uint16
	chans   []render.Channel // image layers: the channels drawn
}

// layerState is the layers part: the layers over the data shown, and
// the context of the opens of layers for it. Its state is the session's,
// under the session's lock; it is handed the data's metadata and the
// view where it needs them, and hands out the layers' data for the
// drawer to follow.
type layerState struct {
	list    []*layer
	touched bool // the user changed them: the view remembers them
	ctx     context.Context
	cancel  context.CancelFunc // stops the opens of layers for the data shown
}

// has reports whether a layer of the same file and kind as l is there
// already.
func (ls *layerState) has(l *layer) bool {
	for _, o := range ls.list {
		if o.d.Name == l.d.Name && o.Labels == l.Labels {
			return true
		}
	}
	return false
}

// opens is the context of the opens of layers for the data shown (nil
// before any data).
func (ls *layerState) opens() context.Context { return ls.ctx }

// touch notes that the user chose the layers: the view remembers them.
func (ls *layerState) touch() { ls.touched = true }

// add lays l on top of the layers.
func (ls *layerState) add(l *layer) { ls.list = append(ls.list, l) }

// empty reports whether there are no layers.
func (ls *layerState) empty() bool { return len(ls.list) == 0 }

// datas are the layers' data, bottom first.
func (ls *layerState) datas() []*Data {
	ds := make([]*Data, len(ls.list))
	for i, l := range ls.list {
		ds[i] = l.d
	}
	return ds
}

// infos are the layers as the layer list shows them, bottom first.
func (ls *layerState) infos() []Layer {
	out := make([]Layer, len(ls.list))
	for i, l := range ls.list {
		out[i] = l.Layer
	}
	return out
}

// edit changes how layer i is shown by edit (see Session.EditLayer);
// false when nothing changed.
func (ls *layerState) edit(i int, edit func(l *Layer)) bool {
	if i < 0 || i >= len(ls.list) {
		return false
	}
	l := ls.list[i]
	set := l.Layer
	edit(&set)
	set.Name, set.Path, set.Labels = l.Name, l.Path, l.Labels
	set.Opacity = max(0, min(1, set.Opacity))
	if set == l.Layer {
		return false
	}
	l.Layer = set
	ls.touched = true
	return true
}

// move moves layer i to position to; false when it cannot.
func (ls *layerState) move(i, to int) bool {
	n := len(ls.list)
	if i < 0 || i >= n || to < 0 || to >= n || i == to {
		return false
	}
	l := ls.list[i]
	ls.list = slices.Insert(slices.Delete(ls.list, i, i+1), to, l)
	ls.touched = true
	return true
}

// remove takes layer i away and returns its data to release (nil: none).
func (ls *layerState) remove(i int) *Data {
	if i < 0 || i >= len(ls.list) {
		return nil
	}
	l := ls.list[i]
	ls.list = slices.Delete(ls.list, i, i+1)
	ls.touched = true
	return l.d
}

// pick shows only the label under viewport position (x, y) of view v of
// the base (whose metadata is base; pl, when not nil, the oblique plane
// it shows) of the topmost visible label layer that has one there, or
// every label again when that one is shown alone already; false when
// none has one there.
func (ls *layerState) pick(base *loader.Meta, v render.View, pl *oblique.Plane, x, y float64) bool {
	for i := len(ls.list) - 1; i >= 0; i-- {
		l := ls.list[i]
		if !l.Labels || !l.Visible {
			continue
		}
		id, _, ok := l.labelAt(base, v, pl, x, y)
		if !ok {
			continue
		}
		if id == l.Selected {
			id = 0
		}
		l.Selected = id
		ls.touched = true
		return true
	}
	return false
}

// toggle hides every layer when any shows, else shows them all; false
// when there are none.
func (ls *layerState) toggle() bool {
	if len(ls.list) == 0 {
		return false
	}
	shown := false
	for _, l := range ls.list {
		shown = shown || l.Visible
	}
	for _, l := range ls.list {
		l.Visible = !shown
	}
	ls.touched = true
	return true
}

// reset takes every layer away and readies the opens of the next data's;
// the layers' data are returned to release.
func (ls *layerState) reset() []*Data {
	if ls.cancel != nil {
		ls.cancel()
	}
	old := ls.datas()
	*ls = layerState{}
	ls.ctx, ls.cancel = context.WithCancel(context.Background())
	return old
}

// save puts the layers in the remembered view v.
func (ls *layerState) save(v *prefs.View) {
	if !ls.touched && len(ls.list) == 0 {
		return
	}
	v.LayersSet = true
	for _, l := range ls.list {
		v.Layers = append(v.Layers, prefs.LayerView{
			Path: l.Path, Labels: l.Labels, Hidden: !l.Visible, Opacity: l.Opacity,
			Blending: l.Blending.String(), Outline: l.Outline, Selected: l.Selected,
		})
	}
}

// extent widens [lo, hi), a part of axis a in the data's coordinates, to
// hold what the layers cover.
func (ls *layerState) extent(a byte, lo, hi float64) (float64, float64) {
	for _, l := range ls.list {
		if l0, h0, ok := l.al.Extent(a); ok {
			lo, hi = min(lo, l0), max(hi, h0)
		}
	}
	return lo, hi
}

// labelName is the kind of file name label images have.
var labelName = regexp.MustCompile(`(?i)(label|mask|seg|annot|instance)`)

// looksLikeLabels reports whether a file of integer samples named name
// holds labels, as LayerAuto takes it.
func looksLikeLabels(name string, m *loader.Meta) bool {
	if m.Label {
		return true
	}
	return !m.DType.Float() && !m.RGB && m.Size('C') == 1 && labelName.MatchString(displayName(name))
}

// AddLayer opens path in the background and lays it over the data shown,
// aligned by physical coordinates (see render.Align), on top of the
// layers there are. A file that cannot be opened or aligned is reported
// as a problem and not added.
func (s *Session) AddLayer(path string, kind LayerKind) {
	s.mu.Lock()
	d, ctx := s.data, s.layers.opens()
	if d != nil {
		s.layers.touch()
	}
	s.mu.Unlock()
	if d == nil {
		s.problem(displayName(path), errors.New("open an image first: a layer lies over one"))
		return
	}
	s.openLayers(d, ctx, []prefs.LayerView{{Path: path, Labels: kind == LayerLabels}}, kind == LayerAuto)
}

// openLayers opens the layers specs describes, in order, in the
// background, and lays each over d if d is still shown.
func (s *Session) openLayers(d *Data, ctx context.Context, specs []prefs.LayerView, auto bool) {
	s.mu.Lock()
	if s.closed || ctx == nil {
		s.mu.Unlock()
		return
	}
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		for _, sp := range specs {
			l, err := s.openLayer(ctx, d, sp, auto)
			if err != nil {
				if ctx.Err() == nil {
					s.problem(displayName(sp.Path), err)
				}
				continue
			}
			s.mu.Lock()
			if s.data != d || ctx.Err() != nil || s.closed {
				s.mu.Unlock()
				l.d.Release()
				return
			}
			if s.layers.has(l) { // asked for twice (remembered, and on the command line)
				s.mu.Unlock()
				go l.d.Release()
				continue
			}
			s.layers.add(l)
			s.layersChangedLocked()
			s.unlockNotify(LayersChanged | ViewChanged | HoverChanged)
		}
	}()
}

// openLayer opens one layer over d.
func (s *Session) openLayer(ctx context.Context, d *Data, sp prefs.LayerView, auto bool) (*layer, error) {
	src, err := s.opts.Open(ctx, sp.Path)
	if err != nil {
		return nil, err
	}
	m := src.Meta()
	al, err := render.Align(d.Pyr.Meta(), m)
	if err != nil {
		src.Close()
		base := displayName(d.Name)
		if base == "" {
			base = "the image"
		}
		return nil, fmt.Errorf("cannot be laid over %s: %v", base, err)
	}
	labels := sp.Labels || auto && looksLikeLabels(sp.Path, m)
	if labels && m.DType.Float() {
		labels = false // labels are integers: drawn as an image
	}
	opt := DataOptions{CacheBytes: levels.Part(s.prefs.CacheBytes(), levels.PartLayer), DiskBytes: s.prefs.DiskCacheBytes(), DiskRoot: s.opts.DiskRoot, Labels: labels}
	ld, err := OpenData(Canonical(sp.Path), src, opt)
	if err != nil {
		return nil, err
	}
	ld.StartBuild()
	l := &layer{d: ld, al: al, palette: m.Palette, Layer: Layer{
		Name: displayName(sp.Path), Path: sp.Path, Labels: labels, Visible: !sp.Hidden,
		Opacity: sp.Opacity, Outline: sp.Outline, Selected: sp.Selected,
	}}
	if b, ok := render.ParseBlending(sp.Blending); ok {
		l.Blending = b
	}
	if !(l.Opacity > 0 && l.Opacity <= 1) {
		l.Opacity = defaultImageOpacity
		if labels {
			l.Opacity = defaultLabelOpacity
		}
	}
	if !labels {
		chans, visible, _ := DefaultChannels(m)
		for c, ch := range chans {
			if visible[c] {
				l.chans = append(l.chans, ch)
			}
		}
		if len(l.chans) == 0 {
			l.chans = chans[:1]
		}
		if l.Blending == render.Over && sp.Blending == "" && m.Size('C') > 1 && !m.RGB {
			l.Blending = render.Additive // fluorescence over fluorescence
		}
	}
	return l, nil
}

// layersChangedLocked has the drawer follow the layers' data and draws
// the view again.
func (s *Session) layersChangedLocked() {
	s.draw.followLayers(s.layers.datas())
	if s.fitted {
		s.view.Zoom = 0 // fitted again: the layers may reach beyond the data
	}
	s.askLocked(s.clock.Now(), 0)
}

// Layers lists the layers over the image, bottom first.
func (s *Session) Layers() []Layer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.layers.infos()
}

// EditLayer changes how layer i is shown (visibility, opacity, blending,
// outline, selected label; its name, path and kind stay) by edit, called
// on its settings with the session locked: a change of one setting leaves
// the others as they are now.
func (s *Session) EditLayer(i int, edit func(l *Layer)) {
	s.mu.Lock()
	if !s.layers.edit(i, edit) {
		s.mu.Unlock()
		return
	}
	s.askLocked(s.clock.Now(), 0)
	s.unlockNotify(LayersChanged | HoverChanged)
}

// MoveLayer moves layer i to position to (0 is the bottom, just over the
// image).
func (s *Session) MoveLayer(i, to int) {
	s.mu.Lock()
	if !s.layers.move(i, to) {
		s.mu.Unlock()
		return
	}
	s.layersChangedLocked()
	s.unlockNotify(LayersChanged | HoverChanged)
}

// RemoveLayer takes layer i away.
func (s *Session) RemoveLayer(i int) {
	s.mu.Lock()
	d := s.layers.remove(i)
	if d == nil {
		s.mu.Unlock()
		return
	}
	s.layersChangedLocked()
	s.unlockNotify(LayersChanged | HoverChanged)
	go d.Release()
}

// pickLabel shows only the label under position (x, y) of the active
// panel of the topmost visible label layer that has one there, or every
// label again when that one is shown alone already or there is none.
func (s *Session) pickLabel(x, y float64) {
	s.mu.Lock()
	if s.data == nil || s.shown == nil {
		s.mu.Unlock()
		return
	}
	if !s.layers.pick(s.data.Pyr.Meta(), s.shown.View, s.shown.plane, x, y) {
		s.mu.Unlock()
		return
	}
	s.askLocked(s.clock.Now(), 0)
	s.unlockNotify(LayersChanged)
}

// pickLabelAtPointer is pickLabel where the pointer is over the picture.
func (s *Session) pickLabelAtPointer() {
	s.mu.Lock()
	x, y, in := s.hover.at()
	s.mu.Unlock()
	if in {
		s.pickLabel(x, y) // the hover's position is the panel's
	}
}

// ToggleLayers hides every layer when any shows, else shows them all.
func (s *Session) ToggleLayers() {
	s.mu.Lock()
	if !s.layers.toggle() {
		s.mu.Unlock()
		return
	}
	s.askLocked(s.clock.Now(), 0)
	s.unlockNotify(LayersChanged | HoverChanged)
}

// labelAt is the label under viewport position (x, y) of view v of the
// base (whose metadata is base): its key in the layer's id images
// (render.LabelKey) and its id in full; ok is false where the layer has
// nothing in memory there, or label 0.
func (l *layer) labelAt(base *loader.Meta, v render.View, pl *oblique.Plane, x, y float64) (key uint32, id string, ok bool) {
	b, ok := l.sampleAt(base, v, pl, 0, x, y)
	if !ok {
		return 0, "", false
	}
	dt := l.d.Pyr.Meta().DType
	if key = render.LabelKey(b, dt, 0); key == 0 {
		return 0, "", false
	}
	return key, dt.Text(b, 0), true
}

// dropLayersLocked takes every layer away (other data is shown) and
// readies the opens of the next data's; the layers' data are returned to
// release.
func (s *Session) dropLayersLocked() []*Data {
	old := s.layers.reset()
	s.draw.followLayers(nil)
	return old
}

// restoreLayers opens the layers d's remembered view had, or, when it
// remembers none, the label images d's file offers.
func (s *Session) restoreLayers(d *Data) {
	s.mu.Lock()
	ctx := s.layers.opens()
	var specs []prefs.LayerView
	if saved, ok := s.prefs.View(d.Name); ok && saved.LayersSet && d.Persist() {
		specs = saved.Layers
		s.layers.touch()
	} else {
		for _, rel := range d.Pyr.Meta().Labels {
			if p := joinAddress(d.Name, rel); p != "" {
				specs = append(specs, prefs.LayerView{Path: p, Labels: true})
			}
		}
	}
	s.mu.Unlock()
	if len(specs) > 0 {
		s.openLayers(d, ctx, specs, false)
	}
}

// joinAddress is the address of rel, a "/"-separated path relative to
// the file or URL name, or "" for none.
func joinAddress(name, rel string) string {
	switch {
	case name == "":
		return ""
	case loader.IsURL(name):
		return name + "/" + path.Clean(rel)
	}
	return filepath.Join(name, filepath.FromSlash(rel))
}

// spanLocked is the range of positions along axis a that the data shown
// or a layer over it covers, in the data's samples: first and last.
func (s *Session) spanLocked(a byte) (first, last int) {
	lo, hi := s.extentLocked(a)
	return int(math.Floor(lo + 1e-9)), int(math.Ceil(hi-1e-9)) - 1
}

// extentLocked is the part of axis a that the data or a layer covers, in
// the data's coordinates (its sample i covers [i, i+1)).
func (s *Session) extentLocked(a byte) (lo, hi float64) {
	return s.layers.extent(a, 0, float64(s.data.Pyr.Meta().Size(a)))
}

// AxisRange is the range of positions along axis a that the sliders and
// keys reach: the data's, and beyond it where layers reach further.
func (s *Session) AxisRange(a byte) (first, last int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.data == nil {
		return 0, 0
	}
	return s.spanLocked(a)
}

// fitBoxLocked is the part of the plane that fitting the view shows: the
// data's and its layers'.
func (s *Session) fitBoxLocked(o render.Orientation) (lo, hi render.Point) {
	row, col, _ := o.Axes()
	lo.Col, hi.Col = s.extentLocked(col)
	lo.Row, hi.Row = s.extentLocked(row)
	return lo, hi
}

// layerDraw is a layer as the drawer draws it.
type layerDraw struct {
	d      *Data
	al     render.Alignment
	labels bool
	style  render.LabelStyle
	blend  render.Blending
	chans  []render.Channel
}

// draws are the visible layers as the drawer draws them, bottom first.
func (ls *layerState) draws() []layerDraw {
	var out []layerDraw
	for _, l := range ls.list {
		if !l.Visible || !(l.Opacity > 0) {
			continue
		}
		out = append(out, layerDraw{d: l.d, al: l.al, labels: l.Labels, blend: l.Blending, chans: l.chans,
			style: render.LabelStyle{Opacity: l.Opacity, Outline: l.Outline, Selected: l.Selected, Palette: l.palette}})
	}
	return out
}

// labelLayers counts the visible label layers.
func (ls *layerState) labelLayers() int {
	n := 0
	for _, l := range ls.list {
		if l.Labels && l.Visible {
			n++
		}
	}
	return n
}

// hoverText writes what each visible layer holds under viewport
// position (x, y) of view v of the base (whose metadata is base), topmost
// first, for the read-out.
func (ls *layerState) hoverText(base *loader.Meta, v render.View, pl *oblique.Plane, x, y float64) string {
	out := ""
	for i := len(ls.list) - 1; i >= 0; i-- {
		l := ls.list[i]
		if !l.Visible {
			continue
		}
		if l.Labels {
			if _, id, ok := l.labelAt(base, v, pl, x, y); ok {
				out += "   label " + id
				if ls.labelLayers() > 1 {
					out += " (" + l.Name + ")"
				}
			}
			continue
		}
		if val, ok := l.sampleAt(base, v, pl, l.chans[0].C, x, y); ok {
			out += fmt.Sprintf("   %s %s", l.Name, valueText(l.d.Pyr.Meta(), l.d.Pyr.Meta().DType, val))
		}
	}
	return out
}
