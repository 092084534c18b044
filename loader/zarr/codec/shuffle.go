package codec

import "encoding/binary"

// unshuffle undoes Blosc's byte shuffle of one block: src holds typesize
// streams of n = len(src)/ts bytes (byte j of every element, in order),
// followed by len(src)%ts bytes that were not shuffled. dst and src have the
// same length and do not overlap.
func unshuffle(dst, src []byte, ts int) {
	n := len(src) / ts
	body := n * ts
	switch ts {
	case 1:
		copy(dst[:body], src[:body])
	case 2:
		unshuffle2(dst[:body], src[:body], n)
	case 4:
		unshuffle4(dst[:body], src[:body], n)
	case 8:
		unshuffle8(dst[:body], src[:body], n)
	default:
		unshuffleAny(dst[:body], src[:body], n, ts)
	}
	copy(dst[body:], src[body:])
}

// spread8 places the four bytes of v at bytes 0, 2, 4 and 6.
func spread8(v uint32) uint64 {
	x := uint64(v)
	x = (x | x<<16) & 0x0000FFFF0000FFFF
	return (x | x<<8) & 0x00FF00FF00FF00FF
}

// spread16 places the two 16-bit halves of v at bytes 0 and 4.
func spread16(v uint32) uint64 {
	x := uint64(v)
	return (x | x<<16) & 0x0000FFFF0000FFFF
}

// zip4 interleaves the bytes of x and y: x0 y0 x1 y1 x2 y2 x3 y3.
func zip4(x, y uint32) uint64 {
	z := uint64(x) | uint64(y)<<32
	t := (z ^ z>>16) & 0x00000000FFFF0000
	z ^= t ^ t<<16
	t = (z ^ z>>8) & 0x0000FF000000FF00
	return z ^ t ^ t<<8
}

func unshuffle2(dst, src []byte, n int) {
	a, b := src[:n], src[n:2*n]
	i := unshuffle2SIMD(dst, src, n)
	for ; i+16 <= n; i += 16 {
		aa, bb, d := a[i:i+16], b[i:i+16], dst[2*i:2*i+32]
		x0 := binary.LittleEndian.Uint64(aa[0:8])
		y0 := binary.LittleEndian.Uint64(bb[0:8])
		x1 := binary.LittleEndian.Uint64(aa[8:16])
		y1 := binary.LittleEndian.Uint64(bb[8:16])
		binary.LittleEndian.PutUint64(d[0:8], zip4(uint32(x0), uint32(y0)))
		binary.LittleEndian.PutUint64(d[8:16], zip4(uint32(x0>>32), uint32(y0>>32)))
		binary.LittleEndian.PutUint64(d[16:24], zip4(uint32(x1), uint32(y1)))
		binary.LittleEndian.PutUint64(d[24:32], zip4(uint32(x1>>32), uint32(y1>>32)))
	}
	for ; i < n; i++ {
		dst[2*i], dst[2*i+1] = a[i], b[i]
	}
}

func unshuffle4(dst, src []byte, n int) {
	a, b, c, e := src[:n], src[n:2*n], src[2*n:3*n], src[3*n:4*n]
	i := unshuffle4SIMD(dst, src, n)
	for ; i+8 <= n; i += 8 {
		xa := binary.LittleEndian.Uint64(a[i : i+8])
		xb := binary.LittleEndian.Uint64(b[i : i+8])
		xc := binary.LittleEndian.Uint64(c[i : i+8])
		xe := binary.LittleEndian.Uint64(e[i : i+8])
		// ab and ce hold 16-bit pairs (byte 0|1 and byte 2|3) of 4 elements.
		ab0 := spread8(uint32(xa)) | spread8(uint32(xb))<<8
		ab1 := spread8(uint32(xa>>32)) | spread8(uint32(xb>>32))<<8
		ce0 := spread8(uint32(xc)) | spread8(uint32(xe))<<8
		ce1 := spread8(uint32(xc>>32)) | spread8(uint32(xe>>32))<<8
		d := dst[4*i : 4*i+32]
		binary.LittleEndian.PutUint64(d[0:8], spread16(uint32(ab0))|spread16(uint32(ce0))<<16)
		binary.LittleEndian.PutUint64(d[8:16], spread16(uint32(ab0>>32))|spread16(uint32(ce0>>32))<<16)
		binary.LittleEndian.PutUint64(d[16:24], spread16(uint32(ab1))|spread16(uint32(ce1))<<16)
		binary.LittleEndian.PutUint64(d[24:32], spread16(uint32(ab1>>32))|spread16(uint32(ce1>>32))<<16)
	}
	for ; i < n; i++ {
		dst[4*i], dst[4*i+1], dst[4*i+2], dst[4*i+3] = a[i], b[i], c[i], e[i]
	}
}

