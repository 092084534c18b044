// Package norpix reads Norpix StreamPix sequence files (.seq): frames of
// 8 or 16 bits per sample (packed 10/12-bit data is stored in 16), gray
// or Bayer mosaics as stored, presented as a T axis ("TYX"). It registers
// the format "norpix-seq" with the loader.
//
// The header (magic 0xFEED) gives the frame size and count; frame i
// starts at the header's end (8192 bytes from version 5, StreamPix 6;
// the size the header states before) plus i × TrueImageSize and is
// followed by its time stamp (seconds, milliseconds and, from version 5,
// microseconds). The T spacing is the mean interval between the first and
// the last frame's time stamps (two reads, whatever the length), else the
// header's suggested frame rate. Frames are mapped and read one per chunk.
package norpix

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"

	"vastview/loader"
	"vastview/loader/internal/rawvol"
)

// format is Norpix seq as the registry knows it: the magic 0xFEED as a
// little-endian 32-bit number, and at least 8 bytes.
var format = loader.Format{
	Name: "norpix-seq", Titles: []string{"seq"}, Open: Open, Exts: []string{".seq"},
	Magic: []loader.Magic{{Bytes: "\xed\xfe\x00\x00????"}},
}

func init() { loader.Register(format) }

const magic = 0xFEED

// The header's fields read, by byte offset (after the name and the
// description).
const (
	offVersion    = 28
	offHeaderSize = 32
	offWidth      = 548
	offHeight     = 552
	offBitDepth   = 556
	offImageBytes = 564
	offFormat     = 568
	offFrames     = 572
	offTrueSize   = 580
	offFrameRate  = 584 // float64
	offCompress   = 620
	headerBytes   = 632 // what is read
)

// The image formats read: gray, and a Bayer mosaic (read as gray).
const (
	formatMono      = 100
	formatMonoBayer = 101
)

// Match reports whether head starts with the sequence magic (0xFEED). It
// is safe for concurrent use.
func Match(path string, head []byte) bool { return format.Claims(path, head) }

// Open opens a .seq file. The returned Source is safe for concurrent use.
func Open(ctx context.Context, path string) (loader.Source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, loader.StripPath(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, loader.StripPath(err)
	}
	b := make([]byte, headerBytes)
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, formatError("the file ends inside its header: %v", loader.ErrTruncated)
	}
	le := binary.LittleEndian
	if le.Uint32(b) != magic {
		return nil, formatError("no sequence magic")
	}
	u32 := func(off int) int64 { return int64(le.Uint32(b[off:])) }
	version, start := int32(u32(offVersion)), u32(offHeaderSize)
	if version >= 5 {
		start = 8192
	}
	w, h, depth, imageBytes := u32(offWidth), u32(offHeight), u32(offBitDepth), u32(offImageBytes)
	frames, stride := u32(offFrames), u32(offTrueSize)
	switch format := u32(offFormat); {
	case u32(offCompress) != 0:
		return nil, unsupported(fmt.Sprintf("compressed frames (compression format %d)", u32(offCompress)))
	case format != formatMono && format != formatMonoBayer:
		return nil, unsupported(fmt.Sprintf("image format %d (gray and Bayer frames are read)", format))
	}
	var notes []string
	if u32(offFormat) == formatMonoBayer {
		notes = append(notes, "Bayer colour filter mosaic, shown as stored (gray)")
	}
	var dt loader.DType
	switch depth {
	case 8:
		dt = loader.Uint8
	case 16:
		dt = loader.Uint16
	default:
		return nil, unsupported(fmt.Sprintf("%d bits per sample", depth))
	}
	if w < 1 || h < 1 || w > 1<<20 || h > 1<<20 || frames < 1 || start < headerBytes {
		return nil, formatError("the header says %d frames of %d×%d samples from byte %d", frames, w, h, start)
	}
	frameBytes := w * h * int64(dt.Size())
	if imageBytes < frameBytes || stride < imageBytes {
		return nil, formatError("frames of %d×%d samples in %d bytes, %d apart", w, h, imageBytes, stride)
	}
	// The last frame must be there; a recording cut short (the header
	// allocates frames it may never write) keeps the frames it has.
	if have := (st.Size() - start) / stride; have < frames {
		if have < 1 {
			return nil, formatError("the header says %d frames from byte %d; the file has %d bytes: %v",
				frames, start, st.Size(), loader.ErrTruncated)
		}
		notes = append(notes, fmt.Sprintf("the header promises %d frames; the file holds %d", frames, have))
		frames = have
	}
	spacing, units := []float64{1, 1, 1}, []string{"", "", ""}
	if dt := interval(f, version, start, stride, imageBytes, frames); dt > 0 {
		spacing[0], units[0] = dt, "second"
	} else if fps := math.Float64frombits(le.Uint64(b[offFrameRate:])); fps > 0 && fps < 1e7 {
		spacing[0], units[0] = 1/fps, "second"
	}
	shape := []int{int(frames), int(h), int(w)}
	m := loader.NewMeta("norpix-seq", "TYX", shape, dt, rawvol.PlaneChunk(shape, false), spacing, units)
	m.Notes = notes
	data, err := rawvol.Framed(path, int(frames), frameBytes, func(_ *loader.File, i int) (int64, error) {
		return start + int64(i)*stride, nil
	})
	if err != nil {
		return nil, formatError("%v", err)
	}
	return rawvol.New(m, data, false, false)
}

// interval is the mean time between frames from the first and the last
// frame's time stamps, in seconds (0 when they do not say).
func interval(f *os.File, version int32, start, stride, imageBytes, frames int64) float64 {
	if frames < 2 || stride-imageBytes < 6 {
		return 0
	}
	stamp := func(i int64) (us int64, ok bool) { // microseconds
		var b [8]byte
		if _, err := f.ReadAt(b[:], start+i*stride+imageBytes); err != nil {
			return 0, false
		}
		le := binary.LittleEndian
		us = int64(int32(le.Uint32(b[:])))*1e6 + int64(le.Uint16(b[4:]))*1e3
		if version >= 5 && stride-imageBytes >= 8 {
			us += int64(le.Uint16(b[6:]))
		}
		return us, true
	}
	t0, ok0 := stamp(0)
	t1, ok1 := stamp(frames - 1)
	if !ok0 || !ok1 || t1 <= t0 {
		return 0
	}
	return float64(t1-t0) / 1e6 / float64(frames-1)
}

func formatError(format string, args ...any) error {
	return loader.Errorf("norpix-seq", format, args...)
}

func unsupported(feature string) error {
	return &loader.UnsupportedError{Format: "norpix-seq", Feature: feature}
}
