package tiff

import (
	"encoding/binary"
	"fmt"
	"math"

	"vastview/loader"
)

// TIFF field types.
const (
	tByte      = 1
	tASCII     = 2
	tShort     = 3
	tLong      = 4
	tRational  = 5
	tSByte     = 6
	tUndefined = 7
	tSShort    = 8
	tSLong     = 9
	tSRational = 10
	tFloat     = 11
	tDouble    = 12
	tIFD       = 13
	tLong8     = 16
	tSLong8    = 17
	tIFD8      = 18
)

// typeSize is the byte size of one value of each field type (0: unknown).
var typeSize = [...]int64{
	tByte: 1, tASCII: 1, tShort: 2, tLong: 4, tRational: 8, tSByte: 1,
	tUndefined: 1, tSShort: 2, tSLong: 4, tSRational: 8, tFloat: 4,
	tDouble: 8, tIFD: 4, 14: 0, 15: 0, tLong8: 8, tSLong8: 8, tIFD8: 8,
}

// maxEntries bounds the entries of one IFD (classic TIFF's own limit).
const maxEntries = 1<<16 - 1

// file is the parsed TIFF header over the mapped bytes. Its methods only
// read, so it is safe for concurrent use while the mapping is alive.
type file struct {
	b   []byte // the whole file
	bo  binary.ByteOrder
	big bool // BigTIFF: 8-byte offsets and counts

	bands banding // how strip pages are cut into chunks
}

// entry is one IFD entry: its values lie at pos (inline or pointed to).
type entry struct {
	tag, typ uint16
	count    uint64
	pos      int64
}

func formatErr(format string, a ...any) error {
	return loader.Errorf("tiff", format, a...)
}

func unsupported(format string, a ...any) error {
	return &loader.UnsupportedError{Format: "tiff", Feature: fmt.Sprintf(format, a...)}
}

// parseHeader reads the byte order, the variant and the first IFD offset.
func parseHeader(b []byte) (*file, int64, error) {
	if len(b) < 8 {
		return nil, 0, truncErr("header of %d bytes", len(b))
	}
	f := &file{b: b}
	switch string(b[:2]) {
	case "II":
		f.bo = binary.LittleEndian
	case "MM":
		f.bo = binary.BigEndian
	default:
		return nil, 0, formatErr("not a TIFF header")
	}
	switch f.bo.Uint16(b[2:]) {
	case 42:
		return f, int64(f.bo.Uint32(b[4:])), nil
	case 43:
		if len(b) < 16 {
			return nil, 0, truncErr("BigTIFF header of %d bytes", len(b))
		}
		if f.bo.Uint16(b[4:]) != 8 || f.bo.Uint16(b[6:]) != 0 {
			return nil, 0, formatErr("BigTIFF header: bad offset size")
		}
		f.big = true
		off := f.bo.Uint64(b[8:])
		if off > math.MaxInt64 {
			return nil, 0, formatErr("first IFD offset out of range")
		}
		return f, int64(off), nil
	}
	return nil, 0, formatErr("bad TIFF version")
}

func (f *file) size() int64 { return int64(len(f.b)) }

// has reports whether the n bytes at off lie inside the file.
func (f *file) has(off, n int64) bool {
	return off >= 0 && n >= 0 && off <= f.size() && n <= f.size()-off
}

// minIFDSize is the size of an IFD with one entry.
func (f *file) minIFDSize() int64 {
	if f.big {
		return 8 + 20 + 8
	}
	return 2 + 12 + 4
}

// ifdSizes returns the byte sizes of an IFD's entry count, of one entry and
// of its next-IFD offset.
func (f *file) ifdSizes() (cs, es, ns int64) {
	if f.big {
		return 8, 20, 8
	}
	return 2, 12, 4
}

// checkIFDStart checks that the entry count of an IFD at off lies in the
// file.
func (f *file) checkIFDStart(off int64) error {
	cs, _, _ := f.ifdSizes()
	if off < 8 {
		return formatErr("IFD offset %d outside the file", off)
	}
	if !f.has(off, cs) {
		return truncErr("IFD offset %d outside the file", off)
	}
	return nil
}

// checkIFDEnd checks the entry count cnt of the IFD at off and that its
// entries and next-IFD offset lie in the file; it returns the position of
// the next-IFD offset.
func (f *file) checkIFDEnd(off int64, cnt uint64) (int64, error) {
	cs, es, ns := f.ifdSizes()
	if cnt == 0 || cnt > maxEntries {
		return 0, formatErr("IFD at offset %d has %d entries", off, cnt)
	}
	np := off + cs + int64(cnt)*es
	if !f.has(np, ns) {
		return 0, truncErr("IFD at offset %d is cut short", off)
	}
	return np, nil
}

// ifdHead reads the entry count of the IFD at off and its next-IFD offset,
// checking that the whole IFD lies inside the file.
func (f *file) ifdHead(off int64) (n int64, next int64, err error) {
	if err := f.checkIFDStart(off); err != nil {
		return 0, 0, err
	}
	var cnt uint64
	if f.big {
		cnt = f.bo.Uint64(f.b[off:])
	} else {
		cnt = uint64(f.bo.Uint16(f.b[off:]))
	}
	np, err := f.checkIFDEnd(off, cnt)
	if err != nil {
		return 0, 0, err
	}
	if f.big {
		u := f.bo.Uint64(f.b[np:])
		if u > math.MaxInt64 {
			return 0, 0, formatErr("IFD at offset %d: next IFD offset out of range", off)
		}
		next = int64(u)
	} else {
		next = int64(f.bo.Uint32(f.b[np:]))
	}
	return int64(cnt), next, nil
}

