package sequence

import (
	"encoding/binary"
	"fmt"

	"vastview/loader"
)

// BMP headers golang.org/x/image/bmp reads: BITMAPINFOHEADER, V4 and V5.
const (
	bmpFileHeader = 14
	bmpMaxHead    = bmpFileHeader + 124 + 4*256 // with the largest palette
)

// bmpHeaderSizes are the lengths of the BMP info headers that exist; isBMP
// accepts them all, so that parseBMP can name the unsupported ones.
var bmpHeaderSizes = map[uint32]bool{12: true, 16: true, 40: true, 52: true, 56: true, 64: true, 108: true, 124: true}

// isBMP reports whether head starts a BMP file: "BM" and a known info
// header length.
func isBMP(head []byte) bool {
	return len(head) >= 18 && head[0] == 'B' && head[1] == 'M' &&
		bmpHeaderSizes[binary.LittleEndian.Uint32(head[14:])]
}

// bmpCompression names the BMP compression methods.
var bmpCompression = map[uint32]string{1: "RLE8", 2: "RLE4", 3: "bit-field", 4: "JPEG", 5: "PNG", 6: "alpha bit-field"}

// parseBMP reads a BMP file's headers and palette from its first bytes
// (up to bmpMaxHead of them).
func parseBMP(head []byte) (frameInfo, error) {
	le := binary.LittleEndian
	if len(head) < bmpFileHeader+4 || !isBMP(head) {
		return frameInfo{}, fmt.Errorf("bmp: truncated header: %w", loader.ErrTruncated)
	}
	offset, hsize := le.Uint32(head[10:]), le.Uint32(head[14:])
	if hsize != 40 && hsize != 108 && hsize != 124 {
		return frameInfo{}, &loader.UnsupportedError{Format: "bmp", Feature: fmt.Sprintf("%d-byte info header", hsize)}
	}
	if len(head) < bmpFileHeader+int(hsize) {
		return frameInfo{}, fmt.Errorf("bmp: truncated header: %w", loader.ErrTruncated)
	}
	w, h := int64(int32(le.Uint32(head[18:]))), int64(int32(le.Uint32(head[22:])))
	planes, bpp, comp := le.Uint16(head[26:]), int(le.Uint16(head[28:])), le.Uint32(head[30:])
	h = max(h, -h) // negative: rows stored top-down
	if w <= 0 || h <= 0 || w > 1<<31-1 || h > 1<<31-1 {
		return frameInfo{}, fmt.Errorf("bmp: bad size %dx%d", w, h)
	}
	if planes != 1 {
		return frameInfo{}, fmt.Errorf("bmp: %d planes", planes)
	}
	if comp == 3 && bpp == 32 && hsize > 40 && defaultMasks(head) {
		comp = 0 // bit fields that say what no compression means
	}
	if comp != 0 {
		name := bmpCompression[comp]
		if name == "" {
			name = fmt.Sprint("method ", comp)
		}
		return frameInfo{}, &loader.UnsupportedError{Format: "bmp", Feature: name + " compression"}
	}
	f := frameInfo{kind: kindBMP, w: int(w), h: int(h), c: 3, rgb: true, dtype: loader.Uint8}
	pixels := int64(bmpFileHeader) + int64(hsize)
	switch bpp {
	case 1, 2, 4, 8:
		pal, err := bmpPalette(head, hsize, bpp)
		if err != nil {
			return frameInfo{}, err
		}
		f.c, f.rgb, f.depth = paletteLayout(pal, bpp)
		pixels += 4 * int64(len(pal))
	case 24, 32:
	default:
		return frameInfo{}, &loader.UnsupportedError{Format: "bmp", Feature: fmt.Sprintf("%d bits per pixel", bpp)}
	}
	if int64(offset) != pixels {
		return frameInfo{}, &loader.UnsupportedError{Format: "bmp", Feature: fmt.Sprintf("pixel data at offset %d, not right after the headers at %d", offset, pixels)}
	}
	if err := f.check(); err != nil {
		return frameInfo{}, err
	}
	row := (w*int64(bpp) + 31) / 32 * 4
	f.minBytes = int64(offset) + row*h
	return f, nil
}

// defaultMasks reports whether the bit fields of a 32-bit BMP's V4 or V5
// header are the plain BGRA layout.
func defaultMasks(head []byte) bool {
	if len(head) < 70 {
		return false
	}
	le := binary.LittleEndian
	return le.Uint32(head[54:]) == 0xff0000 && le.Uint32(head[58:]) == 0xff00 &&
		le.Uint32(head[62:]) == 0xff && le.Uint32(head[66:]) == 0xff000000
}

// bmpPalette reads the palette that follows the info header.
func bmpPalette(head []byte, hsize uint32, bpp int) ([][3]uint8, error) {
	n := int(binary.LittleEndian.Uint32(head[46:]))
	if n == 0 {
		n = 1 << bpp
	}
	if n > 1<<bpp {
		return nil, fmt.Errorf("bmp: %d colours for %d bits per pixel", n, bpp)
	}
	start := bmpFileHeader + int(hsize)
	if len(head) < start+4*n {
		return nil, fmt.Errorf("bmp: truncated palette: %w", loader.ErrTruncated)
	}
	pal := make([][3]uint8, n)
	for i := range pal {
		b := head[start+4*i:]
		pal[i] = [3]uint8{b[2], b[1], b[0]}
	}
	return pal, nil
}
