package render

import (
	"fmt"
	"math"

	"vastview/loader"
)

// Alignment maps the level-0 coordinates of one source (the base, whose
// view the viewer shows) onto those of another drawn over it (a layer),
// through their physical coordinates: the spacing and translation of each
// level 0, in their units. Along each axis both have, a base coordinate u
// (sample i covers [i, i+1)) is the layer's a*u + b. The layer's C axis is
// its own. It is a plain value.
type Alignment struct {
	a, b [maxAxes]float64 // per axis letter, in the order of allAxes
	has  [maxAxes]bool    // the layer has the axis
	size [maxAxes]int     // the layer's length along it
}

// allAxes orders the axis letters of an Alignment.
const allAxes = "TCZYX"

// geometry returns the spacing and translation of level 0 along axis k of
// m, 1 and 0 where they are not usable numbers.
func geometry(m *loader.Meta, k int) (s, t float64) {
	l := &m.Levels[0]
	s, t = l.Scale[k], l.Translation[k]
	if !(s > 0) || !finite(s) {
		s = 1
	}
	if !finite(t) {
		t = 0
	}
	return s, t
}

// Align works out how layer lies over base. It fails, saying why, when
// their units along an axis measure different things (micrometres against
// seconds), or when the layer's plane does not meet the base's anywhere.
func Align(base, layer *loader.Meta) (Alignment, error) {
	var al Alignment
	for i := range allAxes {
		a := allAxes[i]
		al.a[i], al.b[i] = 1, 0
		kl := layer.AxisIndex(a)
		if kl < 0 {
			continue
		}
		al.has[i], al.size[i] = true, layer.Shape[kl]
		kb := base.AxisIndex(a)
		if kb < 0 || a == 'C' {
			continue
		}
		sb, tb := geometry(base, kb)
		sl, tl := geometry(layer, kl)
		fb, kindB := loader.UnitScale(base.Units[kb])
		fl, kindL := loader.UnitScale(layer.Units[kl])
		switch {
		case kindB != "" && kindL != "" && kindB != kindL:
			return al, fmt.Errorf("its %c axis is in %s, the image's in %s", a, layer.Units[kl], base.Units[kb])
		case kindB != "" && kindL != "":
			sl, tl = sl*fl/fb, tl*fl/fb // in the base's unit
		}
		al.a[i] = sb / sl
		al.b[i] = (tb-tl-sb/2)/sl + 0.5
	}
	// The layer must cover some of the base's plane.
	for _, a := range []byte("YX") {
		i := axisSlot(a)
		kb := base.AxisIndex(a)
		lo, hi := al.b[i], al.a[i]*float64(base.Shape[kb])+al.b[i]
		if hi <= 0 || lo >= float64(al.size[i]) {
			return al, fmt.Errorf("it lies outside the image along %c (its samples 0..%d against %.4g..%.4g of the image in its samples)",
				a, al.size[i], lo, hi)
		}
	}
	return al, nil
}

// axisSlot is the position of axis letter a in allAxes.
func axisSlot(a byte) int {
	for i := range allAxes {
		if allAxes[i] == a {
			return i
		}
	}
	return -1
}

// Coord maps a base coordinate along axis a to the layer's.
func (al Alignment) Coord(a byte, u float64) float64 {
	i := axisSlot(a)
	return al.a[i]*u + al.b[i]
}

// Index is the layer's sample under base sample i along axis a, and
// whether the layer has it (false beyond the layer's extent; true, 0 for
// an axis the layer lacks).
func (al Alignment) Index(a byte, i int) (int, bool) {
	k := axisSlot(a)
	if !al.has[k] {
		return 0, true
	}
	j := int(math.Floor(al.a[k]*(float64(i)+0.5) + al.b[k] + snap))
	return j, j >= 0 && j < al.size[k]
}

// View returns v, a view of base, as the view of the layer that shows the
// same place: the same plane position at the centre, the same physical
// magnification, the plane the base shows (nearest), with the layer's
// channel c. ok is false when that plane is outside the layer (a layer
// covering fewer planes than the base). base is v's data.
func (al Alignment) View(v View, base *loader.Meta, c int) (lv View, ok bool) {
	v.zooms(base)
	lv = v
	lv.Channels = nil
	lv.C = c
	row, col, _ := v.Orientation.Axes()
	if !al.has[axisSlot(row)] || !al.has[axisSlot(col)] {
		return lv, false // a 2-D layer seen edge on
	}
	for i := range allAxes {
		a := allAxes[i]
		if a == row || a == col || a == 'C' {
			continue
		}
		j, in := al.Index(a, v.At(a))
		if !in {
			return lv, false
		}
		lv.SetAt(a, j)
	}
	lv.Center = Point{Col: al.Coord(col, v.Center.Col), Row: al.Coord(row, v.Center.Row)}
	lv.Zoom = v.Zoom / al.a[axisSlot(col)]
	return lv, true
}

// Extent is the part of the base's axis a the layer covers, in base
// coordinates (sample i covers [i, i+1)); ok is false for an axis the
// layer lacks, or its C axis.
func (al Alignment) Extent(a byte) (lo, hi float64, ok bool) {
	k := axisSlot(a)
	if k < 0 || !al.has[k] || a == 'C' || !(al.a[k] > 0) {
		return 0, 0, false
	}
	return -al.b[k] / al.a[k], (float64(al.size[k]) - al.b[k]) / al.a[k], true
}
