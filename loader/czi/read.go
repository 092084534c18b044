package czi

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/jpeg"

	"github.com/klauspost/compress/zstd"

	"vastview/loader"
	"vastview/loader/internal/stream"
)

// maxTileBytes bounds one decoded subblock.
const maxTileBytes = 1 << 30

// ReadChunk fills dst with the chunk at idx of the given level; see
// loader.Source.
func (s *source) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if err := loader.CheckChunk(ctx, s.Meta(), level, idx, dst); err != nil {
		return err
	}
	m := s.Meta()
	lv := &m.Levels[level]
	n := len(m.Axes)
	var t, c, z int
	for i, a := range m.Axes[:n-2] {
		switch a {
		case 'T':
			t = idx[i]
		case 'C':
			c = idx[i]
		case 'Z':
			z = idx[i]
		}
	}
	r := region{
		y0: idx[n-2] * lv.Chunk[n-2], x0: idx[n-1] * lv.Chunk[n-1],
		h: lv.Chunk[n-2], w: lv.Chunk[n-1],
	}
	r.y1, r.x1 = min(r.y0+r.h, lv.Shape[n-2]), min(r.x0+r.w, lv.Shape[n-1])
	clear(dst)
	l := &s.Image.levels[level]
	for _, tl := range l.planes[s.Image.plane(t, c, z)] {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.draw(tl, l.factor, r, dst); err != nil {
			var ue *loader.UnsupportedError
			if errors.As(err, &ue) {
				// Said once, with the subblock: "czi: unsupported … (subblock at N)".
				return &loader.UnsupportedError{Format: ue.Format, Feature: fmt.Sprintf("%s (subblock at %d)", ue.Feature, tl.pos)}
			}
			return formatError("subblock at %d: %v", tl.pos, err)
		}
	}
	return nil
}

// region is a chunk's rectangle in its level: rows y0 to y1 and columns
// x0 to x1 inside the level, in a buffer of h x w per sample.
type region struct{ y0, x0, y1, x1, h, w int }

