package render

import (
	"testing"

	"vastview/levels"
	"vastview/loader"
)

// TestSideViewsOfAnisotropicStacksUseCoarseLevels chooses the levels of
// views of a stack whose Z step is four times its Y and X steps: its
// levels halve Y and X first, so a side view shown with X at a quarter
// (Z planes four times as tall) draws from the level with X at a quarter
// and every Z plane, rather than from full resolution; the XY view from
// the level at its zoom.
func TestSideViewsOfAnisotropicStacksUseCoarseLevels(t *testing.T) {
	um := []string{"micrometer", "micrometer", "micrometer"}
	m := loader.NewMeta("x", "ZYX", []int{20, 2048, 2048}, loader.Uint16, []int{1, 2048, 2048}, []float64{2, 0.5, 0.5}, um)
	p, err := levels.Open(&memSource{meta: m}, levels.Options{CacheBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	pm := p.Meta()
	side := chooseLevel(pm, 0, 2, 0.25, 1)
	if l := pm.Levels[side]; l.Shape[0] != 20 || l.Shape[2] != 512 {
		t.Errorf("XZ view at X zoom 1/4: level %d of shape %v, want all 20 planes and 512 columns", side, l.Shape)
	}
	top := chooseLevel(pm, 1, 2, 0.25, 0.25)
	if l := pm.Levels[top]; l.Shape[1] != 512 || l.Shape[2] != 512 {
		t.Errorf("XY view at zoom 1/4: level %d of shape %v", top, l.Shape)
	}
}
