package measure

import (
	"math/rand/v2"
	"testing"
)

// TestExact16MatchesGo checks the 16-bit kernels (AVX2 where the machine
// has it) against the Go loop, extremes of the type included, over
// lengths that end inside and outside a block of 16 and across blocks.
func TestExact16MatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 15, 16, 17, 64, 1000, simdBlock + 37, 3*simdBlock + 5} {
		u := make([]uint16, n)
		s := make([]int16, n)
		for i := range u {
			u[i] = uint16(r.Uint32())
			s[i] = int16(r.Uint32())
		}
		u[n/2], s[n/2] = 65535, -32768
		u[n-1], s[n-1] = 0, 32767
		if n > 40000 {
			for i := range 40000 { // many extremes in a row: the 32-bit lanes' worst case
				u[i], s[i] = 65535, -32768
			}
		}
		a1, a2, a3, a4 := exact16(u, false)
		b1, b2, b3, b4 := exactContiguous(u)
		if a1 != b1 || a2 != b2 || a3 != b3 || a4 != b4 {
			t.Errorf("uint16 n=%d: %d %d %d %d, Go %d %d %d %d", n, a1, a2, a3, a4, b1, b2, b3, b4)
		}
		c1, c2, c3, c4 := exact16(s, true)
		d1, d2, d3, d4 := exactContiguous(s)
		if c1 != d1 || c2 != d2 || c3 != d3 || c4 != d4 {
			t.Errorf("int16 n=%d: %d %d %d %d, Go %d %d %d %d", n, c1, c2, c3, c4, d1, d2, d3, d4)
		}
	}
	if !haveSIMD {
		t.Log("no AVX2 here: the Go loop was compared with itself")
	}
}
