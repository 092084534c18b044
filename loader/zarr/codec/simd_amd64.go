//go:build goexperiment.simd && amd64

package codec

import "simd/archsimd"

// With GOEXPERIMENT=simd on a CPU with AVX2 the byte unshuffles of 2- and
// 4-byte elements widen each stream's bytes into 16- or 32-bit lanes, shift
// them into place and merge them: 32 output bytes per step. They return the
// number of elements done; the portable code does the rest.

var haveAVX2 = archsimd.X86.AVX2()

func unshuffle2SIMD(dst, src []byte, n int) int {
	if !haveAVX2 {
		return 0
	}
	a, b := src[:n], src[n:2*n]
	i := 0
	for ; i+16 <= n; i += 16 {
		x := archsimd.LoadUint8x16Slice(a[i : i+16]).ExtendToUint16()
		y := archsimd.LoadUint8x16Slice(b[i : i+16]).ExtendToUint16().ShiftAllLeft(8)
		x.Or(y).AsUint8x32().StoreSlice(dst[2*i : 2*i+32])
	}
	return i
}

func unshuffle4SIMD(dst, src []byte, n int) int {
	if !haveAVX2 {
		return 0
	}
	a, b, c, e := src[:n], src[n:2*n], src[2*n:3*n], src[3*n:4*n]
	i := 0
	// Each load reads 16 bytes and widens the first 8.
	for ; i+16 <= n; i += 8 {
		x := archsimd.LoadUint8x16Slice(a[i : i+16]).ExtendLo8ToUint32()
		y := archsimd.LoadUint8x16Slice(b[i : i+16]).ExtendLo8ToUint32().ShiftAllLeft(8)
		z := archsimd.LoadUint8x16Slice(c[i : i+16]).ExtendLo8ToUint32().ShiftAllLeft(16)
		w := archsimd.LoadUint8x16Slice(e[i : i+16]).ExtendLo8ToUint32().ShiftAllLeft(24)
		x.Or(y).Or(z.Or(w)).AsUint8x32().StoreSlice(dst[4*i : 4*i+32])
	}
	return i
}
