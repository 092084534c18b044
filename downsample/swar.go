package downsample

import (
	"encoding/binary"
	"unsafe"
)

// The portable kernels work on 64-bit words ("SIMD within a register"):
// the rows' adjacent samples are summed into lanes twice their width, and
// the sums rounded, shifted and packed back into samples. Lanes never
// carry into each other: 8 samples of 8 bits sum to at most 2040 < 2^16,
// 8 of 16 bits to at most 524280 < 2^32.

const (
	lanes8  = 0x00ff00ff00ff00ff // low byte of each 16-bit lane
	lanes16 = 0x0000ffff0000ffff // low half of each 32-bit lane
	ones16  = 0x0001000100010001
	ones32  = 0x0000000100000001
)

// pack8 packs four 16-bit lanes holding bytes into the low 32 bits.
func pack8(r uint64) uint64 {
	r = (r | r>>8) & lanes16
	return (r | r>>16) & 0xffffffff
}

// pack16 packs two 32-bit lanes holding 16-bit values into the low 32 bits.
func pack16(r uint64) uint64 { return (r | r>>16) & 0xffffffff }

// signFlip returns flip for a signed T and 0 for an unsigned one; it
// folds to a constant in each instantiation.
func signFlip[T Label](flip uint64) uint64 {
	if T(0)-1 < 0 {
		return flip
	}
	return 0
}

// Each kernel reads its rows as unsigned samples (signed ones flipped, see
// fast.go) in steps of 16 bytes a row, writes 8 bytes a step, and returns
// the number of output samples written. The rows are viewed as slices of
// whole steps of one length, which leaves the loops without bounds checks.
// The 16-bit kernels need a little-endian machine: they read the samples'
// memory as bytes.

func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

// steps views b as n steps of 16 bytes; b holds at least 16n bytes.
func steps(b []byte, n int) [][16]byte {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*[16]byte)(unsafe.Pointer(unsafe.SliceData(b[:16*n]))), n)
}

// words views d as n words of 8 bytes; d holds at least 8n bytes.
func words(d []byte, n int) [][8]byte {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*[8]byte)(unsafe.Pointer(unsafe.SliceData(d[:8*n]))), n)
}

// The sums of pairs go into lanes twice the sample width without
// splitting both halves of every word: a word is its low halves plus 2^8
// (2^16) times its high halves, lane by lane, so the rows' words added
// whole, less 255 (65535) times the sum of their high halves, leave the
// low plus the high halves. The whole words' sum carries across lanes but
// the result does not: each of its lanes fits, so it is exact modulo 2^64.

// mul255 and mul65535 are -255 and -65535 plus 2^63, mul257 and mul65537
// are 257 and 65537 plus 2^63: the added bit changes nothing below bit 63
// of a product, and the kernels read nothing there (no lane reaches it
// and the factors of mul257 and mul65537 are even), but it keeps the
// compiler from turning each multiplication into shifts and additions,
// which cost more instructions.
const (
	mul255   = 1<<63 - 255
	mul65535 = 1<<63 - 65535
	mul257   = 1<<63 + 257
	mul65537 = 1<<63 + 65537
)

func sum8x2(a, b uint64) uint64 {
	return a + b + (a>>8&lanes8+b>>8&lanes8)*mul255
}

func sum8x4(a, b, c, e uint64) uint64 {
	return a + b + c + e + (a>>8&lanes8+b>>8&lanes8+c>>8&lanes8+e>>8&lanes8)*mul255
}

func sum16x2(a, b uint64) uint64 {
	return a + b + (a>>16&lanes16+b>>16&lanes16)*mul65535
}

func sum16x4(a, b, c, e uint64) uint64 {
	return a + b + c + e + (a>>16&lanes16+b>>16&lanes16+c>>16&lanes16+e>>16&lanes16)*mul65535
}

// means8 turns two words of 16-bit lane sums of 2^k bytes into the eight
// means, rounded half up, packed into one word. Masking the rounded sums
// leaves each mean shifted left by k in its lane; multiplying by 257
// copies it 8 bits up, where the copy of each even lane meets the odd lane
// after it, and multiplying the pairs by 65537 brings pairs together the
// same way. No copy overlaps another, so the products do not carry.
func means8(s0, s1 uint64, k uint) uint64 {
	const pair = lanes16 << 8
	r0 := (s0 + ones16<<k>>1) & (lanes8 << k) * mul257 & (pair << k) * mul65537
	r1 := (s1 + ones16<<k>>1) & (lanes8 << k) * mul257 & (pair << k) * mul65537
	return uint64(uint32(r0>>(24+k))) | r1>>(24+k)<<32
}

