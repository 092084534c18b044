// Package cine reads Vision Research Phantom cine files: uncompressed
// frames of 8 or 16 bits per sample (gray, or a colour filter mosaic as
// stored), presented as a T axis ("TYX"), rows top-down. It registers the
// format "cine" with the loader.
//
// The file header ("CI") points to the bitmap header (width, height: a
// positive height stores rows bottom-up, as Windows bitmaps do; bits per
// sample), the camera setup (its legacy 16-bit frame rate gives the T
// spacing) and the table of frame offsets (64-bit, one per frame). Each
// frame starts with an annotation whose first word is its size; the
// samples follow it. The table is read once; a frame's annotation only
// when the frame is, so a 100,000-frame cine opens without touching its
// frames.
package cine

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"

	"vastview/loader"
	"vastview/loader/internal/rawvol"
)

func init() {
	loader.Register(loader.Format{Name: "cine", Match: Match, Open: Open, Exts: []string{".cine", ".cin"}})
}

// The file header's fields, by byte offset.
const (
	offCompression = 4  // uint16: 0 for uncompressed frames
	offImageCount  = 20 // uint32
	offImageHeader = 24 // uint32: the BITMAPINFOHEADER
	offSetup       = 28 // uint32
	offOffsets     = 32 // uint32: the frame offsets
	fileHeaderSize = 44
	bitmapSize     = 40
)

// Match reports whether head starts like a cine file: "CI" and a 44-byte
// file header. It is safe for concurrent use.
func Match(path string, head []byte) bool {
	return len(head) >= fileHeaderSize && string(head[:2]) == "CI" && binary.LittleEndian.Uint16(head[2:]) == fileHeaderSize
}

// Open opens a cine file. The returned Source is safe for concurrent use.
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
	size := st.Size()
	read := func(off, n int64, what string) ([]byte, error) {
		if off < 0 || n < 0 || off > size-n {
			return nil, formatError("its %s (%d bytes at %d) lies beyond the end of the file (%d bytes): %v", what, n, off, size, loader.ErrTruncated)
		}
		b := make([]byte, n)
		if _, err := f.ReadAt(b, off); err != nil && err != io.EOF {
			return nil, formatError("reading its %s: %v", what, err)
		}
		return b, nil
	}
	hdr, err := read(0, fileHeaderSize, "file header")
	if err != nil {
		return nil, err
	}
	if !Match(path, hdr) {
		return nil, formatError("no cine file header")
	}
	le := binary.LittleEndian
	if c := le.Uint16(hdr[offCompression:]); c != 0 {
		return nil, unsupported(fmt.Sprintf("compressed frames (compression %d)", c))
	}
	frames := int64(le.Uint32(hdr[offImageCount:]))
	bmi, err := read(int64(le.Uint32(hdr[offImageHeader:])), bitmapSize, "bitmap header")
	if err != nil {
		return nil, err
	}
	w, h := int64(int32(le.Uint32(bmi[4:]))), int64(int32(le.Uint32(bmi[8:])))
	bits, compression := le.Uint16(bmi[14:]), le.Uint32(bmi[16:])
	bottomUp := h > 0
	if h < 0 {
		h = -h
	}
	if compression != 0 {
		return nil, unsupported(fmt.Sprintf("packed or compressed frames (bitmap compression %d)", compression))
	}
	var dt loader.DType
	switch bits {
	case 8:
		dt = loader.Uint8
	case 16:
		dt = loader.Uint16
	default:
		return nil, unsupported(fmt.Sprintf("%d bits per pixel (gray frames of 8 or 16 bits are read)", bits))
	}
	if w < 1 || h < 1 || w > 1<<20 || h > 1<<20 || frames < 1 {
		return nil, formatError("the header says %d frames of %d×%d samples", frames, w, h)
	}
	frameBytes := w * h * int64(dt.Size())
	// Frame offsets: 8 bytes each, all within the file.
	if frames > size/8 {
		return nil, formatError("the header says %d frames; the file has %d bytes: %v", frames, size, loader.ErrTruncated)
	}
	table, err := read(int64(le.Uint32(hdr[offOffsets:])), 8*frames, "frame offsets")
	if err != nil {
		return nil, err
	}
	offsets := make([]int64, frames)
	for i := range offsets {
		o := le.Uint64(table[8*i:])
		if o > uint64(size) {
			return nil, formatError("frame %d would start at byte %d of %d: %v", i, o, size, loader.ErrTruncated)
		}
		offsets[i] = int64(o)
	}
	spacing, units := []float64{1, 1, 1}, []string{"", "", ""}
	if setup, err := read(int64(le.Uint32(hdr[offSetup:])), 2, "setup"); err == nil {
		if fps := le.Uint16(setup); fps > 0 {
			spacing[0], units[0] = 1/float64(fps), "second"
		}
	}
	shape := []int{int(frames), int(h), int(w)}
	m := loader.NewMeta("cine", "TYX", shape, dt, rawvol.PlaneChunk(shape, false), spacing, units)
	data, err := rawvol.Framed(path, int(frames), frameBytes, func(mf *loader.File, i int) (int64, error) {
		// The annotation's first word is its size; the samples follow it.
		a, err := mf.Bytes(offsets[i], 4)
		if err != nil {
			return 0, err
		}
		return offsets[i] + int64(le.Uint32(a)), nil
	})
	if err != nil {
		return nil, formatError("%v", err)
	}
	if bottomUp {
		data = rawvol.BottomUp(data, int(h), w*int64(dt.Size()))
	}
	return rawvol.New(m, data, false, false)
}

func formatError(format string, args ...any) error {
	return &loader.FormatError{Format: "cine", Msg: fmt.Sprintf(format, args...)}
}

func unsupported(feature string) error {
	return &loader.UnsupportedError{Format: "cine", Feature: feature}
}
