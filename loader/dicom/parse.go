package dicom

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Tags, as group<<16 | element.
const (
	tagTransferSyntax   = 0x00020010
	tagMediaSOPClass    = 0x00020002
	tagSOPClass         = 0x00080016
	tagModality         = 0x00080060
	tagSeriesDesc       = 0x0008103E
	tagSliceThickness   = 0x00180050
	tagRepetitionTime   = 0x00180080
	tagSeriesUID        = 0x0020000E
	tagSeriesNumber     = 0x00200011
	tagInstanceNumber   = 0x00200013
	tagPosition         = 0x00200032
	tagOrientation      = 0x00200037
	tagSamples          = 0x00280002
	tagPhotometric      = 0x00280004
	tagPlanar           = 0x00280006
	tagFrames           = 0x00280008
	tagRows             = 0x00280010
	tagColumns          = 0x00280011
	tagPixelSpacing     = 0x00280030
	tagBitsAllocated    = 0x00280100
	tagBitsStored       = 0x00280101
	tagPixelRep         = 0x00280103
	tagWindowCenter     = 0x00281050
	tagWindowWidth      = 0x00281051
	tagRescaleIntercept = 0x00281052
	tagRescaleSlope     = 0x00281053
	tagRescaleType      = 0x00281054
	tagDoseUnits        = 0x30040002
	tagGridFrameOffsets = 0x3004000C
	tagDoseGridScaling  = 0x3004000E
	tagPixelData        = 0x7FE00010
	tagFloatPixelData   = 0x7FE00008
	tagDoublePixelData  = 0x7FE00009

	tagDirRecords     = 0x00041220
	tagRecordType     = 0x00041430
	tagReferencedFile = 0x00041500

	tagSharedGroups   = 0x52009229
	tagPerFrameGroups = 0x52009230
	tagPlanePosition  = 0x00209113
	tagPlaneOrient    = 0x00209116
	tagPixelMeasures  = 0x00289110
	tagValueTransform = 0x00289145
	tagFrameVOI       = 0x00289132
	tagMRTiming       = 0x00189112

	tagItem          = 0xFFFEE000
	tagItemEnd       = 0xFFFEE00D
	tagSequenceEnd   = 0xFFFEE0DD
	undefinedLength  = 0xFFFFFFFF
	maxNesting       = 16
	maxElementsInSet = 1 << 20
)

// sqTags are the sequences read, which an implicit-VR file does not mark.
var sqTags = map[uint32]bool{
	tagDirRecords: true, tagSharedGroups: true, tagPerFrameGroups: true, tagPlanePosition: true,
	tagPlaneOrient: true, tagPixelMeasures: true, tagValueTransform: true, tagFrameVOI: true,
}

// Transfer syntaxes.
const (
	tsImplicitLE = "1.2.840.10008.1.2"
	tsExplicitLE = "1.2.840.10008.1.2.1"
	tsDeflated   = "1.2.840.10008.1.2.1.99"
	tsExplicitBE = "1.2.840.10008.1.2.2"
	tsRLE        = "1.2.840.10008.1.2.5"
	tsJPEGBase   = "1.2.840.10008.1.2.4.50"
	tsJPEGExt    = "1.2.840.10008.1.2.4.51"
	tsJPEGLL14   = "1.2.840.10008.1.2.4.57"
	tsJPEGLLSV1  = "1.2.840.10008.1.2.4.70"
)

// unsupportedSyntaxes are the compressed syntaxes refused, by name.
var unsupportedSyntaxes = map[string]string{
	tsJPEGExt:                 "JPEG extended (process 2 & 4)",
	"1.2.840.10008.1.2.4.80":  "JPEG-LS lossless",
	"1.2.840.10008.1.2.4.81":  "JPEG-LS near-lossless",
	"1.2.840.10008.1.2.4.90":  "JPEG 2000 lossless",
	"1.2.840.10008.1.2.4.91":  "JPEG 2000",
	"1.2.840.10008.1.2.4.92":  "JPEG 2000 Part 2 lossless",
	"1.2.840.10008.1.2.4.93":  "JPEG 2000 Part 2",
	"1.2.840.10008.1.2.4.100": "MPEG-2",
	"1.2.840.10008.1.2.4.101": "MPEG-2",
	"1.2.840.10008.1.2.4.102": "MPEG-4",
	"1.2.840.10008.1.2.4.103": "MPEG-4",
	"1.2.840.10008.1.2.4.104": "MPEG-4",
	"1.2.840.10008.1.2.4.105": "MPEG-4",
	"1.2.840.10008.1.2.4.106": "MPEG-4",
	"1.2.840.10008.1.2.4.107": "HEVC",
	"1.2.840.10008.1.2.4.108": "HEVC",
	"1.2.840.10008.1.2.4.201": "HTJ2K lossless",
	"1.2.840.10008.1.2.4.202": "HTJ2K lossless RPCL",
	"1.2.840.10008.1.2.4.203": "HTJ2K",
}

