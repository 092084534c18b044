package sequence

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/color"
	"image/jpeg"
	"io"
	"os"
	"strings"

	"vastview/loader"
)

// kind is a frame file's format.
type kind uint8

const (
	kindUnknown kind = iota
	kindPNG
	kindJPEG
	kindTIFF
	kindBMP
	kindGIF
)

// kindNames are the format names of the kinds, as in Meta.Format.
var kindNames = [...]string{"", "png", "jpeg", "tiff", "bmp", "gif"}

func (k kind) String() string { return kindNames[k] }

// Limits on what one picture may hold: its samples, the pixels handed to
// image decoders (which keep up to 8 bytes per pixel besides the samples),
// and the file read whole to decode it.
const (
	maxFrameBytes = 1 << 31
	maxPixels     = 1 << 29
	maxFileBytes  = 1 << 31
)

var (
	pngMagic  = []byte("\x89PNG\r\n\x1a\n")
	jpegMagic = []byte{0xff, 0xd8, 0xff}
)

// sniff identifies a frame file by its first bytes.
func sniff(head []byte) kind {
	switch {
	case bytes.HasPrefix(head, pngMagic):
		return kindPNG
	case bytes.HasPrefix(head, jpegMagic):
		return kindJPEG
	case bytes.HasPrefix(head, []byte("II*\x00")), bytes.HasPrefix(head, []byte("MM\x00*")),
		bytes.HasPrefix(head, []byte("II+\x00")), bytes.HasPrefix(head, []byte("MM\x00+")):
		return kindTIFF
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return kindGIF
	case isBMP(head):
		return kindBMP
	}
	return kindUnknown
}

// frameInfo is what a file's header says about the samples it becomes.
// PNG, JPEG, BMP and GIF pictures become one gray plane (c 1) or the red,
// green and blue planes of colour pixels (c 3, rgb); alpha is dropped and
// palettes are expanded (see Picture). TIFF frames keep what loader/tiff
// makes of them.
type frameInfo struct {
	kind    kind
	w, h, c int
	dtype   loader.DType
	rgb     bool // the c planes are red, green and blue
	// depth is the bit depth of gray samples stored with fewer bits than
	// their type (1, 2 or 4), whose stored values are kept; else 0.
	depth   int
	palette bool // TIFF: samples are palette indices (Meta.Palette)
	// minBytes is the least file size that can hold the pixels the header
	// promises (0 when unknown).
	minBytes int64
}

// same reports whether frames described by f and g can share one array.
func (f *frameInfo) same(g *frameInfo) bool {
	return f.w == g.w && f.h == g.h && f.c == g.c && f.dtype == g.dtype &&
		f.rgb == g.rgb && f.depth == g.depth && f.palette == g.palette
}

// bytes is the size of the frame's samples.
func (f *frameInfo) bytes() int { return f.w * f.h * f.c * f.dtype.Size() }

func (f *frameInfo) String() string {
	s := fmt.Sprintf("%dx%d %s", f.w, f.h, f.dtype)
	if f.depth > 0 {
		s += fmt.Sprintf(" (%d-bit)", f.depth)
	}
	switch {
	case f.palette:
		return s + " palette"
	case f.rgb:
		return s + " RGB"
	case f.c == 1:
		return s
	}
	return fmt.Sprintf("%s %d channels", s, f.c)
}

// check rejects pictures too large to hold in one chunk.
func (f *frameInfo) check() error {
	if f.w <= 0 || f.h <= 0 || f.c <= 0 {
		return fmt.Errorf("%s: empty image %dx%d", f.kind, f.w, f.h)
	}
	if uint64(f.w)*uint64(f.h)*uint64(f.c)*uint64(f.dtype.Size()) > maxFrameBytes {
		return fmt.Errorf("%s: %v image is too large for one frame", f.kind, f)
	}
	if f.kind != kindTIFF && f.kind != kindGIF && uint64(f.w)*uint64(f.h) > maxPixels {
		return fmt.Errorf("%s: %dx%d image is too large to decode at once", f.kind, f.w, f.h)
	}
	return nil
}

