package codec

import "encoding/binary"

// bitUnshuffle undoes Blosc's bit shuffle of one block (c-blosc's
// blosc_internal_bitunshuffle): when the block holds a multiple of 8
// elements the bshuf bit transpose is undone over all of them and the
// len%ts trailing bytes are copied; otherwise the block was stored
// unshuffled. tmp is scratch of len(src) bytes. dst, src and tmp do not
// overlap.
func bitUnshuffle(dst, src, tmp []byte, ts int) {
	size := len(src) / ts
	if size%8 != 0 {
		copy(dst, src)
		return
	}
	body := size * ts
	untransBitElem(dst[:body], src[:body], tmp[:body], size, ts)
	copy(dst[body:], src[body:])
}

// transBit8x8 transposes the 8x8 bit matrix packed in x (bitshuffle's
// TRANS_BIT_8X8, an involution).
func transBit8x8(x uint64) uint64 {
	t := (x ^ x>>7) & 0x00AA00AA00AA00AA
	x = x ^ t ^ t<<7
	t = (x ^ x>>14) & 0x0000CCCC0000CCCC
	x = x ^ t ^ t<<14
	t = (x ^ x>>28) & 0x00000000F0F0F0F0
	return x ^ t ^ t<<28
}

// untransBitElem is bitshuffle's bshuf_untrans_bit_elem for size elements
// of ts bytes (size a multiple of 8). in holds 8*ts bit rows of size/8
// bytes; row 8j+k has bit k of byte j of every element. Byte plane j is
// rebuilt into tmp by transposing 8x8 bit tiles, then the planes are
// interleaved into out by the byte unshuffle.
func untransBitElem(out, in, tmp []byte, size, ts int) {
	nrow := size / 8
	if ts == 1 {
		planeBits(out, in, nrow)
		return
	}
	for j := range ts {
		planeBits(tmp[j*size:(j+1)*size], in[j*size:(j+1)*size], nrow)
	}
	unshuffle(out, tmp, ts)
}

// planeBits turns the 8 bit rows of one byte plane (nrow bytes each) into
// the plane's bytes: byte 8i+m of dst gathers bit (m) of byte i of every row.
func planeBits(dst, rows []byte, nrow int) {
	s := split8(rows, nrow)
	i := 0
	for ; i+8 <= nrow; i += 8 {
		// After the byte transpose, rm gathers byte i+m of the 8 rows.
		r0, r1, r2, r3, r4, r5, r6, r7 := transpose8(load8(s, i))
		d := dst[8*i : 8*i+64]
		binary.LittleEndian.PutUint64(d[0:8], transBit8x8(r0))
		binary.LittleEndian.PutUint64(d[8:16], transBit8x8(r1))
		binary.LittleEndian.PutUint64(d[16:24], transBit8x8(r2))
		binary.LittleEndian.PutUint64(d[24:32], transBit8x8(r3))
		binary.LittleEndian.PutUint64(d[32:40], transBit8x8(r4))
		binary.LittleEndian.PutUint64(d[40:48], transBit8x8(r5))
		binary.LittleEndian.PutUint64(d[48:56], transBit8x8(r6))
		binary.LittleEndian.PutUint64(d[56:64], transBit8x8(r7))
	}
	for ; i < nrow; i++ {
		var x uint64
		for k := range s {
			x |= uint64(s[k][i]) << (8 * k)
		}
		binary.LittleEndian.PutUint64(dst[8*i:8*i+8], transBit8x8(x))
	}
}