// element is one data element read: its value bytes (nil for a
// sequence), the items of a sequence, and where the value is in the
// stream (for the pixel data).
type element struct {
	vr     string // "" when the syntax is implicit
	value  []byte
	items  []dataset
	offset int64  // of the value in the stream
	length uint32 // as stored (undefinedLength for encapsulated pixel data)
}

// dataset is the elements of one level, by tag.
type dataset map[uint32]*element

// errShort means that the bytes parsed end before the dataset does; the
// caller reads more and parses again.
var errShort = errors.New("short")

// parser reads elements from buf, which holds the stream from its start
// (offset base in the stream).
type parser struct {
	buf  []byte
	base int64
	eof  bool // buf holds the whole stream
}

// longVR are the explicit VRs with a 4-byte length.
func longVR(vr string) bool {
	switch vr {
	case "OB", "OD", "OF", "OL", "OV", "OW", "SQ", "SV", "UC", "UN", "UR", "UT", "UV":
		return true
	}
	return false
}

// header reads the tag, VR and length of the element at pos.
func (p *parser) header(pos int, implicit bool, order binary.ByteOrder) (tag uint32, vr string, length uint32, n int, err error) {
	if len(p.buf)-pos < 8 {
		return 0, "", 0, 0, p.short("an element header")
	}
	b := p.buf[pos:]
	tag = uint32(order.Uint16(b))<<16 | uint32(order.Uint16(b[2:]))
	if tag>>16 == 0xFFFE || implicit {
		return tag, "", order.Uint32(b[4:]), 8, nil
	}
	vr = string(b[4:6])
	if vr[0] < 'A' || vr[0] > 'Z' || vr[1] < 'A' || vr[1] > 'Z' {
		return 0, "", 0, 0, fmt.Errorf("element (%04X,%04X) at byte %d: bad VR %q", tag>>16, tag&0xFFFF, p.base+int64(pos), vr)
	}
	if longVR(vr) {
		if len(b) < 12 {
			return 0, "", 0, 0, p.short("an element header")
		}
		return tag, vr, order.Uint32(b[8:]), 12, nil
	}
	return tag, vr, uint32(order.Uint16(b[6:])), 8, nil
}

// short is errShort while more of the stream may follow, else a truncation.
func (p *parser) short(what string) error {
	if p.eof {
		return fmt.Errorf("the file ends inside %s: %w", what, errTruncated)
	}
	return errShort
}

// parse reads elements from pos until end (-1: until the buffer ends, or
// the pixel data at the top level), returning the dataset and where it
// stopped. Inside a sequence item of undefined length it stops after the
// item delimiter.
func (p *parser) parse(pos, end, depth int, implicit bool, order binary.ByteOrder) (dataset, int, error) {
	if depth > maxNesting {
		return nil, 0, fmt.Errorf("sequences nested deeper than %d", maxNesting)
	}
	ds := dataset{}
	for end < 0 || pos < end {
		if end < 0 && depth == 0 && pos == len(p.buf) && p.eof {
			return ds, pos, nil
		}
		if len(ds) > maxElementsInSet {
			return nil, 0, fmt.Errorf("more than %d elements in one dataset", maxElementsInSet)
		}
		tag, vr, length, n, err := p.header(pos, implicit, order)
		if err != nil {
			return nil, 0, err
		}
		at := pos + n
		switch tag {
		case tagItemEnd:
			if depth == 0 {
				return nil, 0, fmt.Errorf("item delimiter outside a sequence at byte %d", p.base+int64(pos))
			}
			return ds, at, nil
		case tagItem, tagSequenceEnd:
			return nil, 0, fmt.Errorf("misplaced item tag at byte %d", p.base+int64(pos))
		}
		if depth == 0 && (tag == tagPixelData || tag == tagFloatPixelData || tag == tagDoublePixelData) {
			ds[tag] = &element{vr: vr, offset: p.base + int64(at), length: length}
			return ds, at, nil
		}
		isSQ := vr == "SQ" || (vr == "" && sqTags[tag]) || (length == undefinedLength && (vr == "" || vr == "UN"))
		if isSQ {
			// An UN sequence of undefined length is implicit VR little endian.
			imp, ord := implicit, order
			if vr == "UN" {
				imp, ord = true, binary.LittleEndian
			}
			items, next, err := p.sequence(at, length, depth, imp, ord)
			if err != nil {
				return nil, 0, err
			}
			ds[tag] = &element{vr: "SQ", items: items}
			pos = next
			continue
		}
		if length == undefinedLength {
			return nil, 0, fmt.Errorf("element (%04X,%04X) of undefined length", tag>>16, tag&0xFFFF)
		}
		if int64(length) > int64(len(p.buf)-at) {
			return nil, 0, p.short(fmt.Sprintf("element (%04X,%04X) of %d bytes", tag>>16, tag&0xFFFF, length))
		}
		ds[tag] = &element{vr: vr, value: p.buf[at : at+int(length) : at+int(length)], offset: p.base + int64(at), length: length}
		pos = at + int(length)
	}
	if pos != end {
		return nil, 0, fmt.Errorf("an element overruns its item at byte %d", p.base+int64(pos))
	}
	return ds, pos, nil
}

