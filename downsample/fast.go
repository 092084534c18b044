package downsample

import "unsafe"

// The 8- and 16-bit means have vector kernels for 2x2 and 2x2x2 blocks.
// They work on unsigned samples; signed ones are flipped to unsigned
// (x ^ 0x80 is x + 128) on the way in and back on the way out, which is
// exact because adding a whole offset to every sample commutes with
// floor(mean + 1/2).

const (
	flip8  = 0x8080808080808080
	flip16 = 0x8000800080008000
)

func mean8[T uint8 | int8](p *plan, dst, src []T) {
	var it rowIter
	it.init(p)
	var rows [maxRows][]T
	for it.next() {
		rs := gather(&it, src, &rows)
		d := dst[it.dst : it.dst+it.outN]
		switch {
		case it.horiz && len(rs) == 2:
			i := mean2x2U8[T](u8(d), u8(rs[0]), u8(rs[1]))
			meanH2(d[i:], rs[0][2*i:], rs[1][2*i:])
		case it.horiz && len(rs) == 4:
			i := mean2x2x2U8[T](u8(d), u8(rs[0]), u8(rs[1]), u8(rs[2]), u8(rs[3]))
			meanH4(d[i:], rs[0][2*i:], rs[1][2*i:], rs[2][2*i:], rs[3][2*i:])
		default:
			meanIntRow(d, rs, it.horiz)
		}
	}
}

func mean16[T uint16 | int16](p *plan, dst, src []T) {
	var it rowIter
	it.init(p)
	var rows [maxRows][]T
	for it.next() {
		rs := gather(&it, src, &rows)
		d := dst[it.dst : it.dst+it.outN]
		switch {
		case hostLE && it.horiz && len(rs) == 2:
			i := mean2x2U16[T](u16(d), u16(rs[0]), u16(rs[1]))
			meanH2(d[i:], rs[0][2*i:], rs[1][2*i:])
		case hostLE && it.horiz && len(rs) == 4:
			i := mean2x2x2U16[T](u16(d), u16(rs[0]), u16(rs[1]), u16(rs[2]), u16(rs[3]))
			meanH4(d[i:], rs[0][2*i:], rs[1][2*i:], rs[2][2*i:], rs[3][2*i:])
		default:
			meanIntRow(d, rs, it.horiz)
		}
	}
}

func u8[T uint8 | int8](s []T) []uint8 {
	return unsafe.Slice((*uint8)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

func u16[T uint16 | int16](s []T) []uint16 {
	return unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// useSIMD selects the archsimd kernels where they are built and the CPU
// has them; tests turn it off to check the portable kernels too.
var useSIMD = simdOK()

// The kernels below write as many whole vector steps as the rows allow and
// return the number of output samples written.

func mean2x2U8[T uint8 | int8](d, a, b []uint8) int {
	i := 0
	if useSIMD {
		i = simd2x2U8(d, a, b, signFlip[T](flip8))
	}
	return i + swar2x2U8[T](d[i:], a[2*i:], b[2*i:])
}

func mean2x2x2U8[T uint8 | int8](d, a, b, c, e []uint8) int {
	i := 0
	if useSIMD {
		i = simd2x2x2U8(d, a, b, c, e, signFlip[T](flip8))
	}
	return i + swar2x2x2U8[T](d[i:], a[2*i:], b[2*i:], c[2*i:], e[2*i:])
}

func mean2x2U16[T uint16 | int16](d, a, b []uint16) int {
	i := 0
	if useSIMD {
		i = simd2x2U16(d, a, b, signFlip[T](flip16))
	}
	return i + swar2x2U16[T](d[i:], a[2*i:], b[2*i:])
}

func mean2x2x2U16[T uint16 | int16](d, a, b, c, e []uint16) int {
	i := 0
	if useSIMD {
		i = simd2x2x2U16(d, a, b, c, e, signFlip[T](flip16))
	}
	return i + swar2x2x2U16[T](d[i:], a[2*i:], b[2*i:], c[2*i:], e[2*i:])
}
