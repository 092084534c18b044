package measure

import (
	"math/rand/v2"
	"testing"
)

// checkSIMD compares exactSIMD with the Go loop on v.
func checkSIMD[T small](t *testing.T, name string, v []T) {
	t.Helper()
	a1, a2, a3, a4 := exactSIMD(v)
	b1, b2, b3, b4 := exactContiguous(v)
	if a1 != b1 || a2 != b2 || a3 != b3 || a4 != b4 {
		t.Errorf("%s n=%d: %d %d %v %v, Go %d %d %v %v", name, len(v), a1, a2, a3, a4, b1, b2, b3, b4)
	}
}

// TestExactSIMDMatchesGo checks the kernels of samples of 16 bits or
// fewer (AVX2 where the build and the machine have it) against the Go
// loop, extremes of each type included, over lengths that end inside and
// outside a step of 16 and across blocks.
func TestExactSIMDMatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 15, 16, 17, 64, 1000, simdBlock + 37, 3*simdBlock + 5} {
		u := make([]uint16, n)
		s := make([]int16, n)
		u8 := make([]uint8, n)
		s8 := make([]int8, n)
		for i := range u {
			x := r.Uint32()
			u[i], s[i], u8[i], s8[i] = uint16(x), int16(x>>8), uint8(x>>3), int8(x>>13)
		}
		u[n/2], s[n/2], u8[n/2], s8[n/2] = 65535, -32768, 255, -128
		u[n-1], s[n-1], u8[n-1], s8[n-1] = 0, 32767, 0, 127
		if n > 40000 {
			for i := range 40000 { // many extremes in a row: the 32-bit lanes' worst case
				u[i], s[i], u8[i], s8[i] = 65535, -32768, 255, -128
			}
		}
		checkSIMD(t, "uint16", u)
		checkSIMD(t, "int16", s)
		checkSIMD(t, "uint8", u8)
		checkSIMD(t, "int8", s8)
	}
	if !haveSIMD {
		t.Log("no AVX2 kernels in this build: the Go loop was compared with itself")
	}
}