// sequence reads the items of a sequence whose value starts at pos.
func (p *parser) sequence(pos int, length uint32, depth int, implicit bool, order binary.ByteOrder) ([]dataset, int, error) {
	end := -1
	if length != undefinedLength {
		if int64(length) > int64(len(p.buf)-pos) {
			return nil, 0, p.short("a sequence")
		}
		end = pos + int(length)
	}
	var items []dataset
	for end < 0 || pos < end {
		if len(p.buf)-pos < 8 {
			return nil, 0, p.short("a sequence")
		}
		b := p.buf[pos:]
		tag := uint32(order.Uint16(b))<<16 | uint32(order.Uint16(b[2:]))
		il := order.Uint32(b[4:])
		pos += 8
		switch tag {
		case tagSequenceEnd:
			if end >= 0 {
				return nil, 0, fmt.Errorf("sequence delimiter in a sequence of defined length")
			}
			return items, pos, nil
		case tagItem:
		default:
			return nil, 0, fmt.Errorf("element (%04X,%04X) where a sequence item should be", tag>>16, tag&0xFFFF)
		}
		iend := -1
		if il != undefinedLength {
			if int64(il) > int64(len(p.buf)-pos) {
				return nil, 0, p.short("a sequence item")
			}
			iend = pos + int(il)
		}
		ds, next, err := p.parse(pos, iend, depth+1, implicit, order)
		if err != nil {
			return nil, 0, err
		}
		if len(items) >= maxElementsInSet {
			return nil, 0, fmt.Errorf("more than %d items in a sequence", maxElementsInSet)
		}
		items = append(items, ds)
		pos = next
		if end >= 0 && pos > end {
			return nil, 0, fmt.Errorf("an item overruns its sequence")
		}
	}
	return items, pos, nil
}

// header is what one file's header says.
type fileHeader struct {
	syntax   string
	implicit bool
	order    binary.ByteOrder
	deflated bool
	dataAt   int64 // where the dataset after the file meta starts in the file
	ds       dataset
	meta     dataset
}

// str is the element's value as a trimmed string ("" when absent).
func (ds dataset) str(tag uint32) string {
	e := ds[tag]
	if e == nil {
		return ""
	}
	return strings.Trim(string(e.value), " \x00")
}

