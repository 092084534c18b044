package loader

import (
	"math"
	"testing"
)

// TestAnatomySpaces checks that the letters name anatomical directions
// whichever world frame the affine is in, and that In changes the frame
// without moving a sample.
func TestAnatomySpaces(t *testing.T) {
	lps := &Anatomy{Space: SpaceLPS, Affine: [3][4]float64{{1, 0, 0, 10}, {0, -1, 0, 20}, {0, 0, 2, 30}}}
	if got := lps.Codes(); got != "LAS" {
		t.Errorf("LPS frame, x along +L, y along -P: codes %s, want LAS", got)
	}
	ras := lps.In(SpaceRAS)
	if ras.Space != SpaceRAS || ras.Codes() != "LAS" {
		t.Errorf("in RAS: %s %s, want RAS LAS", ras.Space, ras.Codes())
	}
	a, b := lps.World(3, 4, 5), ras.World(3, 4, 5)
	if a != [3]float64{13, 16, 40} || b != [3]float64{-13, -16, 40} {
		t.Errorf("sample (3,4,5): LPS %v, RAS %v", a, b)
	}
	flat := &Anatomy{Space: SpaceRAS, Affine: [3][4]float64{{0, 1, 0, 0}, {-1, 0, 0, 0}, {0, 0, 0, 0}}}
	if got := flat.Codes(); got != "PR?" {
		t.Errorf("codes %s, want PR? for an axis the affine does not move", got)
	}
	d := math.Pi / 180
	tilt := &Anatomy{Space: SpaceRAS, Affine: [3][4]float64{{math.Cos(d), -math.Sin(d), 0, 0}, {math.Sin(d), math.Cos(d), 0, 0}, {0, 0, 1, 0}}}
	if !tilt.Oblique() || lps.Oblique() {
		t.Errorf("Oblique: 1° turn %v, axis-aligned %v", tilt.Oblique(), lps.Oblique())
	}
}
