package loader

import "encoding/binary"

// HalfToFloat32 widens the IEEE half-precision samples in src, in byte
// order bo, to little-endian float32 samples in dst (twice src's length),
// exactly: every half value, subnormals, infinities and NaNs included, is
// a float32 value.
func HalfToFloat32(dst, src []byte, bo binary.ByteOrder) {
	for i := 0; i+1 < len(src) && 2*i+3 < len(dst); i += 2 {
		h := uint32(bo.Uint16(src[i:]))
		sign, exp, frac := h>>15, h>>10&0x1f, h&0x3ff
		var f uint32
		switch {
		case exp == 0x1f: // infinity, NaN
			f = sign<<31 | 0xff<<23 | frac<<13
		case exp != 0:
			f = sign<<31 | (exp+127-15)<<23 | frac<<13
		case frac == 0:
			f = sign << 31
		default: // subnormal: normalise
			e := uint32(127 - 15 + 1)
			for frac&0x400 == 0 {
				frac <<= 1
				e--
			}
			f = sign<<31 | e<<23 | (frac&0x3ff)<<13
		}
		binary.LittleEndian.PutUint32(dst[2*i:], f)
	}
}