// entryAt decodes entry i of the IFD at off (which ifdHead has checked).
func (f *file) entryAt(off int64, i int64) entry {
	if f.big {
		p := off + 8 + i*20
		e := entry{tag: f.bo.Uint16(f.b[p:]), typ: f.bo.Uint16(f.b[p+2:]), count: f.bo.Uint64(f.b[p+4:])}
		e.pos = f.valuePos(e, p+12, 8)
		return e
	}
	p := off + 2 + i*12
	e := entry{tag: f.bo.Uint16(f.b[p:]), typ: f.bo.Uint16(f.b[p+2:]), count: uint64(f.bo.Uint32(f.b[p+4:]))}
	e.pos = f.valuePos(e, p+8, 4)
	return e
}

// valuePos returns where e's values lie: inline at field, or at the offset
// stored there. It returns -1 when the size cannot be computed.
func (f *file) valuePos(e entry, field int64, width uint64) int64 {
	sz := f.valSize(e.typ)
	if sz == 0 || e.count > maxValues {
		return -1
	}
	if e.count*uint64(sz) <= width {
		return field
	}
	if width == 8 {
		u := f.bo.Uint64(f.b[field:])
		if u > math.MaxInt64 {
			return -1
		}
		return int64(u)
	}
	return int64(f.bo.Uint32(f.b[field:]))
}

func (f *file) valSize(typ uint16) int64 {
	if int(typ) < len(typeSize) {
		return typeSize[typ]
	}
	return 0
}

// maxValues bounds the count of an entry's values, so that their size in
// bytes is representable.
const maxValues = 1 << 56

// check verifies that all of e's values lie inside the file.
func (f *file) check(e entry) bool {
	sz := f.valSize(e.typ)
	return e.pos >= 0 && sz > 0 && e.count <= uint64(f.size()) && f.has(e.pos, int64(e.count)*sz)
}

// values returns nil if all of e's values lie inside the file, a truncated
// error if they lie (partly) beyond its end, and a format error naming what
// the values are if they cannot be located.
func (f *file) values(e entry, what string) error {
	if f.check(e) {
		return nil
	}
	if e.pos >= 0 && f.valSize(e.typ) > 0 {
		return truncErr("%s at offset %d exceed the file", what, e.pos)
	}
	return formatErr("bad %s", what)
}

// isUint reports whether e holds unsigned integers usable as offsets/sizes.
func isUint(e entry) bool {
	switch e.typ {
	case tByte, tShort, tLong, tLong8, tIFD, tIFD8:
		return true
	}
	return false
}

// uintAt returns the i-th value of an unsigned integer entry that check
// has accepted.
func (f *file) uintAt(e entry, i uint64) uint64 {
	switch e.typ {
	case tByte:
		return uint64(f.b[e.pos+int64(i)])
	case tShort:
		return uint64(f.bo.Uint16(f.b[e.pos+2*int64(i):]))
	case tLong, tIFD:
		return uint64(f.bo.Uint32(f.b[e.pos+4*int64(i):]))
	default:
		return f.bo.Uint64(f.b[e.pos+8*int64(i):])
	}
}

// rational returns the first value of a RATIONAL entry (0 if unusable).
func (f *file) rational(e entry) float64 {
	if e.typ != tRational || e.count < 1 || !f.check(e) {
		return 0
	}
	num := f.bo.Uint32(f.b[e.pos:])
	den := f.bo.Uint32(f.b[e.pos+4:])
	if den == 0 {
		return 0
	}
	return float64(num) / float64(den)
}

// pixelSize returns 1/r for a resolution entry r = num/den (pixels per
// unit), as the shortest decimal that the rational stands for: within one
// unit of den when num is 2³²-1 (tifffile fixes the larger term at its
// limit and truncates the other: 4294967295/1288490188 is 0.3), else within
// half a unit of the larger term (ImageJ's num/1000000, an exact 72/1). It
// returns 0 when the entry is unusable.
func (f *file) pixelSize(e entry) float64 {
	if f.rational(e) <= 0 {
		return 0
	}
	num := float64(f.bo.Uint32(f.b[e.pos:]))
	den := float64(f.bo.Uint32(f.b[e.pos+4:]))
	v := den / num
	tol := v / (2 * max(num, den))
	if num == math.MaxUint32 || den == math.MaxUint32 {
		tol = v / min(num, den)
	}
	_, x := loader.Decimal(v, func(x float64) bool { return math.Abs(x-v) <= tol })
	return x
}

// ascii returns an ASCII or BYTE entry's text up to its first NUL, or ""
// when it is unusable or longer than limit.
func (f *file) ascii(e entry, limit uint64) string {
	if (e.typ != tASCII && e.typ != tByte && e.typ != tUndefined) || e.count > limit || !f.check(e) {
		return ""
	}
	s := f.b[e.pos : e.pos+int64(e.count)]
	for i, c := range s {
		if c == 0 {
			s = s[:i]
			break
		}
	}
	return string(s)
}
