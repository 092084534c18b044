package tiff

import (
	"math"
	"strings"
	"unicode/utf16"
)

// ImageJ keeps what it shows a hyperstack with in two tags of page 0:
// IJMetadataByteCounts (LONG) lists the byte sizes of the blocks that lie
// back to back in IJMetadata (BYTE). Block 0 is a header: the magic number
// "IJIJ", then one (type, count) pair per kind of block, each a 4-byte
// code ("info", "labl", "rang", "luts", "plot", "roi ", "over", "prop")
// and the number of blocks of that kind that follow, in the order of the
// pairs. Every number, code and character is in the file's byte order, as
// ImageJ's TiffDecoder reads them: ImageJ writes big-endian files ("IJIJ"),
// tifffile writes little-endian ones by default, where the bytes read
// "JIJI", "lbal" and so on.
//
// The reader uses slice labels (one block per image, UTF-16), display
// ranges (blocks of float64 min, max per channel) and colour tables (one
// block of 768 bytes per channel: 256 reds, 256 greens, 256 blues).

// IJMetadata magic number and block types, as uint32 in file byte order.
const (
	ijMagic  = 0x494a494a // "IJIJ"
	ijLabels = 0x6c61626c // "labl"
	ijRanges = 0x72616e67 // "rang"
	ijLUTs   = 0x6c757473 // "luts"
)

// Limits on the IJMetadata header, as ImageJ and tifffile check it: at
// least one pair, at most 100.
const (
	ijMinHeader = 12
	ijMaxHeader = 804
)

// maxLabel bounds the characters of a label kept as a channel name.
const maxLabel = 256

// maxIJBlocks bounds the blocks of IJMetadata walked through (ImageJ
// writes a label block per image): a tag claiming more keeps what the
// first ones say, so that a crafted file cannot make the open take time
// in proportion to its size.
const maxIJBlocks = 1 << 24

// ijMetadata is the part of an IJMetadata tag the reader uses, for the
// first n images and channels only.
type ijMetadata struct {
	labels []string         // labels of images 0, 1, ... ("" where none)
	ranges []float64        // display ranges: min, max of channel 0, then 1, ...
	luts   []*[256][3]uint8 // colour tables of channels 0, 1, ... (nil where unusable)
	n      int              // most labels, channels kept
}

// ijBlocks returns page p's IJMetadata bytes, or nil when the two tags are
// absent or unusable.
func (f *file) ijBlocks(p *page) []byte {
	d, c := p.ijMeta, p.ijCounts
	if d.tag == 0 || c.tag == 0 || (d.typ != tByte && d.typ != tUndefined) || !isUint(c) || c.count < 2 {
		return nil
	}
	if !f.check(d) || !f.check(c) {
		return nil
	}
	return f.b[d.pos : d.pos+int64(d.count)]
}

// ijMeta reads page p's IJMetadata for n channels. Nothing in it fails the
// open: a part that is malformed (a size beyond the tag, a block of the
// wrong size, a bad header) is left out with whatever follows it. Every
// size comes from the counts tag and is checked against the bytes of the
// metadata tag before it is used; what is kept is bounded by n.
func (f *file) ijMeta(p *page, n int) ijMetadata { return f.ijMetaUpTo(p, n, maxIJBlocks) }

// ijMetaUpTo is ijMeta walking through maxBlocks blocks at the most.
func (f *file) ijMetaUpTo(p *page, n int, maxBlocks uint64) ijMetadata {
	md := ijMetadata{n: n}
	data := f.ijBlocks(p)
	if data == nil {
		return md
	}
	counts := p.ijCounts
	hdr := f.uintAt(counts, 0)
	if hdr < ijMinHeader || hdr > ijMaxHeader || hdr > uint64(len(data)) || f.bo.Uint32(data) != ijMagic {
		return md
	}
	types := int((hdr - 4) / 8)
	last := -1 // the last pair of a kind the reader uses
	for i := range types {
		switch f.bo.Uint32(data[4+8*i:]) {
		case ijLabels, ijRanges, ijLUTs:
			last = i
		}
	}
	pos := uint64(4 + 8*types) // the blocks follow the pairs, as ImageJ reads them
	block := uint64(1)
	for i := range last + 1 {
		typ := f.bo.Uint32(data[4+8*i:])
		cnt := uint64(f.bo.Uint32(data[8+8*i:]))
		for k := uint64(0); k < cnt; k++ {
			if block >= counts.count || block > maxBlocks {
				return md
			}
			size := f.uintAt(counts, block)
			if size > uint64(len(data))-pos {
				return md
			}
			md.add(f, typ, k, data[pos:pos+size])
			pos += size
			block++
		}
	}
	return md
}

// add records block k of type typ.
func (md *ijMetadata) add(f *file, typ uint32, k uint64, b []byte) {
	switch typ {
	case ijLabels:
		if k == uint64(len(md.labels)) && len(md.labels) < md.n {
			md.labels = append(md.labels, f.utf16(b))
		}
	case ijRanges:
		for ; len(b) >= 8 && len(md.ranges) < 2*md.n; b = b[8:] {
			md.ranges = append(md.ranges, f.float64At(b))
		}
	case ijLUTs:
		if len(b) == 0 || len(b)%768 != 0 {
			if len(md.luts) < md.n {
				md.luts = append(md.luts, nil) // keeps the next blocks on their channels
			}
			return
		}
		for ; len(b) >= 768 && len(md.luts) < md.n; b = b[768:] {
			md.luts = append(md.luts, ijLUT(b))
		}
	}
}

// ijLUT reads a colour table of 256 reds, 256 greens and 256 blues.
func ijLUT(b []byte) *[256][3]uint8 {
	var l [256][3]uint8
	for i := range l {
		l[i] = [3]uint8{b[i], b[256+i], b[512+i]}
	}
	return &l
}

// utf16 decodes a label in the file's byte order: its first line, without
// surrounding spaces (ImageJ keeps notes on the lines after a label), at
// most maxLabel characters.
func (f *file) utf16(b []byte) string {
	u := make([]uint16, 0, min(len(b)/2, 2*maxLabel))
	for ; len(b) >= 2 && len(u) < cap(u); b = b[2:] {
		c := f.bo.Uint16(b)
		if c == '\n' || c == '\r' || c == 0 {
			break
		}
		u = append(u, c)
	}
	s := strings.TrimSpace(string(utf16.Decode(u)))
	if r := []rune(s); len(r) > maxLabel {
		s = string(r[:maxLabel])
	}
	return s
}

// float64At reads a float64 in the file's byte order.
func (f *file) float64At(b []byte) float64 { return math.Float64frombits(f.bo.Uint64(b)) }
