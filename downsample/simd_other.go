//go:build !(goexperiment.simd && amd64)

package downsample

// Without GOEXPERIMENT=simd on amd64 only the portable kernels exist.

func simdOK() bool { return false }

func simd2x2U8(d, a, b []uint8, flip uint64) int { return 0 }

func simd2x2x2U8(d, a, b, c, e []uint8, flip uint64) int { return 0 }

func simd2x2U16(d, a, b []uint16, flip uint64) int { return 0 }

func simd2x2x2U16(d, a, b, c, e []uint16, flip uint64) int { return 0 }

func simdMaxU8(a, p []uint8) int { return 0 }

func simdMinU8(a, p []uint8) int { return 0 }

func simdMaxU16(a, p []uint16) int { return 0 }

func simdMinU16(a, p []uint16) int { return 0 }