// means16 does the same for 32-bit lane sums of 2^k 16-bit samples.
func means16(s0, s1 uint64, k uint) uint64 {
	r0 := (s0 + ones32<<k>>1) & (lanes16 << k) * mul65537
	r1 := (s1 + ones32<<k>>1) & (lanes16 << k) * mul65537
	return uint64(uint32(r0>>(16+k))) | r1>>(16+k)<<32
}

func swar2x2U8[T uint8 | int8](d, a, b []uint8) int {
	flip := signFlip[T](flip8)
	n := min(len(d)/8, len(a)/16, len(b)/16)
	sa, sb, sd := steps(a, n), steps(b, n), words(d, n)
	sb, sd = sb[:len(sa)], sd[:len(sa)]
	for k := range sa {
		pa, pb := &sa[k], &sb[k]
		s0 := sum8x2(le64(pa[:8])^flip, le64(pb[:8])^flip)
		s1 := sum8x2(le64(pa[8:])^flip, le64(pb[8:])^flip)
		binary.LittleEndian.PutUint64(sd[k][:], means8(s0, s1, 2)^flip)
	}
	return 8 * n
}

func swar2x2x2U8[T uint8 | int8](d, a, b, c, e []uint8) int {
	flip := signFlip[T](flip8)
	n := min(len(d)/8, len(a)/16, len(b)/16, len(c)/16, len(e)/16)
	sa, sb, sc, se, sd := steps(a, n), steps(b, n), steps(c, n), steps(e, n), words(d, n)
	sb, sc, se, sd = sb[:len(sa)], sc[:len(sa)], se[:len(sa)], sd[:len(sa)]
	for k := range sa {
		pa, pb, pc, pe := &sa[k], &sb[k], &sc[k], &se[k]
		s0 := sum8x4(le64(pa[:8])^flip, le64(pb[:8])^flip, le64(pc[:8])^flip, le64(pe[:8])^flip)
		s1 := sum8x4(le64(pa[8:])^flip, le64(pb[8:])^flip, le64(pc[8:])^flip, le64(pe[8:])^flip)
		binary.LittleEndian.PutUint64(sd[k][:], means8(s0, s1, 3)^flip)
	}
	return 8 * n
}

func swar2x2U16[T uint16 | int16](d, a, b []uint16) int {
	flip := signFlip[T](flip16)
	n := min(len(d)/4, len(a)/8, len(b)/8)
	sa, sb, sd := steps(asBytes(a), n), steps(asBytes(b), n), words(asBytes(d), n)
	sb, sd = sb[:len(sa)], sd[:len(sa)]
	for k := range sa {
		pa, pb := &sa[k], &sb[k]
		s0 := sum16x2(le64(pa[:8])^flip, le64(pb[:8])^flip)
		s1 := sum16x2(le64(pa[8:])^flip, le64(pb[8:])^flip)
		binary.LittleEndian.PutUint64(sd[k][:], means16(s0, s1, 2)^flip)
	}
	return 4 * n
}

func swar2x2x2U16[T uint16 | int16](d, a, b, c, e []uint16) int {
	flip := signFlip[T](flip16)
	n := min(len(d)/4, len(a)/8, len(b)/8, len(c)/8, len(e)/8)
	sa, sb, sc := steps(asBytes(a), n), steps(asBytes(b), n), steps(asBytes(c), n)
	se, sd := steps(asBytes(e), n), words(asBytes(d), n)
	sb, sc, se, sd = sb[:len(sa)], sc[:len(sa)], se[:len(sa)], sd[:len(sa)]
	for k := range sa {
		pa, pb, pc, pe := &sa[k], &sb[k], &sc[k], &se[k]
		s0 := sum16x4(le64(pa[:8])^flip, le64(pb[:8])^flip, le64(pc[:8])^flip, le64(pe[:8])^flip)
		s1 := sum16x4(le64(pa[8:])^flip, le64(pb[8:])^flip, le64(pc[8:])^flip, le64(pe[8:])^flip)
		binary.LittleEndian.PutUint64(sd[k][:], means16(s0, s1, 3)^flip)
	}
	return 4 * n
}
