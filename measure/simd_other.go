//go:build !amd64

package measure

// haveSIMD is false: the kernels are in Go only.
const haveSIMD = false

type simdOut struct {
	sum      [8]int32
	sq0, sq1 [4]uint64
	lo, hi   [16]uint16
}

func u16AVX2(p *uint16, n int, out *simdOut) { panic("no AVX2") }

func i16AVX2(p *int16, n int, out *simdOut) { panic("no AVX2") }
