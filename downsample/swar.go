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

func swar2x2U8(d, a, b []uint8) {
	for len(d) >= 8 && len(a) >= 16 && len(b) >= 16 {
		s0 := pairs8(le64(a[0:8])) + pairs8(le64(b[0:8]))
		s1 := pairs8(le64(a[8:16])) + pairs8(le64(b[8:16]))
		r0 := (s0 + 2*ones16) >> 2 & lanes8
		r1 := (s1 + 2*ones16) >> 2 & lanes8
		binary.LittleEndian.PutUint64(d, pack8(r0)|pack8(r1)<<32)
		d, a, b = d[8:], a[16:], b[16:]
	}
	meanH2(d, a, b)
}

func swar2x2x2U8(d, a, b, c, e []uint8) {
	for len(d) >= 8 && len(a) >= 16 && len(b) >= 16 && len(c) >= 16 && len(e) >= 16 {
		s0 := pairs8(le64(a[0:8])) + pairs8(le64(b[0:8])) + pairs8(le64(c[0:8])) + pairs8(le64(e[0:8]))
		s1 := pairs8(le64(a[8:16])) + pairs8(le64(b[8:16])) + pairs8(le64(c[8:16])) + pairs8(le64(e[8:16]))
		r0 := (s0 + 4*ones16) >> 3 & lanes8
		r1 := (s1 + 4*ones16) >> 3 & lanes8
		binary.LittleEndian.PutUint64(d, pack8(r0)|pack8(r1)<<32)
		d, a, b, c, e = d[8:], a[16:], b[16:], c[16:], e[16:]
	}
	meanH4(d, a, b, c, e)
}

// The 16-bit kernels need a little-endian machine: they read the samples'
// memory as bytes.

func swar2x2U16(d, a, b []uint16) {
	db, ab, bb := asBytes(d), asBytes(a), asBytes(b)
	for len(db) >= 8 && len(ab) >= 16 && len(bb) >= 16 {
		s0 := pairs16(le64(ab[0:8])) + pairs16(le64(bb[0:8]))
		s1 := pairs16(le64(ab[8:16])) + pairs16(le64(bb[8:16]))
		r0 := (s0 + 2*ones32) >> 2 & lanes16
		r1 := (s1 + 2*ones32) >> 2 & lanes16
		binary.LittleEndian.PutUint64(db, pack16(r0)|pack16(r1)<<32)
		db, ab, bb = db[8:], ab[16:], bb[16:]
	}
	i := len(d) - len(db)/2
	meanH2(d[i:], a[2*i:], b[2*i:])
}

func swar2x2x2U16(d, a, b, c, e []uint16) {
	db, ab, bb, cb, eb := asBytes(d), asBytes(a), asBytes(b), asBytes(c), asBytes(e)
	for len(db) >= 8 && len(ab) >= 16 && len(bb) >= 16 && len(cb) >= 16 && len(eb) >= 16 {
		s0 := pairs16(le64(ab[0:8])) + pairs16(le64(bb[0:8])) + pairs16(le64(cb[0:8])) + pairs16(le64(eb[0:8]))
		s1 := pairs16(le64(ab[8:16])) + pairs16(le64(bb[8:16])) + pairs16(le64(cb[8:16])) + pairs16(le64(eb[8:16]))
		r0 := (s0 + 4*ones32) >> 3 & lanes16
		r1 := (s1 + 4*ones32) >> 3 & lanes16
		binary.LittleEndian.PutUint64(db, pack16(r0)|pack16(r1)<<32)
		db, ab, bb, cb, eb = db[8:], ab[16:], bb[16:], cb[16:], eb[16:]
	}
	i := len(d) - len(db)/2
	meanH4(d[i:], a[2*i:], b[2*i:], c[2*i:], e[2*i:])
}