// draw copies the part of tile t that falls in r into dst.
func (s *source) draw(t *tile, factor int, r region, dst []byte) (err error) {
	tx, ty := floorDiv(t.x-s.Image.x0, factor), floorDiv(t.y-s.Image.y0, factor)
	if factor == 1 {
		tx, ty = t.x-s.Image.x0, t.y-s.Image.y0
	}
	x0, x1 := max(tx, r.x0), min(tx+t.sw, r.x1)
	y0, y1 := max(ty, r.y0), min(ty+t.sh, r.y1)
	if x0 >= x1 || y0 >= y1 {
		return nil
	}
	defer s.File.Guard().Recover(&err)
	pix, err := s.pixels(t)
	if err != nil {
		return err
	}
	px := s.Image.pix
	es := px.dtype.Size()
	pb := px.bytes()
	stride := t.sw * pb
	plane := r.h * r.w * es
	for y := y0; y < y1; y++ {
		src := pix[(y-ty)*stride+(x0-tx)*pb : (y-ty)*stride+(x1-tx)*pb]
		at := ((y-r.y0)*r.w + (x0 - r.x0)) * es
		if px.shown == 1 {
			copy(dst[at:at+len(src)], src)
			continue
		}
		// Bgr: red, green and blue are the third, second and first sample.
		for k := 0; k < 3; k++ {
			out := dst[k*plane+at:]
			off := (2 - k) * es
			for x := 0; x < x1-x0; x++ {
				copy(out[x*es:x*es+es], src[x*pb+off:x*pb+off+es])
			}
		}
	}
	return nil
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// pixels returns the stored pixels of t, sw x sh of its pixel type,
// little-endian, rows packed: a view of the mapped file for uncompressed
// subblocks (valid under the caller's guard), else decoded (and cached).
func (s *source) pixels(t *tile) ([]byte, error) {
	if b, ok := s.cache.get(t.pos); ok {
		return b, nil
	}
	data, err := s.subblockData(t)
	if err != nil {
		return nil, err
	}
	want := int64(t.sw) * int64(t.sh) * int64(s.Image.pix.bytes())
	if t.comp == cNone {
		if int64(len(data)) < want {
			return nil, fmt.Errorf("%d bytes of data for %d x %d %s pixels: %w", len(data), t.sw, t.sh, s.Image.pix.name, loader.ErrTruncated)
		}
		return data[:want], nil
	}
	if want > maxTileBytes {
		return nil, fmt.Errorf("a compressed subblock of %d x %d %s pixels", t.sw, t.sh, s.Image.pix.name)
	}
	var out []byte
	switch t.comp {
	case cZstd0:
		out, err = unZstd(data, int(want), false)
	case cZstd1:
		out, err = s.unZstd1(data, int(want))
	case cJPEG:
		out, err = s.unJPEG(t, data)
	case cJPGXR:
		out, err = decodeJXR(data, t.pixel, t.sw, t.sh)
	default:
		if n, ok := compressionNames[t.comp]; ok {
			return nil, unsupported(n + " compression")
		}
		return nil, unsupported(fmt.Sprintf("compression %d", t.comp))
	}
	if err != nil {
		return nil, err
	}
	s.cache.put(t.pos, out)
	return out, nil
}

// subblockData reads the subblock segment of t and returns its data.
func (s *source) subblockData(t *tile) ([]byte, error) {
	at, used, err := segment(s.File, t.pos, "ZISRAWSUBBLOCK", subblockMin)
	if err != nil {
		return nil, err
	}
	h, _ := s.File.Bytes(at, subblockMin)
	metaSize := int64(int32(binary.LittleEndian.Uint32(h)))
	dataSize := int64(binary.LittleEndian.Uint64(h[8:]))
	hdr := int64(subblockMin)
	if string(h[16:18]) == "DV" {
		nd := int64(int32(binary.LittleEndian.Uint32(h[16+28:])))
		if nd < 0 || nd > maxDims {
			return nil, fmt.Errorf("its header has %d dimensions", nd)
		}
		hdr = max(hdr, subblockFixed+entryFixed+nd*dimEntry)
	}
	if metaSize < 0 || dataSize < 0 || hdr+metaSize > used || dataSize > used-hdr-metaSize {
		return nil, fmt.Errorf("%d bytes of data and %d of metadata in a segment of %d: %w", dataSize, metaSize, used, loader.ErrTruncated)
	}
	return s.File.Bytes(at+hdr+metaSize, dataSize)
}

// unZstd decodes a zstd frame of exactly n bytes; with hilo, the frame
// holds the low bytes of all 16-bit samples, then their high bytes.
func unZstd(data []byte, n int, hilo bool) ([]byte, error) {
	var fh zstd.Header
	if err := fh.Decode(data); err != nil {
		return nil, fmt.Errorf("zstd: %v", err)
	}
	if fh.HasFCS && fh.FrameContentSize != uint64(n) {
		return nil, fmt.Errorf("zstd stream decodes to %d bytes, expected %d", fh.FrameContentSize, n)
	}
	out := make([]byte, n)
	if !hilo {
		if err := stream.ZstdExact(out, data); err != nil {
			return nil, err
		}
		return out, nil
	}
	packed := make([]byte, n)
	if err := stream.ZstdExact(packed, data); err != nil {
		return nil, err
	}
	half := n / 2
	for i := 0; i < half; i++ {
		out[2*i], out[2*i+1] = packed[i], packed[half+i]
	}
	return out, nil
}

// unZstd1 decodes Zstd1 data: a header (its size, 1 or 3, then a chunk
// of type 1 whose bit 0 turns on the low/high-byte packing) and a zstd
// frame.
func (s *source) unZstd1(data []byte, n int) ([]byte, error) {
	if len(data) < 1 {
		return nil, fmt.Errorf("no Zstd1 header")
	}
	switch {
	case data[0] == 1:
		return unZstd(data[1:], n, false)
	case data[0] == 3 && len(data) >= 3 && data[1] == 1:
		hilo := data[2]&1 == 1
		if hilo && s.Image.pix.dtype.Size() != 2 {
			return nil, fmt.Errorf("low/high-byte packing of %s pixels", s.Image.pix.name)
		}
		return unZstd(data[3:], n, hilo)
	}
	return nil, fmt.Errorf("a Zstd1 header of %d bytes", data[0])
}

// unJPEG decodes a JPEG subblock of 8-bit gray or Bgr24 pixels.
func (s *source) unJPEG(t *tile, data []byte) ([]byte, error) {
	px := s.Image.pix
	if px.dtype != loader.Uint8 || px.comps == 4 {
		return nil, unsupported("JPEG compression of " + px.name + " pixels")
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("jpeg: %v", err)
	}
	if cfg.Width != t.sw || cfg.Height != t.sh {
		return nil, fmt.Errorf("a JPEG picture of %d x %d for a subblock of %d x %d", cfg.Width, cfg.Height, t.sw, t.sh)
	}
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("jpeg: %v", err)
	}
	out := make([]byte, t.sw*t.sh*px.comps)
	for y := 0; y < t.sh; y++ {
		for x := 0; x < t.sw; x++ {
			i := (y*t.sw + x) * px.comps
			if g, ok := img.(*image.Gray); ok && px.comps == 1 {
				out[i] = g.Pix[y*g.Stride+x]
				continue
			}
			r, gr, b, _ := img.At(x, y).RGBA()
			if px.comps == 1 {
				out[i] = uint8((19595*r + 38470*gr + 7471*b + 1<<15) >> 24)
				continue
			}
			out[i], out[i+1], out[i+2] = uint8(b>>8), uint8(gr>>8), uint8(r>>8)
		}
	}
	return out, nil
}
