package loader

import "testing"

// TestValueScale checks the map from stored to physical values and back,
// and that a missing scale leaves values as stored.
func TestValueScale(t *testing.T) {
	s := &ValueScale{Slope: 2.5, Intercept: -1024}
	if v := s.Value(1000); v != 1476 {
		t.Errorf("Value(1000) = %v, want 1476", v)
	}
	if v := s.Stored(1476); v != 1000 {
		t.Errorf("Stored(1476) = %v, want 1000", v)
	}
	var none *ValueScale
	if none.Value(7) != 7 || none.Stored(7) != 7 {
		t.Error("a nil scale changes values")
	}
}
