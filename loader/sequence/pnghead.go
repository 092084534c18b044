package sequence

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"vastview/loader"
)

// parsePNG reads the IHDR chunk that starts every PNG file (in head) and,
// for a palette image, its PLTE chunk from r, a file of size bytes.
func parsePNG(head []byte, r io.ReaderAt, size int64) (frameInfo, error) {
	f, ctype, err := parseIHDR(head)
	if err != nil {
		return frameInfo{}, err
	}
	if ctype == 3 {
		pal, err := readPLTE(r, size)
		if err != nil {
			return frameInfo{}, err
		}
		f.c, f.rgb, f.depth = paletteLayout(pal, f.depth)
	}
	if err := f.check(); err != nil {
		return frameInfo{}, err
	}
	return f, f.fits(size)
}

// readPNGHeader reads the header of the PNG file at path, of size bytes,
// whose first bytes are head.
func readPNGHeader(path string, head []byte, size int64) (frameInfo, error) {
	if len(head) >= 26 && head[25] != 3 {
		return parsePNG(head, nil, size) // no palette: IHDR says it all
	}
	file, err := os.Open(path)
	if err != nil {
		return frameInfo{}, loader.StripPath(err)
	}
	defer file.Close()
	return parsePNG(head, file, size)
}

// maxDeflateRatio is the most bytes one byte of a deflate stream expands to
// (a 258-byte match in two bits).
const maxDeflateRatio = 1032

// parseIHDR reads the IHDR chunk; depth in the result is the stored bit
// depth of gray samples below 8 bits (or of palette indices, for ctype 3).
func parseIHDR(data []byte) (f frameInfo, ctype byte, err error) {
	if len(data) < 33 || !bytes.HasPrefix(data, pngMagic) {
		return frameInfo{}, 0, errors.New("png: truncated header")
	}
	if binary.BigEndian.Uint32(data[8:]) != 13 || string(data[12:16]) != "IHDR" {
		return frameInfo{}, 0, errors.New("png: missing IHDR chunk")
	}
	w := binary.BigEndian.Uint32(data[16:])
	h := binary.BigEndian.Uint32(data[20:])
	depth, ctype := int(data[24]), data[25]
	if w == 0 || h == 0 || w > 1<<31-1 || h > 1<<31-1 {
		return frameInfo{}, 0, fmt.Errorf("png: bad size %dx%d", w, h)
	}
	f = frameInfo{kind: kindPNG, w: int(w), h: int(h), c: 1, dtype: loader.Uint8}
	if depth == 16 {
		f.dtype = loader.Uint16
	}
	spp, ok := pngSamples(ctype, depth)
	if !ok {
		return frameInfo{}, 0, fmt.Errorf("png: bad colour type %d with bit depth %d", ctype, depth)
	}
	if ctype == 2 || ctype == 6 {
		f.c, f.rgb = 3, true
	}
	if depth < 8 {
		f.depth = depth
	}
	// The pixels' bytes, without the filter byte of each row.
	f.minBytes = leastBytes(uint64(w)*uint64(h), uint64(spp*depth), 8*maxDeflateRatio)
	return f, ctype, nil
}

// pngSamples returns the samples per pixel of a PNG colour type, and
// whether the bit depth is allowed with it.
func pngSamples(ctype byte, depth int) (spp int, ok bool) {
	full := depth == 8 || depth == 16
	low := depth == 1 || depth == 2 || depth == 4
	switch ctype {
	case 0:
		return 1, full || low
	case 2:
		return 3, full
	case 3:
		return 1, low || depth == 8
	case 4:
		return 2, full
	case 6:
		return 4, full
	}
	return 0, false
}

// readPLTE walks the chunks of a PNG file of size bytes up to its PLTE
// chunk and returns the palette. It reads chunk headers only, so the file
// may be any size.
func readPLTE(r io.ReaderAt, size int64) ([][3]uint8, error) {
	off := int64(33)
	var hdr [8]byte
	for {
		if off+12 > size {
			return nil, fmt.Errorf("png: file ends at %d bytes, before the palette: %w", size, loader.ErrTruncated)
		}
		if _, err := r.ReadAt(hdr[:], off); err != nil {
			return nil, fmt.Errorf("png: reading chunk at offset %d: %w", off, err)
		}
		n := int64(binary.BigEndian.Uint32(hdr[:4]))
		typ := string(hdr[4:])
		if n > 1<<31-1 || n > size-off-12 {
			return nil, fmt.Errorf("png: chunk %q of %d bytes at offset %d runs past the end: %w", typ, n, off, loader.ErrTruncated)
		}
		switch typ {
		case "PLTE":
			return parsePLTE(r, off+8, n)
		case "IDAT", "IEND":
			return nil, errors.New("png: palette image without a PLTE chunk before its data")
		}
		off += 12 + n
	}
}

// parsePLTE reads the n bytes of a PLTE chunk at off.
func parsePLTE(r io.ReaderAt, off, n int64) ([][3]uint8, error) {
	if n == 0 || n%3 != 0 || n > 3*256 {
		return nil, fmt.Errorf("png: bad PLTE length %d", n)
	}
	b := make([]byte, n)
	if _, err := r.ReadAt(b, off); err != nil {
		return nil, fmt.Errorf("png: reading the palette: %w", err)
	}
	pal := make([][3]uint8, n/3)
	for i := range pal {
		pal[i] = [3]uint8{b[3*i], b[3*i+1], b[3*i+2]}
	}
	return pal, nil
}
