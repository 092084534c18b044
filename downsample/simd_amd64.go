//go:build goexperiment.simd && amd64

package downsample

import "simd/archsimd"

// The AVX2 kernels follow the portable ones with 256-bit vectors: pair
// sums in lanes of twice the sample width, row sums, rounding shift, and a
// pack back to samples. AVX2 packs and shuffles work within 128-bit
// halves, so the halves are regrouped before packing. Each kernel consumes
// whole vector steps and returns the rest of its rows for the portable
// kernel.

func simdOK() bool { return archsimd.X86.AVX2() }

// evenOdd8 reorders each 128-bit half: even bytes first, then odd ones.
var evenOdd8 = [32]int8{
	0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15,
	0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15,
}

// pairsU8 sums adjacent bytes into 16 lanes of 16 bits.
func pairsU8(s []uint8, ones archsimd.Int8x32) archsimd.Int16x16 {
	return archsimd.LoadUint8x32Slice(s).DotProductPairsSaturated(ones)
}

// packU8 packs x (outputs 0-15) and y (outputs 16-31), 16-bit lanes that
// hold bytes, into 32 bytes in order.
func packU8(x, y archsimd.Int16x16, shuf archsimd.Int8x32) archsimd.Uint8x32 {
	xq, yq := x.AsUint64x4(), y.AsUint64x4()
	lo := xq.Select128FromPair(0, 2, yq).AsUint16x16() // outputs 0-7 | 16-23
	hi := xq.Select128FromPair(1, 3, yq).AsUint16x16() // outputs 8-15 | 24-31
	return lo.Or(hi.ShiftAllLeft(8)).AsUint8x32().PermuteOrZeroGrouped(shuf)
}

func simd2x2U8(d, a, b []uint8) (_, _, _ []uint8) {
	ones := archsimd.BroadcastInt8x32(1)
	round := archsimd.BroadcastInt16x16(2)
	shuf := archsimd.LoadInt8x32(&evenOdd8)
	for len(d) >= 32 && len(a) >= 64 && len(b) >= 64 {
		x := pairsU8(a[0:32], ones).Add(pairsU8(b[0:32], ones))
		y := pairsU8(a[32:64], ones).Add(pairsU8(b[32:64], ones))
		x = x.Add(round).ShiftAllRight(2)
		y = y.Add(round).ShiftAllRight(2)
		packU8(x, y, shuf).StoreSlice(d[0:32])
		d, a, b = d[32:], a[64:], b[64:]
	}
	return d, a, b
}

func simd2x2x2U8(d, a, b, c, e []uint8) (_, _, _, _, _ []uint8) {
	ones := archsimd.BroadcastInt8x32(1)
	round := archsimd.BroadcastInt16x16(4)
	shuf := archsimd.LoadInt8x32(&evenOdd8)
	for len(d) >= 32 && len(a) >= 64 && len(b) >= 64 && len(c) >= 64 && len(e) >= 64 {
		x := pairsU8(a[0:32], ones).Add(pairsU8(b[0:32], ones)).
			Add(pairsU8(c[0:32], ones)).Add(pairsU8(e[0:32], ones))
		y := pairsU8(a[32:64], ones).Add(pairsU8(b[32:64], ones)).
			Add(pairsU8(c[32:64], ones)).Add(pairsU8(e[32:64], ones))
		x = x.Add(round).ShiftAllRight(3)
		y = y.Add(round).ShiftAllRight(3)
		packU8(x, y, shuf).StoreSlice(d[0:32])
		d, a, b, c, e = d[32:], a[64:], b[64:], c[64:], e[64:]
	}
	return d, a, b, c, e
}

// pairsU16 sums adjacent 16-bit samples into 8 lanes of 32 bits.
func pairsU16(s []uint16, low archsimd.Uint32x8) archsimd.Uint32x8 {
	w := archsimd.LoadUint16x16Slice(s).AsUint32x8()
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

func simd2x2U16(d, a, b []uint16) (_, _, _ []uint16) {
	low := archsimd.BroadcastUint32x8(0xffff)
	round := archsimd.BroadcastUint32x8(2)
	for len(d) >= 16 && len(a) >= 32 && len(b) >= 32 {
		x := pairsU16(a[0:16], low).Add(pairsU16(b[0:16], low))
		y := pairsU16(a[16:32], low).Add(pairsU16(b[16:32], low))
		x = x.Add(round).ShiftAllRight(2)
		y = y.Add(round).ShiftAllRight(2)
		packU16(x, y).StoreSlice(d[0:16])
		d, a, b = d[16:], a[32:], b[32:]
	}
	return d, a, b
}

func simd2x2x2U16(d, a, b, c, e []uint16) (_, _, _, _, _ []uint16) {
	low := archsimd.BroadcastUint32x8(0xffff)
	round := archsimd.BroadcastUint32x8(4)
	for len(d) >= 16 && len(a) >= 32 && len(b) >= 32 && len(c) >= 32 && len(e) >= 32 {
		x := pairsU16(a[0:16], low).Add(pairsU16(b[0:16], low)).
			Add(pairsU16(c[0:16], low)).Add(pairsU16(e[0:16], low))
		y := pairsU16(a[16:32], low).Add(pairsU16(b[16:32], low)).
			Add(pairsU16(c[16:32], low)).Add(pairsU16(e[16:32], low))
		x = x.Add(round).ShiftAllRight(3)
		y = y.Add(round).ShiftAllRight(3)
		packU16(x, y).StoreSlice(d[0:16])
		d, a, b, c, e = d[16:], a[32:], b[32:], c[32:], e[32:]
	}
	return d, a, b, c, e
}
