package ui

import (
	"testing"

	"vastview/session"
)

// Key 5 shows the 3-D view and its sliders under the histogram; the
// opacity slider sets the translucent mode's opacity; 5 again hides them.
func TestView3DSliders(t *testing.T) {
	v := newTestViewer(t, nil)
	waitShown(t, v, func(f *session.Frame) bool { return f.Info.Complete })
	onUI(func() { v.pv.TypedRune('5') })
	waitShown(t, v, func(f *session.Frame) bool { return f.Vol != nil })
	waitPanel(t, v, "the 3-D sliders", func() bool { return v.v3.box.Visible() })
	onUI(func() { v.v3.opacity.SetValue(40) })
	if got := v.s.Opacity3D(); got != 0.4 {
		t.Errorf("the opacity slider at 40 set the opacity to %v", got)
	}
	onUI(func() { v.v3.iso.SetValue(1000) })
	if iso, set := v.s.Iso3D(); !set || iso != v.v3.hi {
		t.Errorf("the threshold slider at its end set %v (%v), want %v", iso, set, v.v3.hi)
	}
	onUI(func() { v.pv.TypedRune('5') })
	waitPanel(t, v, "no 3-D sliders", func() bool { return !v.v3.box.Visible() })
	if v.s.Layout() != session.SingleView {
		t.Errorf("5 again: layout %v", v.s.Layout())
	}
}
