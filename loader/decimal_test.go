package loader

import (
	"math"
	"testing"
)

// TestFormatValue checks values as files give them: float32 fields, sums
// and quotients of decimal text, and exact float64 values, which keep
// every digit.
func TestFormatValue(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{float64(float32(0.7)), "0.7"}, // a float32 field (NIfTI pixdim)
		{float64(float32(2.850058e-05)), "2.850058e-05"},
		{59.995431550000006, "59.99543155"}, // (t1 - t0) / n of decimal times
		{0.1 + 0.2, "0.3"},
		{0.16780898323268245, "0.16780898323268245"}, // a float64 field kept whole
		{1.0 / 3, "0.3333333333333333"},
		{1000, "1000"},
		{0, "0"},
		{-2.5, "-2.5"},
		{math.Inf(1), "+Inf"},
	} {
		if got := FormatValue(c.v); got != c.want {
			t.Errorf("FormatValue(%v) = %s, want %s", c.v, got, c.want)
		}
	}
}

// TestDecimalRoundTrips checks that the decimal Decimal picks satisfies
// the caller's test and is the shortest that does: an integer frame rate's
// period, a rational's reciprocal.
func TestDecimalRoundTrips(t *testing.T) {
	s, x := Decimal(1.0/35087, func(x float64) bool { return math.Round(1/x) == 35087 })
	if s != "2.85006e-05" || math.Round(1/x) != 35087 {
		t.Errorf("1/35087 s: %s (%v)", s, x)
	}
	s, _ = Decimal(0.5, func(float64) bool { return false })
	if s != "0.5" {
		t.Errorf("no shorter form: %s", s)
	}
}
