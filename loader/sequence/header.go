package sequence

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image/color"
	"image/jpeg"
	"io"
	"os"

	"vastview/loader"
)

// kind is a frame file's format.
type kind uint8

const (
	kindUnknown kind = iota
	kindPNG
	kindJPEG
	kindTIFF
)

// maxFrameBytes bounds the decoded size of one frame.
const maxFrameBytes = 1 << 31

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// sniff identifies a frame file by its first bytes.
func sniff(head []byte) kind {
	switch {
	case bytes.HasPrefix(head, pngMagic):
		return kindPNG
	case bytes.HasPrefix(head, []byte{0xff, 0xd8}):
		return kindJPEG
	case bytes.HasPrefix(head, []byte("II*\x00")), bytes.HasPrefix(head, []byte("MM\x00*")),
		bytes.HasPrefix(head, []byte("II+\x00")), bytes.HasPrefix(head, []byte("MM\x00+")):
		return kindTIFF
	}
	return kindUnknown
}

// frameInfo is what a frame's header says about its samples.
type frameInfo struct {
	kind    kind
	w, h, c int
	dtype   loader.DType
	palette bool // samples are palette indices
}

// same reports whether frames described by f and g can share one array.
func (f *frameInfo) same(g *frameInfo) bool {
	return f.w == g.w && f.h == g.h && f.c == g.c && f.dtype == g.dtype && f.palette == g.palette
}

// bytes is the size of the frame's samples.
func (f *frameInfo) bytes() int { return f.w * f.h * f.c * f.dtype.Size() }

func (f *frameInfo) String() string {
	s := fmt.Sprintf("%dx%d %s", f.w, f.h, f.dtype)
	switch {
	case f.palette:
		return s + " palette"
	case f.c == 1:
		return s
	case f.c == 2:
		return s + " gray+alpha"
	case f.c == 3:
		return s + " RGB"
	case f.c == 4:
		return s + " RGBA"
	}
	return fmt.Sprintf("%s %d channels", s, f.c)
}

// check rejects frames too large to hold in one chunk.
func (f *frameInfo) check() error {
	if f.w <= 0 || f.h <= 0 || f.c <= 0 {
		return fmt.Errorf("empty image %dx%d", f.w, f.h)
	}
	if uint64(f.w)*uint64(f.h)*uint64(f.c)*uint64(f.dtype.Size()) > maxFrameBytes {
		return fmt.Errorf("%v image is too large for one frame", f)
	}
	return nil
}

// parsePNGHeader reads the IHDR chunk that starts every PNG file.
func parsePNGHeader(data []byte) (frameInfo, error) {
	if len(data) < 33 || !bytes.HasPrefix(data, pngMagic) {
		return frameInfo{}, errors.New("png: truncated header")
	}
	if binary.BigEndian.Uint32(data[8:]) != 13 || string(data[12:16]) != "IHDR" {
		return frameInfo{}, errors.New("png: missing IHDR chunk")
	}
	w := binary.BigEndian.Uint32(data[16:])
	h := binary.BigEndian.Uint32(data[20:])
	depth, ctype := data[24], data[25]
	if w == 0 || h == 0 || w > 1<<31-1 || h > 1<<31-1 {
		return frameInfo{}, fmt.Errorf("png: bad size %dx%d", w, h)
	}
	f := frameInfo{kind: kindPNG, w: int(w), h: int(h), dtype: loader.Uint8}
	if depth == 16 {
		f.dtype = loader.Uint16
	}
	ok := depth == 8 || depth == 16
	switch ctype {
	case 0:
		f.c = 1
		ok = ok || depth == 1 || depth == 2 || depth == 4
	case 2:
		f.c = 3
	case 3:
		f.c, f.palette = 1, true
		ok = depth == 1 || depth == 2 || depth == 4 || depth == 8
	case 4:
		f.c = 2
	case 6:
		f.c = 4
	default:
		ok = false
	}
	if !ok {
		return frameInfo{}, fmt.Errorf("png: bad colour type %d with bit depth %d", ctype, depth)
	}
	return f, f.check()
}

// parseJPEGHeader reads a JPEG file's header up to its frame header.
func parseJPEGHeader(r io.Reader) (frameInfo, error) {
	cfg, err := jpeg.DecodeConfig(r)
	if err != nil {
		return frameInfo{}, err
	}
	f := frameInfo{kind: kindJPEG, w: cfg.Width, h: cfg.Height, dtype: loader.Uint8}
	switch cfg.ColorModel {
	case color.GrayModel:
		f.c = 1
	case color.YCbCrModel, color.RGBAModel:
		f.c = 3
	default:
		return frameInfo{}, &loader.UnsupportedError{Format: "jpeg", Feature: "CMYK colour"}
	}
	return f, f.check()
}

// parseHeader reads the header of a PNG or JPEG frame held in memory.
func parseHeader(data []byte) (frameInfo, error) {
	switch sniff(data) {
	case kindPNG:
		return parsePNGHeader(data)
	case kindJPEG:
		return parseJPEGHeader(bytes.NewReader(data))
	}
	return frameInfo{}, errNotImage
}

var errNotImage = errors.New("not a PNG, JPEG or TIFF file")

// readHeader reads the header of the frame file at path, touching only its
// first bytes (and, for TIFF, opening it with loader.Open).
func readHeader(ctx context.Context, path string) (frameInfo, error) {
	var head [33]byte
	n, err := readHead(path, head[:])
	if err != nil {
		return frameInfo{}, err
	}
	switch sniff(head[:n]) {
	case kindPNG:
		return parsePNGHeader(head[:n])
	case kindJPEG:
		f, err := os.Open(path)
		if err != nil {
			return frameInfo{}, loader.StripPath(err)
		}
		defer f.Close()
		return parseJPEGHeader(bufio.NewReaderSize(f, 4096))
	case kindTIFF:
		return tiffHeader(ctx, path)
	}
	return frameInfo{}, errNotImage
}
