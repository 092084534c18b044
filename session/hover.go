package session

import (
	"fmt"
	"strings"

	"vastview/loader"
	"vastview/render"
)

// pointer is the hover part: where the pointer is over the picture (in
// the active panel's viewport), and the read-out of the data there. It is
// handed the data and the frame shown; the layers' read-out is the
// layers' own.
type pointer struct {
	x, y float64
	in   bool
}

// set notes the pointer at (x, y), or that it left the picture.
func (h *pointer) set(x, y float64, in bool) { *h = pointer{x: x, y: y, in: in} }

// at is where the pointer is, and whether it is over the picture.
func (h *pointer) at() (x, y float64, in bool) { return h.x, h.y, h.in }

// Hover notes the pointer at viewport position (x, y), or that it left
// the picture (in false).
func (s *Session) Hover(x, y float64, in bool) {
	s.mu.Lock()
	if in {
		x, y = s.toPanelLocked(x, y) // the panel under the pointer is the active one
	}
	s.hover.set(x, y, in)
	s.unlockNotify(HoverChanged)
}

// HoverText is the read-out under the pointer: the position on every axis
// (in samples, and physical units for the plane's two), and the value there
// (R, G and B for colour pixels, every visible channel's of a composite;
// the physical value too when the file scales values), from the finest
// level in memory, then what each visible layer holds there (a label
// layer's label id), topmost first. It is "" off the data.
func (s *Session) HoverText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	x, y, in := s.hover.at()
	if !in || s.data == nil || s.shown == nil || s.over3DLocked() {
		return ""
	}
	t := s.hover.text(s.data, s.shown)
	if s.layers.empty() {
		return t
	}
	lt := s.layers.hoverText(s.data.Pyr.Meta(), s.shown.View, s.shown.plane, x, y)
	if t == "" && lt != "" { // beside the image, over a layer
		loc := s.shown.View.Locate(s.data.Pyr.Meta(), x, y)
		t = fmt.Sprintf("%c %d  %c %d  (beyond the image)", loc.ColAxis, loc.Col, loc.RowAxis, loc.Row)
	}
	return t + lt
}

// text is the read-out of data d under the pointer in frame f, shown of
// d, without the layers.
func (h *pointer) text(d *Data, f *Frame) string {
	var pyr render.Source = d.Pyr
	m := pyr.Meta()
	shown := f.View
	valueName, at := "value", shown // the view the values are read in
	if p := f.proj; p != nil {      // the projection's values, not the plane's
		pyr, valueName, at = p, p.op.String(), onProjection(shown)
	}
	if f.plane != nil && f.proj == nil {
		t := obliqueHoverText(d.Pyr, *f.plane, shown, h.x, h.y)
		if t != "" && f.Projection != loader.NoProjection {
			t += slabHoverText(d.Pyr, *f.plane, shown, f.Projection, f.Slab, h.x, h.y)
		}
		return t
	}
	loc := shown.Locate(m, h.x, h.y)
	if !loc.Inside {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%c %d  %c %d   (%s, %s)", loc.ColAxis, loc.Col, loc.RowAxis, loc.Row,
		phys(loc.ColPhys, loc.ColUnit), phys(loc.RowPhys, loc.RowUnit))
	for _, a := range []byte("ZYXTC") { // every axis: the voxel index in full
		if a == loc.ColAxis || a == loc.RowAxis || m.Size(a) <= 1 || a == 'C' && (m.RGB || len(shown.Channels) > 0) {
			continue
		}
		fmt.Fprintf(&b, "  %c %d", a, shown.At(a))
		if a == 'C' {
			if name := channelName(m, shown.C); name != "" {
				fmt.Fprintf(&b, " (%s)", name)
			}
		}
	}
	if an, ok := anatomyOf(m); ok {
		b.WriteString("   " + an.worldText(locIndex(loc, shown)))
	}
	if m.RGB && shown.Colormap == render.RGB {
		var rgb [3]string
		for c := range rgb {
			v := at
			v.C = c
			val, _, ok := render.ValueAt(pyr, v, h.x, h.y)
			if !ok {
				return b.String()
			}
			rgb[c] = fmt.Sprintf("%.6g", val)
		}
		fmt.Fprintf(&b, "   R %s G %s B %s", rgb[0], rgb[1], rgb[2])
		return b.String()
	}
	if len(shown.Channels) > 0 && !(len(shown.Channels) == 1 && shown.Channels[0].Colormap == "#000000") {
		b.WriteString("  ")
		for _, ch := range shown.Channels {
			val, _, ok := render.SampleAt(pyr, render.ChannelView(at, ch), h.x, h.y)
			if !ok {
				break
			}
			name := channelName(m, ch.C)
			if name == "" {
				name = fmt.Sprintf("C%d", ch.C)
			}
			fmt.Fprintf(&b, " %s %s", name, valueText(m, pyr.Meta().DType, val))
		}
		return b.String()
	}
	if val, _, ok := render.SampleAt(pyr, at, h.x, h.y); ok {
		fmt.Fprintf(&b, "   %s %s", valueName, valueText(m, pyr.Meta().DType, val))
	}
	return b.String()
}

// locIndex is the level-0 index (x, y, z) of the sample at loc in view v.
func locIndex(loc render.Location, v render.View) (idx [3]int) {
	for i, a := range []byte("XYZ") {
		switch a {
		case loc.ColAxis:
			idx[i] = loc.Col
		case loc.RowAxis:
			idx[i] = loc.Row
		default:
			idx[i] = v.At(a)
		}
	}
	return idx
}

// valueText writes a sample (little-endian, of type dt) as stored, every
// digit of an integer, and its physical value when the file (described by
// m) scales values.
func valueText(m *loader.Meta, dt loader.DType, sample []byte) string {
	s, v := dt.Text(sample, 0), dt.At(sample, 0)
	unit := ""
	if m.ValueUnit != "" {
		unit = " " + m.ValueUnit
	}
	if m.ValueScale != nil {
		s += fmt.Sprintf(" (%.6g%s)", m.ValueScale.Value(v), unit)
	} else {
		s += unit
	}
	return s
}

func phys(p float64, unit string) string {
	if unit == "" {
		return fmt.Sprintf("%.4g", p)
	}
	return fmt.Sprintf("%.4g %s", p, Abbreviate(unit))
}

// Abbreviate shortens an NGFF unit name for display ("micrometer": "µm").
func Abbreviate(unit string) string {
	switch unit {
	case "micrometer":
		return "µm"
	case "millimeter":
		return "mm"
	case "nanometer":
		return "nm"
	case "meter":
		return "m"
	case "second":
		return "s"
	case "millisecond":
		return "ms"
	}
	return unit
}
