//go:build goexperiment.simd && amd64

package measure

import "simd/archsimd"

// The AVX2 kernels of 16-bit samples: sixteen samples a step, their
// extremes by lane, their sums and sums of squares by VPMADDWD (pairs of
// int16 products added into int32 lanes; uint16 samples biased by −32768
// first), the squares widened to 64-bit lanes every step.

// haveSIMD says the AVX2 kernels can run.
var haveSIMD = archsimd.X86.AVX2()

// u16AVX2 leaves in out the lanes of the figures of v (whole steps of 16
// samples only; at most simdBlock samples).
func u16AVX2(v []uint16, out *simdOut) {
	bias := archsimd.BroadcastUint16x16(0x8000)
	ones := archsimd.BroadcastInt16x16(1)
	low := archsimd.BroadcastUint64x4(0xFFFFFFFF)
	var sum archsimd.Int32x8
	var sq0, sq1 archsimd.Uint64x4
	lo, hi := archsimd.BroadcastUint16x16(0xFFFF), archsimd.BroadcastUint16x16(0)
	for i := 0; i+16 <= len(v); i += 16 {
		x := archsimd.LoadUint16x16Slice(v[i : i+16])
		lo, hi = lo.Min(x), hi.Max(x)
		y := x.Xor(bias).AsInt16x16()
		sum = sum.Add(y.DotProductPairs(ones))
		q := y.DotProductPairs(y).AsUint64x4()
		sq0, sq1 = sq0.Add(q.And(low)), sq1.Add(q.ShiftAllRight(32))
	}
	sum.StoreSlice(out.sum[:])
	sq0.StoreSlice(out.sq0[:])
	sq1.StoreSlice(out.sq1[:])
	lo.StoreSlice(out.lo[:])
	hi.StoreSlice(out.hi[:])
}

// i16AVX2 is u16AVX2 for int16 samples, unbiased; out's extremes hold
// int16 bits.
func i16AVX2(v []int16, out *simdOut) {
	ones := archsimd.BroadcastInt16x16(1)
	low := archsimd.BroadcastUint64x4(0xFFFFFFFF)
	var sum archsimd.Int32x8
	var sq0, sq1 archsimd.Uint64x4
	lo, hi := archsimd.BroadcastInt16x16(32767), archsimd.BroadcastInt16x16(-32768)
	for i := 0; i+16 <= len(v); i += 16 {
		x := archsimd.LoadInt16x16Slice(v[i : i+16])
		lo, hi = lo.Min(x), hi.Max(x)
		sum = sum.Add(x.DotProductPairs(ones))
		q := x.DotProductPairs(x).AsUint64x4()
		sq0, sq1 = sq0.Add(q.And(low)), sq1.Add(q.ShiftAllRight(32))
	}
	sum.StoreSlice(out.sum[:])
	sq0.StoreSlice(out.sq0[:])
	sq1.StoreSlice(out.sq1[:])
	lo.AsUint16x16().StoreSlice(out.lo[:])
	hi.AsUint16x16().StoreSlice(out.hi[:])
}

// u8AVX2 is i16AVX2 for uint8 samples, widened to int16 sixteen at a time.
func u8AVX2(v []uint8, out *simdOut) {
	ones := archsimd.BroadcastInt16x16(1)
	low := archsimd.BroadcastUint64x4(0xFFFFFFFF)
	var sum archsimd.Int32x8
	var sq0, sq1 archsimd.Uint64x4
	lo, hi := archsimd.BroadcastInt16x16(32767), archsimd.BroadcastInt16x16(-32768)
	for i := 0; i+16 <= len(v); i += 16 {
		x := archsimd.LoadUint8x16Slice(v[i : i+16]).ExtendToUint16().AsInt16x16()
		lo, hi = lo.Min(x), hi.Max(x)
		sum = sum.Add(x.DotProductPairs(ones))
		q := x.DotProductPairs(x).AsUint64x4()
		sq0, sq1 = sq0.Add(q.And(low)), sq1.Add(q.ShiftAllRight(32))
	}
	sum.StoreSlice(out.sum[:])
	sq0.StoreSlice(out.sq0[:])
	sq1.StoreSlice(out.sq1[:])
	lo.AsUint16x16().StoreSlice(out.lo[:])
	hi.AsUint16x16().StoreSlice(out.hi[:])
}

// i8AVX2 is u8AVX2 for int8 samples.
func i8AVX2(v []int8, out *simdOut) {
	ones := archsimd.BroadcastInt16x16(1)
	low := archsimd.BroadcastUint64x4(0xFFFFFFFF)
	var sum archsimd.Int32x8
	var sq0, sq1 archsimd.Uint64x4
	lo, hi := archsimd.BroadcastInt16x16(32767), archsimd.BroadcastInt16x16(-32768)
	for i := 0; i+16 <= len(v); i += 16 {
		x := archsimd.LoadInt8x16Slice(v[i : i+16]).ExtendToInt16()
		lo, hi = lo.Min(x), hi.Max(x)
		sum = sum.Add(x.DotProductPairs(ones))
		q := x.DotProductPairs(x).AsUint64x4()
		sq0, sq1 = sq0.Add(q.And(low)), sq1.Add(q.ShiftAllRight(32))
	}
	sum.StoreSlice(out.sum[:])
	sq0.StoreSlice(out.sq0[:])
	sq1.StoreSlice(out.sq1[:])
	lo.AsUint16x16().StoreSlice(out.lo[:])
	hi.AsUint16x16().StoreSlice(out.hi[:])
}