// transpose8 transposes the 8x8 byte matrix whose row k is rk (byte m of
// rk is column m): byte k of the m-th result is byte m of rk. Eight values
// in and out travel in registers.
func transpose8(r0, r1, r2, r3, r4, r5, r6, r7 uint64) (uint64, uint64, uint64, uint64, uint64, uint64, uint64, uint64) {
	const m32, m16, m8 = 0x00000000FFFFFFFF, 0x0000FFFF0000FFFF, 0x00FF00FF00FF00FF
	t := (r0>>32 ^ r4) & m32
	r0, r4 = r0^t<<32, r4^t
	t = (r1>>32 ^ r5) & m32
	r1, r5 = r1^t<<32, r5^t
	t = (r2>>32 ^ r6) & m32
	r2, r6 = r2^t<<32, r6^t
	t = (r3>>32 ^ r7) & m32
	r3, r7 = r3^t<<32, r7^t
	t = (r0>>16 ^ r2) & m16
	r0, r2 = r0^t<<16, r2^t
	t = (r1>>16 ^ r3) & m16
	r1, r3 = r1^t<<16, r3^t
	t = (r4>>16 ^ r6) & m16
	r4, r6 = r4^t<<16, r6^t
	t = (r5>>16 ^ r7) & m16
	r5, r7 = r5^t<<16, r7^t
	t = (r0>>8 ^ r1) & m8
	r0, r1 = r0^t<<8, r1^t
	t = (r2>>8 ^ r3) & m8
	r2, r3 = r2^t<<8, r3^t
	t = (r4>>8 ^ r5) & m8
	r4, r5 = r4^t<<8, r5^t
	t = (r6>>8 ^ r7) & m8
	r6, r7 = r6^t<<8, r7^t
	return r0, r1, r2, r3, r4, r5, r6, r7
}

// load8 reads the 8 bytes at i of each of eight equal-length streams.
func load8(s *[8][]byte, i int) (uint64, uint64, uint64, uint64, uint64, uint64, uint64, uint64) {
	return binary.LittleEndian.Uint64(s[0][i : i+8]), binary.LittleEndian.Uint64(s[1][i : i+8]),
		binary.LittleEndian.Uint64(s[2][i : i+8]), binary.LittleEndian.Uint64(s[3][i : i+8]),
		binary.LittleEndian.Uint64(s[4][i : i+8]), binary.LittleEndian.Uint64(s[5][i : i+8]),
		binary.LittleEndian.Uint64(s[6][i : i+8]), binary.LittleEndian.Uint64(s[7][i : i+8])
}

// split8 cuts eight streams of n bytes from the start of src.
func split8(src []byte, n int) *[8][]byte {
	return &[8][]byte{src[:n], src[n : 2*n], src[2*n : 3*n], src[3*n : 4*n],
		src[4*n : 5*n], src[5*n : 6*n], src[6*n : 7*n], src[7*n : 8*n]}
}

func unshuffle8(dst, src []byte, n int) {
	s := split8(src, n)
	i := 0
	for ; i+8 <= n; i += 8 {
		r0, r1, r2, r3, r4, r5, r6, r7 := transpose8(load8(s, i))
		d := dst[8*i : 8*i+64]
		binary.LittleEndian.PutUint64(d[0:8], r0)
		binary.LittleEndian.PutUint64(d[8:16], r1)
		binary.LittleEndian.PutUint64(d[16:24], r2)
		binary.LittleEndian.PutUint64(d[24:32], r3)
		binary.LittleEndian.PutUint64(d[32:40], r4)
		binary.LittleEndian.PutUint64(d[40:48], r5)
		binary.LittleEndian.PutUint64(d[48:56], r6)
		binary.LittleEndian.PutUint64(d[56:64], r7)
	}
	for ; i < n; i++ {
		d := dst[8*i : 8*i+8]
		for k := range d {
			d[k] = s[k][i]
		}
	}
}

// unshuffleAny handles any typesize: stream j holds byte j of every element.
func unshuffleAny(dst, src []byte, n, ts int) {
	for j := range ts {
		s := src[j*n : j*n+n]
		for i, v := range s {
			dst[i*ts+j] = v
		}
	}
}
