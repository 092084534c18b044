//go:build goexperiment.simd && amd64

package downsample

import "simd/archsimd"

// The AVX2 kernels follow the portable ones with 256-bit vectors: pair
// sums in lanes of twice the sample width, row sums, rounding shift, and a
// pack back to samples. AVX2 packs and shuffles work within 128-bit
// halves, so the halves are regrouped before packing. Each kernel consumes
// whole vector steps, leaving the rest of its rows to the portable kernel,
// and returns the number of output samples written.

func simdOK() bool { return archsimd.X86.AVX2() }

// evenOdd8 reorders each 128-bit half: even bytes first, then odd ones.
var evenOdd8 = [32]int8{
	0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15,
	0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15,
}

// pairsU8 sums adjacent bytes, after an exclusive or with flip, into 16
// lanes of 16 bits.
func pairsU8(s []uint8, flip archsimd.Uint8x32, ones archsimd.Int8x32) archsimd.Int16x16 {
	return archsimd.LoadUint8x32Slice(s).Xor(flip).DotProductPairsSaturated(ones)
}

// packU8 packs x (outputs 0-15) and y (outputs 16-31), 16-bit lanes that
// hold bytes, into 32 bytes in order.
func packU8(x, y archsimd.Int16x16, shuf archsimd.Int8x32) archsimd.Uint8x32 {
	xq, yq := x.AsUint64x4(), y.AsUint64x4()
	lo := xq.Select128FromPair(0, 2, yq).AsUint16x16() // outputs 0-7 | 16-23
	hi := xq.Select128FromPair(1, 3, yq).AsUint16x16() // outputs 8-15 | 24-31
	return lo.Or(hi.ShiftAllLeft(8)).AsUint8x32().PermuteOrZeroGrouped(shuf)
}

func simd2x2U8(d, a, b []uint8, flip8 uint64) int {
	flip := archsimd.BroadcastUint8x32(uint8(flip8))
	ones := archsimd.BroadcastInt8x32(1)
	round := archsimd.BroadcastInt16x16(2)
	shuf := archsimd.LoadInt8x32(&evenOdd8)
	n := min(len(d)/32, len(a)/64, len(b)/64) * 32
	for i := 0; i < n; i += 32 {
		j := 2 * i
		x := pairsU8(a[j:j+32], flip, ones).Add(pairsU8(b[j:j+32], flip, ones))
		y := pairsU8(a[j+32:j+64], flip, ones).Add(pairsU8(b[j+32:j+64], flip, ones))
		x = x.Add(round).ShiftAllRight(2)
		y = y.Add(round).ShiftAllRight(2)
		packU8(x, y, shuf).Xor(flip).StoreSlice(d[i : i+32])
	}
	return n
}

func simd2x2x2U8(d, a, b, c, e []uint8, flip8 uint64) int {
	flip := archsimd.BroadcastUint8x32(uint8(flip8))
	ones := archsimd.BroadcastInt8x32(1)
	round := archsimd.BroadcastInt16x16(4)
	shuf := archsimd.LoadInt8x32(&evenOdd8)
	n := min(len(d)/32, len(a)/64, len(b)/64, len(c)/64, len(e)/64) * 32
	for i := 0; i < n; i += 32 {
		j := 2 * i
		x := pairsU8(a[j:j+32], flip, ones).Add(pairsU8(b[j:j+32], flip, ones)).
			Add(pairsU8(c[j:j+32], flip, ones)).Add(pairsU8(e[j:j+32], flip, ones))
		y := pairsU8(a[j+32:j+64], flip, ones).Add(pairsU8(b[j+32:j+64], flip, ones)).
			Add(pairsU8(c[j+32:j+64], flip, ones)).Add(pairsU8(e[j+32:j+64], flip, ones))
		x = x.Add(round).ShiftAllRight(3)
		y = y.Add(round).ShiftAllRight(3)
		packU8(x, y, shuf).Xor(flip).StoreSlice(d[i : i+32])
	}
	return n
}

// pairsU16 sums adjacent 16-bit samples, after an exclusive or with flip,
// into 8 lanes of 32 bits.
func pairsU16(s []uint16, flip archsimd.Uint16x16, low archsimd.Uint32x8) archsimd.Uint32x8 {
	w := archsimd.LoadUint16x16Slice(s).Xor(flip).AsUint32x8()
	return w.And(low).Add(w.ShiftAllRight(16))
}