// fits rejects a header that promises more pixels than a file of size
// bytes can hold.
func (f *frameInfo) fits(size int64) error {
	if f.minBytes > size {
		return fmt.Errorf("%s: a %dx%d image needs at least %d bytes, the file has %d: %w",
			f.kind, f.w, f.h, f.minBytes, size, loader.ErrTruncated)
	}
	return nil
}

// parseJPEGHeader reads a JPEG file's header up to its frame header.
func parseJPEGHeader(r *bufio.Reader) (frameInfo, error) {
	cfg, err := jpeg.DecodeConfig(r)
	if err != nil {
		return frameInfo{}, formatError(kindJPEG, "header", err)
	}
	f := frameInfo{kind: kindJPEG, w: cfg.Width, h: cfg.Height, dtype: loader.Uint8}
	switch cfg.ColorModel {
	case color.GrayModel:
		f.c = 1
	case color.YCbCrModel, color.RGBAModel:
		f.c, f.rgb = 3, true
	default:
		return frameInfo{}, &loader.UnsupportedError{Format: "jpeg", Feature: "CMYK colour"}
	}
	// Every 8x8 block of the first component takes at least one bit.
	blocks := int64((f.w+7)/8) * int64((f.h+7)/8)
	f.minBytes = (blocks + 7) / 8
	return f, f.check()
}

// parseHeader reads the header of a PNG, JPEG or BMP picture held in
// memory.
func parseHeader(data []byte) (frameInfo, error) {
	switch sniff(data) {
	case kindPNG:
		return parsePNG(data, bytes.NewReader(data), int64(len(data)))
	case kindJPEG:
		return parseJPEGHeader(bufio.NewReader(bytes.NewReader(data)))
	case kindBMP:
		return parseBMP(data)
	}
	return frameInfo{}, errNotImage
}

var errNotImage = errors.New("not a PNG, JPEG, GIF, BMP or TIFF file")

// headBytes is how much of a frame file readHeader reads at first: a PNG's
// IHDR chunk, or a BMP's headers and palette.
const headBytes = bmpMaxHead

// readHeader reads the header of the frame file at path, touching only its
// first bytes (and, for a palette PNG, the chunk headers up to its
// palette; for TIFF, opening it with loader.Open; a GIF is read whole),
// and checks that the file is large enough for the pixels it promises.
func readHeader(ctx context.Context, path string) (frameInfo, error) {
	var head [headBytes]byte
	n, size, err := readHead(path, head[:])
	if err != nil {
		return frameInfo{}, err
	}
	f, err := parseHead(ctx, path, head[:n], size)
	if err != nil {
		return frameInfo{}, err
	}
	return f, f.fits(size)
}

// parseHead reads the header of the file at path, of size bytes, whose
// first bytes are head.
func parseHead(ctx context.Context, path string, head []byte, size int64) (frameInfo, error) {
	switch sniff(head) {
	case kindPNG:
		return readPNGHeader(path, head, size)
	case kindJPEG:
		f, err := os.Open(path)
		if err != nil {
			return frameInfo{}, loader.StripPath(err)
		}
		defer f.Close()
		return parseJPEGHeader(bufio.NewReaderSize(f, 4096))
	case kindBMP:
		return parseBMP(head)
	case kindGIF:
		return gifHeader(path)
	case kindTIFF:
		return tiffHeader(ctx, path)
	}
	return frameInfo{}, errNotImage
}

// formatError makes an error of a decoder start with the format's name,
// and says that a file ending early (in the header or the image data, as
// part says) is truncated.
func formatError(k kind, part string, err error) error {
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return fmt.Errorf("%s: %s ends early: %w", k, part, loader.ErrTruncated)
	case !strings.HasPrefix(err.Error(), k.String()+":"):
		return fmt.Errorf("%s: %w", k, err)
	}
	return err
}
