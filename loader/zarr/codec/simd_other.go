//go:build !(goexperiment.simd && amd64)

package codec

// Without GOEXPERIMENT=simd on amd64 only the portable unshuffles exist.

func unshuffle2SIMD(dst, src []byte, n int) int { return 0 }

func unshuffle4SIMD(dst, src []byte, n int) int { return 0 }
