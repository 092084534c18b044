package dicom

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"image"
	"image/jpeg"
	"io"
	"os"
	"path/filepath"
	"strings"

	"vastview/loader"
	"vastview/loader/internal/ycc"
)

// frameIndex is where an encapsulated file's frames are: for each frame,
// the fragments (offset in the file, length) that hold it.
type frameIndex struct {
	frames [][][2]int64
	err    error
}

// readFrame decodes frame i of file sl into dst (planar samples:
// channel, row, column; little-endian).
func (s *source) readFrame(sl *slice, i int, dst []byte) error {
	f, err := os.Open(sl.path)
	if err != nil {
		return loader.StripPath(err)
	}
	defer f.Close()
	if sl.encapsulated {
		idx := s.fragments(f, sl)
		if idx.err != nil {
			return idx.err
		}
		if i >= len(idx.frames) {
			return formatError("frame %d of %d: the pixel data holds %d", i, sl.frames, len(idx.frames))
		}
		var data []byte
		for _, fr := range idx.frames[i] {
			b := make([]byte, fr[1])
			if _, err := f.ReadAt(b, fr[0]); err != nil {
				return formatError("frame %d: %v", i, loader.StripPath(err))
			}
			if data == nil {
				data = b
			} else {
				data = append(data, b...)
			}
		}
		return decodeCompressed(sl, data, dst)
	}
	fb := sl.frameBytes()
	raw := make([]byte, fb)
	if sl.deflated {
		st, err := f.Stat()
		if err != nil {
			return loader.StripPath(err)
		}
		h, err := readHeader(f, st.Size())
		if err != nil {
			return err
		}
		zr := flate.NewReader(io.NewSectionReader(f, h.dataAt, st.Size()-h.dataAt))
		defer zr.Close()
		if _, err := io.CopyN(io.Discard, zr, sl.pixelAt+int64(i)*fb); err != nil {
			return formatError("deflated pixel data: %v", err)
		}
		if _, err := io.ReadFull(zr, raw); err != nil {
			return formatError("deflated pixel data ends early: %v", errTruncated)
		}
	} else if _, err := f.ReadAt(raw, sl.pixelAt+int64(i)*fb); err != nil {
		return formatError("frame %d: %v", i, errTruncated)
	}
	if sl.bigEnd && sl.bitsAlloc > 8 {
		loader.SwapBytes(raw, sl.bitsAlloc/8)
	}
	if sl.spp == 3 && sl.planar == 0 {
		interleavedToPlanar(raw, dst, sl.rows*sl.cols, 3, sl.bitsAlloc/8)
	} else {
		copy(dst, raw)
	}
	return nil
}

// interleavedToPlanar copies n pixels of c samples of es bytes each from
// src (pixel by pixel) to dst (channel by channel).
func interleavedToPlanar(src, dst []byte, n, c, es int) {
	for p := 0; p < n; p++ {
		for k := 0; k < c; k++ {
			copy(dst[(k*n+p)*es:(k*n+p+1)*es], src[(p*c+k)*es:(p*c+k+1)*es])
		}
	}
}

// fragments returns the fragment index of an encapsulated file, building
// it when first asked.
func (s *source) fragments(f *os.File, sl *slice) *frameIndex {
	s.mu.Lock()
	idx := s.frames[sl]
	s.mu.Unlock()
	if idx != nil {
		return idx
	}
	idx = buildIndex(f, sl)
	s.mu.Lock()
	s.frames[sl] = idx
	s.mu.Unlock()
	return idx
}

// buildIndex reads the item headers of an encapsulated pixel data
// element: the basic offset table, then the fragments up to the sequence
// delimiter, and assigns fragments to frames.
func buildIndex(r io.ReaderAt, sl *slice) *frameIndex {
	order := binary.ByteOrder(binary.LittleEndian)
	if sl.bigEnd {
		order = binary.BigEndian
	}
	pos := sl.pixelAt
	var hdr [8]byte
	var bot []uint32
	var frags [][2]int64
	for n := 0; ; n++ {
		if pos+8 > sl.size {
			if n > 0 && len(frags) > 0 {
				break // no sequence delimiter: the fragments up to the end
			}
			return &frameIndex{err: formatError("encapsulated pixel data ends early: %v", errTruncated)}
		}
		if _, err := r.ReadAt(hdr[:], pos); err != nil {
			return &frameIndex{err: formatError("encapsulated pixel data: %v", loader.StripPath(err))}
		}
		tag := uint32(order.Uint16(hdr[:]))<<16 | uint32(order.Uint16(hdr[2:]))
		length := int64(order.Uint32(hdr[4:]))
		pos += 8
		if tag == tagSequenceEnd {
			break
		}
		if tag != tagItem {
			return &frameIndex{err: formatError("encapsulated pixel data: element (%04X,%04X) where an item should be", tag>>16, tag&0xFFFF)}
		}
		if length > sl.size-pos {
			return &frameIndex{err: formatError("fragment of %d bytes at byte %d exceeds the file of %d bytes: %v", length, pos, sl.size, errTruncated)}
		}
		if n == 0 {
			if length%4 != 0 {
				return &frameIndex{err: formatError("basic offset table of %d bytes", length)}
			}
			if length > 0 {
				b := make([]byte, length)
				if _, err := r.ReadAt(b, pos); err != nil {
					return &frameIndex{err: formatError("basic offset table: %v", errTruncated)}
				}
				for i := 0; i < len(b); i += 4 {
					bot = append(bot, order.Uint32(b[i:]))
				}
			}
		} else {
			frags = append(frags, [2]int64{pos, length})
		}
		pos += length
	}
	if len(frags) == 0 {
		return &frameIndex{err: formatError("encapsulated pixel data without fragments")}
	}
	first := sl.pixelAt + 8 + int64(len(bot))*4 + 8 // the first fragment's value
	idx := &frameIndex{}
	switch {
	case sl.frames == 1:
		idx.frames = [][][2]int64{frags}
	case len(bot) == sl.frames:
		// Offsets are from the first fragment's item tag.
		for k, off := range bot {
			start := first - 8 + int64(off)
			end := int64(1 << 62)
			if k+1 < len(bot) {
				end = first - 8 + int64(bot[k+1])
			}
			var fr [][2]int64
			for _, g := range frags {
				if g[0]-8 >= start && g[0]-8 < end {
					fr = append(fr, g)
				}
			}
			if len(fr) == 0 {
				return &frameIndex{err: formatError("basic offset table entry %d (%d) names no fragment", k, off)}
			}
			idx.frames = append(idx.frames, fr)
		}
	case len(frags) == sl.frames:
		for _, g := range frags {
			idx.frames = append(idx.frames, [][2]int64{g})
		}
	case sl.syntax != tsRLE:
		// JPEG frames: a new frame starts at each fragment that opens with SOI.
		var cur [][2]int64
		for _, g := range frags {
			var soi [2]byte
			if g[1] >= 2 {
				r.ReadAt(soi[:], g[0])
			}
			if soi == [2]byte{0xFF, 0xD8} && cur != nil {
				idx.frames = append(idx.frames, cur)
				cur = nil
			}
			cur = append(cur, g)
		}
		idx.frames = append(idx.frames, cur)
		if len(idx.frames) != sl.frames {
			return &frameIndex{err: formatError("%d fragments hold %d frames, not %d", len(frags), len(idx.frames), sl.frames)}
		}
	default:
		return &frameIndex{err: formatError("%d fragments for %d frames without an offset table", len(frags), sl.frames)}
	}
	return idx
}

