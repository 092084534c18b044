package ui

import (
	"math"
	"testing"

	"vastview/loader"
	"vastview/render/oblique"
	"vastview/session"
)

// TestSlabSliderOfATurnedPlane: the slab slider of a projection ends
// (every plane) at the data's planes along the axis normal to the plane,
// and for a turned plane at the data's extent along the plane's normal in
// steps of the smallest spacing, following the plane as it turns.
func TestSlabSliderOfATurnedPlane(t *testing.T) {
	v := newTestViewer(t, nil)
	m := v.s.Meta()
	v.s.SetProjection(loader.ProjectMax, 3)
	// The extent along w of the data's box, from its corners.
	extent := func() float64 {
		pl := session.ObliquePlane(m, v.s.View())
		w := pl.U.Cross(pl.V)
		sp, n := oblique.Spacing(m), oblique.Extent(m)
		lo, hi := math.Inf(1), math.Inf(-1)
		for c := 0; c < 8; c++ {
			d := 0.0
			for a := 0; a < 3; a++ {
				if c>>a&1 != 0 {
					d += float64(n[a]) * sp[a] * w[a]
				}
			}
			lo, hi = min(lo, d), max(hi, d)
		}
		return math.Ceil((hi-lo)/session.SlabStep(m) - 1e-9)
	}
	check := func(what string, want float64) {
		t.Helper()
		waitFor(t, what, func() (got float64, ok bool) {
			onUI(func() {
				if as := v.sliders[slabAxis]; as != nil {
					got = as.slider.Max
				}
			})
			return got, got == want
		})
	}
	check("a slab slider over the 9 planes along Z", float64(m.Size('Z')))
	v.s.Turn(1, 30)
	if e := extent(); e <= float64(m.Size('Z')) {
		t.Fatalf("a plane turned 30° about Y spans only %v planes", e)
	}
	check("a slab slider over the turned plane's extent along its normal", extent())
	v.s.Turn(0, 40)
	check("a slab slider that followed the plane's turn", extent())
}