// floats are the element's backslash-separated decimal values (DS, IS).
func (ds dataset) floats(tag uint32) []float64 {
	s := ds.str(tag)
	if s == "" {
		return nil
	}
	var out []float64
	for _, f := range strings.Split(s, `\`) {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		out = append(out, v)
	}
	return out
}

// float is the first of floats, or def.
func (ds dataset) float(tag uint32, def float64) float64 {
	if v := ds.floats(tag); len(v) > 0 {
		return v[0]
	}
	return def
}

// us is the element's first unsigned 16-bit value, or def.
func (ds dataset) us(tag uint32, order binary.ByteOrder, def int) int {
	e := ds[tag]
	if e == nil || len(e.value) < 2 {
		return def
	}
	return int(order.Uint16(e.value))
}

// item is the first item of sequence tag, or nil.
func (ds dataset) item(tag uint32) dataset {
	if e := ds[tag]; e != nil && len(e.items) > 0 {
		return e.items[0]
	}
	return nil
}

// readHeader parses a DICOM file's header (everything before its pixel
// data) from r, size bytes long: it reads the first 4 KiB, and twice as
// much while the header is longer, so that little of the pixel data is
// read with it.
func readHeader(r io.ReaderAt, size int64) (*fileHeader, error) {
	if size < 8 {
		return nil, fmt.Errorf("%d bytes are too few for DICOM: %w", size, errTruncated)
	}
	first := int64(4 << 10)
	for n := first; ; n *= 2 {
		if n > size {
			n = size
		}
		buf := make([]byte, n)
		if _, err := r.ReadAt(buf, 0); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		h, err := parseHeader(buf, n == size, r, size)
		if !errors.Is(err, errShort) {
			return h, err
		}
		if n == size {
			return nil, fmt.Errorf("the file ends inside its header: %w", errTruncated)
		}
	}
}

// hasPreamble reports whether b starts with a 128-byte preamble and "DICM".
func hasPreamble(b []byte) bool { return len(b) >= 132 && string(b[128:132]) == "DICM" }

// parseHeader parses the header in buf (all of the file when eof).
func parseHeader(buf []byte, eof bool, r io.ReaderAt, size int64) (*fileHeader, error) {
	pos := 0
	if hasPreamble(buf) {
		pos = 132
	} else if len(buf) < 132 && !eof {
		return nil, errShort
	}
	h := &fileHeader{}
	p := &parser{buf: buf, eof: eof}
	// The file meta group: explicit VR little endian, group 0002 only.
	meta := dataset{}
	le := binary.LittleEndian
	for {
		if len(buf)-pos < 8 {
			if eof && len(buf) == pos {
				break
			}
			if eof {
				return nil, fmt.Errorf("the file ends inside its file meta: %w", errTruncated)
			}
			return nil, errShort
		}
		if le.Uint16(buf[pos:]) != 0x0002 {
			break
		}
		tag, vr, length, n, err := p.header(pos, false, le)
		if err != nil {
			return nil, err
		}
		if length == undefinedLength || int64(length) > int64(len(buf)-pos-n) {
			if length != undefinedLength && !eof {
				return nil, errShort
			}
			return nil, fmt.Errorf("file meta element (%04X,%04X) of %d bytes exceeds the file: %w", tag>>16, tag&0xFFFF, length, errTruncated)
		}
		meta[tag] = &element{vr: vr, value: buf[pos+n : pos+n+int(length)]}
		pos += n + int(length)
	}
	h.meta = meta
	h.syntax = meta.str(tagTransferSyntax)
	if h.syntax == "" {
		// No file meta: guess from the first element.
		h.syntax = tsImplicitLE
		if len(buf)-pos >= 6 {
			vr := buf[pos+4 : pos+6]
			if vr[0] >= 'A' && vr[0] <= 'Z' && vr[1] >= 'A' && vr[1] <= 'Z' {
				h.syntax = tsExplicitLE
			}
		}
	}
	h.implicit = h.syntax == tsImplicitLE
	h.order = binary.ByteOrder(le)
	if h.syntax == tsExplicitBE {
		h.order = binary.BigEndian
	}
	h.dataAt = int64(pos)
	if h.syntax == tsDeflated {
		h.deflated = true
		return h, h.parseDeflated(r, size)
	}
	p.base = 0
	ds, _, err := p.parse(pos, -1, 0, h.implicit, h.order)
	if err != nil {
		return nil, err
	}
	h.ds = ds
	return h, nil
}

// parseDeflated inflates the dataset of a deflated file as far as the
// header needs.
func (h *fileHeader) parseDeflated(r io.ReaderAt, size int64) error {
	zr := flate.NewReader(io.NewSectionReader(r, h.dataAt, size-h.dataAt))
	defer zr.Close()
	var buf bytes.Buffer
	for step := int64(64 << 10); ; step *= 2 {
		n, err := io.CopyN(&buf, zr, step)
		eof := err != nil
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("deflated dataset: %v", err)
		}
		p := &parser{buf: buf.Bytes(), eof: eof}
		ds, _, perr := p.parse(0, -1, 0, false, binary.LittleEndian)
		if perr == nil {
			h.ds = ds
			return nil
		}
		if !errors.Is(perr, errShort) || (eof && n == 0) {
			return perr
		}
		if buf.Len() > 64<<20 {
			return fmt.Errorf("deflated header over 64 MiB")
		}
	}
}