// decodeCompressed decodes one compressed frame into dst.
func decodeCompressed(sl *slice, data []byte, dst []byte) error {
	switch sl.syntax {
	case tsRLE:
		return decodeRLE(data, sl, dst)
	case tsJPEGLL14, tsJPEGLLSV1:
		return decodeLosslessFrame(data, sl, dst)
	case tsJPEGBase:
		return decodeBaseline(data, sl, dst)
	}
	return unsupported("transfer syntax %s", sl.syntax)
}

// decodeBaseline decodes an 8-bit baseline JPEG frame.
func decodeBaseline(data []byte, sl *slice, dst []byte) error {
	if sl.bitsAlloc != 8 {
		return unsupported("JPEG baseline of %d bits", sl.bitsAlloc)
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return formatError("JPEG: %v", err)
	}
	if cfg.Width != sl.cols || cfg.Height != sl.rows {
		return formatError("JPEG frame of %d×%d in an image of %d×%d", cfg.Width, cfg.Height, sl.cols, sl.rows)
	}
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		return formatError("JPEG: %v", err)
	}
	n := sl.rows * sl.cols
	switch im := img.(type) {
	case *image.Gray:
		if sl.spp != 1 {
			return formatError("gray JPEG frame in a colour image")
		}
		for y := 0; y < sl.rows; y++ {
			copy(dst[y*sl.cols:(y+1)*sl.cols], im.Pix[y*im.Stride:])
		}
	case *image.YCbCr:
		if sl.spp != 3 {
			return formatError("colour JPEG frame in a gray image")
		}
		cb, cr, cs := ycc.Chroma(im)
		for y := 0; y < sl.rows; y++ {
			for x := 0; x < sl.cols; x++ {
				p := y*sl.cols + x
				dst[p], dst[n+p], dst[2*n+p] = ycc.ToRGB(im.Y[y*im.YStride+x], cb[y*cs+x], cr[y*cs+x])
			}
		}
	default:
		if sl.spp != 3 {
			return formatError("colour JPEG frame in a gray image")
		}
		b := img.Bounds()
		for y := 0; y < sl.rows; y++ {
			for x := 0; x < sl.cols; x++ {
				r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
				p := y*sl.cols + x
				dst[p], dst[n+p], dst[2*n+p] = byte(r>>8), byte(g>>8), byte(bl>>8)
			}
		}
	}
	return nil
}

// readDICOMDIR returns the image files a DICOMDIR refers to, in its order.
func readDICOMDIR(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, loader.StripPath(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, loader.StripPath(err)
	}
	h, err := readHeader(f, st.Size())
	if err != nil {
		return nil, formatError("DICOMDIR: %v", err)
	}
	e := h.ds[tagDirRecords]
	if e == nil {
		return nil, formatError("DICOMDIR without a directory record sequence")
	}
	dir := filepath.Dir(path)
	var out []string
	seen := map[string]bool{}
	for _, it := range e.items {
		ref := it.str(tagReferencedFile)
		if ref == "" {
			continue
		}
		parts := strings.Split(ref, `\`)
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		p := filepath.Join(append([]string{dir}, parts...)...)
		if _, err := os.Stat(p); err != nil {
			// Media written upper case, copied lower case.
			lp := filepath.Join(append([]string{dir}, strings.Split(strings.ToLower(strings.Join(parts, "/")), "/")...)...)
			if _, err := os.Stat(lp); err != nil {
				continue
			}
			p = lp
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, formatError("DICOMDIR refers to no file that exists")
	}
	return out, nil
}
