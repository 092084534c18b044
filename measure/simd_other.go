//go:build !(goexperiment.simd && amd64)

package measure

// Without GOEXPERIMENT=simd on amd64 only the portable kernels exist.

const haveSIMD = false

func u16AVX2(v []uint16, out *simdOut) {}

func i16AVX2(v []int16, out *simdOut) {}

func u8AVX2(v []uint8, out *simdOut) {}

func i8AVX2(v []int8, out *simdOut) {}
