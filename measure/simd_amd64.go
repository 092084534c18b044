package measure

import "golang.org/x/sys/cpu"

// haveSIMD says the AVX2 kernels for 16-bit samples can run.
var haveSIMD = cpu.X86.HasAVX2

// simdOut is what the AVX2 kernels leave: eight lanes of sums (of the
// samples biased to int16), two of four lanes of sums of squares, and
// sixteen lanes of extremes.
type simdOut struct {
	sum      [8]int32
	sq0, sq1 [4]uint64
	lo, hi   [16]uint16
}

//go:noescape
func u16AVX2(p *uint16, n int, out *simdOut)

//go:noescape
func i16AVX2(p *int16, n int, out *simdOut)