// packU16 packs x (outputs 0-7) and y (outputs 8-15), 32-bit lanes that
// hold 16-bit values, into 16 samples in order.
func packU16(x, y archsimd.Uint32x8) archsimd.Uint16x16 {
	xq, yq := x.AsUint64x4(), y.AsUint64x4()
	lo := xq.Select128FromPair(0, 2, yq).AsInt32x8() // outputs 0-3 | 8-11
	hi := xq.Select128FromPair(1, 3, yq).AsInt32x8() // outputs 4-7 | 12-15
	return lo.SaturateToUint16ConcatGrouped(hi)
}

func simd2x2U16(d, a, b []uint16, flip16 uint64) int {
	flip := archsimd.BroadcastUint16x16(uint16(flip16))
	low := archsimd.BroadcastUint32x8(0xffff)
	round := archsimd.BroadcastUint32x8(2)
	n := min(len(d)/16, len(a)/32, len(b)/32) * 16
	for i := 0; i < n; i += 16 {
		j := 2 * i
		x := pairsU16(a[j:j+16], flip, low).Add(pairsU16(b[j:j+16], flip, low))
		y := pairsU16(a[j+16:j+32], flip, low).Add(pairsU16(b[j+16:j+32], flip, low))
		x = x.Add(round).ShiftAllRight(2)
		y = y.Add(round).ShiftAllRight(2)
		packU16(x, y).Xor(flip).StoreSlice(d[i : i+16])
	}
	return n
}

func simd2x2x2U16(d, a, b, c, e []uint16, flip16 uint64) int {
	flip := archsimd.BroadcastUint16x16(uint16(flip16))
	low := archsimd.BroadcastUint32x8(0xffff)
	round := archsimd.BroadcastUint32x8(4)
	n := min(len(d)/16, len(a)/32, len(b)/32, len(c)/32, len(e)/32) * 16
	for i := 0; i < n; i += 16 {
		j := 2 * i
		x := pairsU16(a[j:j+16], flip, low).Add(pairsU16(b[j:j+16], flip, low)).
			Add(pairsU16(c[j:j+16], flip, low)).Add(pairsU16(e[j:j+16], flip, low))
		y := pairsU16(a[j+16:j+32], flip, low).Add(pairsU16(b[j+16:j+32], flip, low)).
			Add(pairsU16(c[j+16:j+32], flip, low)).Add(pairsU16(e[j+16:j+32], flip, low))
		x = x.Add(round).ShiftAllRight(3)
		y = y.Add(round).ShiftAllRight(3)
		packU16(x, y).Xor(flip).StoreSlice(d[i : i+16])
	}
	return n
}

// The projection kernels fold whole vectors of p into a by max or min and
// return how many samples they did; the portable loop does the rest.

func simdMaxU8(a, p []uint8) int {
	n := min(len(a), len(p)) / 32 * 32
	for i := 0; i < n; i += 32 {
		archsimd.LoadUint8x32Slice(a[i : i+32]).Max(archsimd.LoadUint8x32Slice(p[i : i+32])).StoreSlice(a[i : i+32])
	}
	return n
}

func simdMinU8(a, p []uint8) int {
	n := min(len(a), len(p)) / 32 * 32
	for i := 0; i < n; i += 32 {
		archsimd.LoadUint8x32Slice(a[i : i+32]).Min(archsimd.LoadUint8x32Slice(p[i : i+32])).StoreSlice(a[i : i+32])
	}
	return n
}

func simdMaxU16(a, p []uint16) int {
	n := min(len(a), len(p)) / 16 * 16
	for i := 0; i < n; i += 16 {
		archsimd.LoadUint16x16Slice(a[i : i+16]).Max(archsimd.LoadUint16x16Slice(p[i : i+16])).StoreSlice(a[i : i+16])
	}
	return n
}

func simdMinU16(a, p []uint16) int {
	n := min(len(a), len(p)) / 16 * 16
	for i := 0; i < n; i += 16 {
		archsimd.LoadUint16x16Slice(a[i : i+16]).Min(archsimd.LoadUint16x16Slice(p[i : i+16])).StoreSlice(a[i : i+16])
	}
	return n
}
