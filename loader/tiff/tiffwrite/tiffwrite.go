// Package tiffwrite writes the uncompressed TIFF and BigTIFF stacks that
// benchmarks and tests read: any size, quickly, sparsely when the samples
// are zero. It is a fixture writer, not a general TIFF encoder.
package tiffwrite

import (
	"encoding/binary"
	"fmt"
	"os"

	"vastview/loader"
)

// Stack writes an uncompressed little-endian TIFF stack of pages
// width x height planes of dtype dt to path, one strip per page, each page's
// IFD after its data (the layout libtiff writes). It writes BigTIFF when the
// file would exceed 4 GiB. fill, if not nil, sets the samples of each page
// (little-endian) in the buffer it is given; with a nil fill the samples are
// zero and the file is written sparsely where the file system allows, which
// makes large benchmark stacks cheap. It is safe for concurrent use on
// different paths.
func Stack(path string, width, height, pages int, dt loader.DType, fill func(page int, buf []byte)) error {
	if width <= 0 || height <= 0 || pages <= 0 || dt.Size() == 0 {
		return fmt.Errorf("tiff: cannot write %d pages of %dx%d %s", pages, width, height, dt)
	}
	plane := int64(width) * int64(height) * int64(dt.Size())
	w := stackWriter{plane: plane, dt: dt, width: width, height: height}
	w.plane += plane & 1 // keep IFDs word-aligned
	w.big = 16+int64(pages)*(w.plane+w.ifdSize()) >= 1<<32
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = w.write(f, pages, fill)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

type stackWriter struct {
	plane         int64 // bytes per page on disk (data padded to even)
	dt            loader.DType
	width, height int
	big           bool
}

const writerEntries = 11

// The tags, field types and compression a stack uses (TIFF 6.0 and the
// BigTIFF extension).
const (
	tagImageWidth      = 256
	tagImageLength     = 257
	tagBitsPerSample   = 258
	tagCompression     = 259
	tagPhotometric     = 262
	tagStripOffsets    = 273
	tagSamplesPerPixel = 277
	tagRowsPerStrip    = 278
	tagStripByteCounts = 279
	tagPlanarConfig    = 284
	tagSampleFormat    = 339

	tShort = 3
	tLong  = 4
	tLong8 = 16

	cNone = 1
)

func (w *stackWriter) ifdSize() int64 {
	if w.big {
		return 8 + writerEntries*20 + 8
	}
	return 2 + writerEntries*12 + 4
}

func (w *stackWriter) write(f *os.File, pages int, fill func(int, []byte)) error {
	le := binary.LittleEndian
	hdr := make([]byte, 8, 16)
	copy(hdr, "II*\x00")
	start := int64(8)
	if w.big {
		hdr = hdr[:16]
		copy(hdr, "II+\x00")
		le.PutUint16(hdr[4:], 8)
		start = 16
	}
	step := w.plane + w.ifdSize()
	ifd := func(k int) int64 { return start + int64(k)*step + w.plane }
	if w.big {
		le.PutUint64(hdr[8:], uint64(ifd(0)))
	} else {
		le.PutUint32(hdr[4:], uint32(ifd(0)))
	}
	if _, err := f.WriteAt(hdr, 0); err != nil {
		return err
	}
	var buf []byte
	if fill != nil {
		buf = make([]byte, int64(w.width)*int64(w.height)*int64(w.dt.Size()))
	}
	for k := 0; k < pages; k++ {
		data := start + int64(k)*step
		if fill != nil {
			clear(buf)
			fill(k, buf)
			if _, err := f.WriteAt(buf, data); err != nil {
				return err
			}
		}
		next := int64(0)
		if k+1 < pages {
			next = ifd(k + 1)
		}
		if _, err := f.WriteAt(w.ifdBytes(data, next), ifd(k)); err != nil {
			return err
		}
	}
	return f.Truncate(start + int64(pages)*step)
}

// ifdBytes encodes the IFD of a page whose data is at data.
func (w *stackWriter) ifdBytes(data, next int64) []byte {
	le := binary.LittleEndian
	sf := uint64(1)
	switch {
	case w.dt.Float():
		sf = 3
	case w.dt.Signed():
		sf = 2
	}
	tags := [writerEntries][2]uint64{
		{tagImageWidth, uint64(w.width)},
		{tagImageLength, uint64(w.height)},
		{tagBitsPerSample, uint64(w.dt.Size() * 8)},
		{tagCompression, cNone},
		{tagPhotometric, 1},
		{tagStripOffsets, uint64(data)},
		{tagSamplesPerPixel, 1},
		{tagRowsPerStrip, uint64(w.height)},
		{tagStripByteCounts, uint64(w.width) * uint64(w.height) * uint64(w.dt.Size())},
		{tagPlanarConfig, 1},
		{tagSampleFormat, sf},
	}
	b := make([]byte, w.ifdSize())
	if w.big {
		le.PutUint64(b, writerEntries)
		for i, t := range tags {
			e := b[8+i*20:]
			le.PutUint16(e, uint16(t[0]))
			le.PutUint16(e[2:], writerType(uint16(t[0]), true))
			le.PutUint64(e[4:], 1)
			le.PutUint64(e[12:], t[1])
		}
		le.PutUint64(b[8+writerEntries*20:], uint64(next))
		return b
	}
	le.PutUint16(b, writerEntries)
	for i, t := range tags {
		e := b[2+i*12:]
		le.PutUint16(e, uint16(t[0]))
		le.PutUint16(e[2:], writerType(uint16(t[0]), false))
		le.PutUint32(e[4:], 1)
		le.PutUint32(e[8:], uint32(t[1]))
	}
	le.PutUint32(b[2+writerEntries*12:], uint32(next))
	return b
}

// writerType is the field type Stack uses for a tag. Values are
// little-endian, so writing them at full field width is correct for every
// type.
func writerType(tag uint16, big bool) uint16 {
	switch tag {
	case tagImageWidth, tagImageLength, tagRowsPerStrip:
		return tLong
	case tagStripOffsets, tagStripByteCounts:
		if big {
			return tLong8
		}
		return tLong
	}
	return tShort
}

// Uneven writes a sparse uint8 stack whose pages are separated by
// gaps of varying size, defeating the uniform layout (BigTIFF, as it
// exceeds 4 GiB).
func Uneven(path string, width, height, pages int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := stackWriter{plane: int64(width * height), dt: loader.Uint8, width: width, height: height, big: true}
	hdr := []byte("II+\x00\x08\x00\x00\x00\x10\x00\x00\x00\x00\x00\x00\x00")
	pos := int64(16)
	for k := 0; k < pages; k++ {
		ifd := pos
		data := ifd + w.ifdSize()
		next := data + w.plane + 2*int64(k%5)
		if k == pages-1 {
			next = 0
		}
		if _, err := f.WriteAt(w.ifdBytes(data, next), ifd); err != nil {
			return err
		}
		pos = next
		if k == pages-1 {
			pos = data + w.plane
		}
	}
	if _, err := f.WriteAt(hdr, 0); err != nil {
		return err
	}
	return f.Truncate(pos)
}
