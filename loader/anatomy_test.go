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

// TestLevelAnatomy checks that a coarse level's sample lies where the
// level-0 samples it averages are centred (OME-NGFF's level geometry).
func TestLevelAnatomy(t *testing.T) {
	m := NewMeta("test", "ZYX", []int{8, 8, 8}, Uint8, []int{1, 8, 8}, []float64{2, 0.5, 0.5}, nil)
	m.Anatomy = &Anatomy{Space: SpaceRAS, Affine: [3][4]float64{{0, -0.5, 0, 10}, {0.5, 0, 0, 20}, {0, 0, 2, 30}}}
	m.Levels = append(m.Levels, Level{Shape: []int{4, 4, 4}, Chunk: []int{1, 4, 4},
		Scale: []float64{4, 1, 1}, Translation: []float64{1, 0.25, 0.25}})
	a := m.LevelAnatomy(1)
	// Level-1 sample (1, 2, 3) averages level-0 samples x 2..3, y 4..5, z 6..7.
	got, want := a.World(1, 2, 3), m.Anatomy.World(2.5, 4.5, 6.5)
	for r := range 3 {
		if math.Abs(got[r]-want[r]) > 1e-12 {
			t.Fatalf("level-1 sample (1,2,3) at %v, level-0 (2.5,4.5,6.5) at %v", got, want)
		}
	}
	if m.LevelAnatomy(2) != nil || m.LevelAnatomy(0).Affine != m.Anatomy.Affine {
		t.Error("level 0 or a missing level")
	}
}
