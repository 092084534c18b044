package downsample

import "encoding/binary"

// The portable kernels work on 64-bit words ("SIMD within a register"):
// adjacent samples are summed into lanes twice their width, the lanes of
// the rows are added, rounded and shifted, and the lanes packed back into
// samples. Lanes never carry into each other: 8 samples of 8 bits sum to
// at most 2040 < 2^16, 8 of 16 bits to at most 524280 < 2^32.

const (
	lanes8  = 0x00ff00ff00ff00ff // low byte of each 16-bit lane
	lanes16 = 0x0000ffff0000ffff // low half of each 32-bit lane
	ones16  = 0x0001000100010001
	ones32  = 0x0000000100000001
)

func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

// pairs8 sums adjacent bytes of w into four 16-bit lanes.
func pairs8(w uint64) uint64 { return w&lanes8 + w>>8&lanes8 }

// pack8 packs four 16-bit lanes holding bytes into the low 32 bits.
func pack8(r uint64) uint64 {
	r = (r | r>>8) & lanes16
	return (r | r>>16) & 0xffffffff
}

// pairs16 sums adjacent 16-bit samples of w into two 32-bit lanes.
func pairs16(w uint64) uint64 { return w&lanes16 + w>>16&lanes16 }

// pack16 packs two 32-bit lanes holding 16-bit values into the low 32 bits.
func pack16(r uint64) uint64 { return (r | r>>16) & 0xffffffff }

// Each kernel reads its rows as unsigned samples (signed ones flipped, see
// fast.go), writes whole words, and returns the number of output samples
// written.

// signFlip returns flip for a signed T and 0 for an unsigned one; it
// folds to a constant in each instantiation.
func signFlip[T integer](flip uint64) uint64 {
	if T(0)-1 < 0 {
		return flip
	}
	return 0
}

func swar2x2U8[T uint8 | int8](d, a, b []uint8) int {
	flip := signFlip[T](flip8)
	n := min(len(d)/8, len(a)/16, len(b)/16)
	d, a = d[:8*n], a[:16*n]
	for i, j := 0, 0; j+16 <= len(a) && i+8 <= len(d); i, j = i+8, j+16 {
		pb := (*[16]byte)(b[j:])
		s0 := pairs8(le64(a[j:j+8])^flip) + pairs8(le64(pb[0:8])^flip)
		s1 := pairs8(le64(a[j+8:j+16])^flip) + pairs8(le64(pb[8:16])^flip)
		r0 := (s0 + 2*ones16) >> 2 & lanes8
		r1 := (s1 + 2*ones16) >> 2 & lanes8
		binary.LittleEndian.PutUint64(d[i:i+8], (pack8(r0)|pack8(r1)<<32)^flip)
	}
	return 8 * n
}

func swar2x2x2U8[T uint8 | int8](d, a, b, c, e []uint8) int {
	flip := signFlip[T](flip8)
	n := min(len(d)/8, len(a)/16, len(b)/16, len(c)/16, len(e)/16)
	d, a = d[:8*n], a[:16*n]
	b, c, e = b[:len(a)], c[:len(a)], e[:len(a)]
	for i, j := 0, 0; j+16 <= len(a) && i+8 <= len(d); i, j = i+8, j+16 {
		s0 := pairs8(le64(a[j:j+8])^flip) + pairs8(le64(b[j:j+8])^flip) +
			pairs8(le64(c[j:j+8])^flip) + pairs8(le64(e[j:j+8])^flip)
		s1 := pairs8(le64(a[j+8:j+16])^flip) + pairs8(le64(b[j+8:j+16])^flip) +
			pairs8(le64(c[j+8:j+16])^flip) + pairs8(le64(e[j+8:j+16])^flip)
		r0 := (s0 + 4*ones16) >> 3 & lanes8
		r1 := (s1 + 4*ones16) >> 3 & lanes8
		binary.LittleEndian.PutUint64(d[i:i+8], (pack8(r0)|pack8(r1)<<32)^flip)
	}
	return 8 * n
}

// The 16-bit kernels need a little-endian machine: they read the samples'
// memory as bytes.

func swar2x2U16[T uint16 | int16](d, a, b []uint16) int {
	flip := signFlip[T](flip16)
	n := min(len(d)/4, len(a)/8, len(b)/8)
	db, ab, bb := asBytes(d[:4*n]), asBytes(a[:8*n]), asBytes(b)
	for i, j := 0, 0; j+16 <= len(ab) && i+8 <= len(db); i, j = i+8, j+16 {
		pb := (*[16]byte)(bb[j:])
		s0 := pairs16(le64(ab[j:j+8])^flip) + pairs16(le64(pb[0:8])^flip)
		s1 := pairs16(le64(ab[j+8:j+16])^flip) + pairs16(le64(pb[8:16])^flip)
		r0 := (s0 + 2*ones32) >> 2 & lanes16
		r1 := (s1 + 2*ones32) >> 2 & lanes16
		binary.LittleEndian.PutUint64(db[i:i+8], (pack16(r0)|pack16(r1)<<32)^flip)
	}
	return 4 * n
}

func swar2x2x2U16[T uint16 | int16](d, a, b, c, e []uint16) int {
	flip := signFlip[T](flip16)
	n := min(len(d)/4, len(a)/8, len(b)/8, len(c)/8, len(e)/8)
	db, ab := asBytes(d[:4*n]), asBytes(a[:8*n])
	bb, cb, eb := asBytes(b[:8*n]), asBytes(c[:8*n]), asBytes(e[:8*n])
	for i, j := 0, 0; j+16 <= len(ab) && i+8 <= len(db); i, j = i+8, j+16 {
		s0 := pairs16(le64(ab[j:j+8])^flip) + pairs16(le64(bb[j:j+8])^flip) +
			pairs16(le64(cb[j:j+8])^flip) + pairs16(le64(eb[j:j+8])^flip)
		s1 := pairs16(le64(ab[j+8:j+16])^flip) + pairs16(le64(bb[j+8:j+16])^flip) +
			pairs16(le64(cb[j+8:j+16])^flip) + pairs16(le64(eb[j+8:j+16])^flip)
		r0 := (s0 + 4*ones32) >> 3 & lanes16
		r1 := (s1 + 4*ones32) >> 3 & lanes16
		binary.LittleEndian.PutUint64(db[i:i+8], (pack16(r0)|pack16(r1)<<32)^flip)
	}
	return 4 * n
}
