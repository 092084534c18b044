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
	"math"
	"os"
	"time"

	"vastview/loader"
	"vastview/loader/internal/rawvol"
)

// format is cine as the registry knows it: "CI" and the file header's
// size, 44 (","), as a little-endian 16-bit number, and a whole header.
var format = loader.Format{
	Name: "cine", Titles: []string{"cine"}, Exts: []string{".cine", ".cin"},
	Magic: []loader.Magic{{Bytes: "CI,\x00" + "????????????????????????????????????????"}},
}

// init registers the format; Open, which checks the signature again
// through Match, is set here to keep the declaration free of a cycle.
func init() {
	format.Open = Open
	loader.Register(format)
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
func Match(path string, head []byte) bool { return format.Claims(path, head) }

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
	// 0: gray or colour-interpolated frames; 2: the raw frames of a colour
	// camera, its filter mosaic as stored (read as gray); 1 is JPEG.
	fileCompression := le.Uint16(hdr[offCompression:])
	if fileCompression != 0 && fileCompression != 2 {
		return nil, unsupported(fmt.Sprintf("compressed frames (compression %d)", fileCompression))
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
	// Packed frames: 10-bit (Phantom's log-encoded codes) or 12-bit
	// samples, most significant bit first, rows top down (as PIMS and
	// pycine read them).
	packed := map[uint32]int{256: 10, 1024: 12}[compression]
	switch {
	case compression == 0:
	case packed > 0:
		bits, bottomUp = 16, false
	default:
		return nil, unsupported(fmt.Sprintf("compressed frames (bitmap compression %d)", compression))
	}
	var dt loader.DType
	switch bits {
	case 8:
		dt = loader.Uint8
	case 16:
		dt = loader.Uint16
	case 24, 48:
		return nil, unsupported(fmt.Sprintf("colour frames of %d bits per pixel (gray and raw mosaic frames of 8 or 16 bits are read)", bits))
	default:
		return nil, unsupported(fmt.Sprintf("%d bits per pixel (gray frames of 8 or 16 bits are read)", bits))
	}
	if w < 1 || h < 1 || w > 1<<20 || h > 1<<20 || frames < 1 {
		return nil, formatError("the header says %d frames of %d×%d samples", frames, w, h)
	}
	frameBytes := w * h * int64(dt.Size())
	if packed > 0 {
		frameBytes = rawvol.PackedBytes(w*h, packed)
	}
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
	su := readSetup(f, size, int64(le.Uint32(hdr[offSetup:])), int64(le.Uint32(hdr[offOffsets:])), int(frames))
	if su.fps > 0 {
		// The period at the precision of the whole frame rate the file
		// stores: the shortest decimal whose reciprocal rounds to it.
		fps := su.fps
		_, spacing[0] = loader.Decimal(1/fps, func(x float64) bool { return math.Round(1/x) == fps })
		units[0] = "second"
	}
	shape := []int{int(frames), int(h), int(w)}
	m := loader.NewMeta("cine", "TYX", shape, dt, rawvol.PlaneChunk(shape, false), spacing, units)
	m.Notes = su.notes(int(bits), packed, fileCompression == 2)
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
	if packed > 0 {
		data = rawvol.Unpacked(data, frameBytes, w*h*2, func(dst, src []byte) { rawvol.UnpackMSB(dst, src, packed) })
	}
	if bottomUp {
		data = rawvol.BottomUp(data, int(h), w*int64(dt.Size()))
	}
	return rawvol.New(m, data, false, false)
}

// The camera setup's fields read, by byte offset, and the tagged blocks
// that may follow it.
const (
	setupFrameRate16 = 0   // uint16: frames per second (legacy)
	setupMark        = 140 // "ST"
	setupLength      = 142 // uint16: the setup's size; tagged blocks follow
	setupFrameRate   = 768 // uint32: frames per second
	setupCFA         = 808 // uint32: the colour filter array
	setupRealBPP     = 896 // uint32: the sensor's bits per sample
	tagTimeOnly      = 1002
	tagRangeData     = 1004 // ends the tagged blocks
)

// setup is what the camera setup and its tagged blocks say.
type setup struct {
	fps     float64
	cfa     uint32
	realBPP int
	first   time.Time // frame 0's time stamp, when the file keeps them
}

// readSetup reads what it can of the setup at off (the tagged blocks end
// before the frame offsets at end); a short or odd setup gives what its
// first fields say.
func readSetup(f io.ReaderAt, size, off, end int64, frames int) setup {
	var su setup
	b := make([]byte, setupRealBPP+4)
	if off < 0 || off > size {
		return su
	}
	n, _ := f.ReadAt(b, off)
	b = b[:n]
	le := binary.LittleEndian
	if len(b) >= 2 {
		su.fps = float64(le.Uint16(b[setupFrameRate16:]))
	}
	if len(b) < setupLength+2 || string(b[setupMark:setupMark+2]) != "ST" {
		return su
	}
	length := int64(le.Uint16(b[setupLength:]))
	if length >= setupFrameRate+4 && len(b) >= setupFrameRate+4 {
		if fps := le.Uint32(b[setupFrameRate:]); fps > 0 {
			su.fps = float64(fps)
		}
	}
	if length >= setupCFA+4 && len(b) >= setupCFA+4 {
		su.cfa = le.Uint32(b[setupCFA:])
	}
	if length >= setupRealBPP+4 && len(b) >= setupRealBPP+4 {
		su.realBPP = int(le.Uint32(b[setupRealBPP:]))
	}
	// Tagged blocks: size, type, whether another follows. Only the first
	// time stamp is read.
	for at, i := off+length, 0; i < 64 && at+8 <= end && at+8 <= size; i++ {
		var tb [16]byte
		if n, _ := f.ReadAt(tb[:], at); n < 8 {
			break
		}
		bs, typ, more := int64(le.Uint32(tb[:])), le.Uint16(tb[4:]), le.Uint16(tb[6:])
		if typ == tagRangeData || bs < 8 {
			break
		}
		if typ == tagTimeOnly && bs >= 16 && (bs-8)/8 == int64(frames) {
			// 32.32 fixed point seconds since 1970, UTC.
			t := le.Uint64(tb[8:])
			su.first = time.Unix(int64(t>>32), int64(float64(t&0xffffffff)/(1<<32)*1e9)).UTC()
		}
		if more == 0 {
			break
		}
		at += bs
	}
	return su
}

// cfaNames are the colour filter arrays a setup's CFA field names (its low
// byte), by their first two rows.
var cfaNames = map[uint32]string{1: "GBRG/RGGB", 2: "BGGR/GRBG", 3: "GB/RG", 4: "RG/GB"}

// notes says what a user of the frames should know that the array does
// not: the sensor's bits, a colour filter mosaic shown as stored, when the
// recording started.
func (su setup) notes(bits, packed int, raw bool) []string {
	var n []string
	switch {
	case packed == 10:
		n = append(n, "packed 10-bit samples: the camera's log-encoded codes, shown as stored (not linearized)")
	case packed > 0:
		n = append(n, fmt.Sprintf("packed %d-bit samples, read as 16-bit", packed))
	case su.realBPP > 0 && su.realBPP < bits:
		n = append(n, fmt.Sprintf("sensor samples of %d bits, stored in %d", su.realBPP, bits))
	}
	if c := su.cfa & 0xff; c != 0 || raw {
		name := cfaNames[c]
		if name == "" {
			name = fmt.Sprintf("code %d", c)
		}
		n = append(n, fmt.Sprintf("colour filter mosaic %s, shown as stored (gray)", name))
	}
	if !su.first.IsZero() {
		n = append(n, "frame 0 time stamp "+su.first.Format("2006-01-02 15:04:05.000000")+" (camera clock)")
	}
	return n
}

func formatError(format string, args ...any) error {
	return loader.Errorf("cine", format, args...)
}

func unsupported(feature string) error {
	return &loader.UnsupportedError{Format: "cine", Feature: feature}
}
