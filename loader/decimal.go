package loader

import (
	"math"
	"strconv"
)

// Decimal returns the shortest decimal (in significant digits) whose value
// x satisfies same(x), and x: the form of v at the precision the file gave
// it, where same tells whether a value stands for the same stored one (the
// same float32, the same rational, the same integer rate). When no shorter
// decimal does, it returns v's own shortest form and v.
func Decimal(v float64, same func(x float64) bool) (string, float64) {
	if v != 0 && !math.IsNaN(v) && !math.IsInf(v, 0) {
		for p := 1; p < 17; p++ {
			x, err := strconv.ParseFloat(strconv.FormatFloat(v, 'e', p-1, 64), 64)
			if err == nil && same(x) {
				return strconv.FormatFloat(x, 'g', -1, 64), x
			}
		}
	}
	return strconv.FormatFloat(v, 'g', -1, 64), v
}

// FormatValue prints a value read from a file (a spacing, a display
// window) without float noise: a value that is a float32 as its float32
// shortest form; any other as the shortest decimal of at most 15 digits
// within 4 units in the last place of float64, the error that a few
// operations on the stored numbers leave (59.99543155, not
// 59.995431550000006), else whole (a float64 field's 17 digits).
func FormatValue(v float64) string {
	if f := float32(v); float64(f) == v {
		s, _ := Decimal(v, func(x float64) bool { return float32(x) == f })
		return s
	}
	ulp := math.Abs(math.Nextafter(v, math.Inf(1)) - v)
	near := func(x float64) bool { return math.Abs(x-v) <= 4*ulp }
	if x, err := strconv.ParseFloat(strconv.FormatFloat(v, 'e', 14, 64), 64); err != nil || !near(x) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	s, _ := Decimal(v, near)
	return s
}
