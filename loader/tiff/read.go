package tiff

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"

	"vastview/loader"
)

// scratch holds decoded blocks that cannot be decoded straight into the
// caller's buffer (chunky samples, or strips straddling a chunk edge).
var scratch sync.Pool

func getScratch(n int) *[]byte {
	if b, ok := scratch.Get().(*[]byte); ok && cap(*b) >= n {
		*b = (*b)[:n]
		return b
	}
	b := make([]byte, n)
	return &b
}

// swapped reports whether samples of p need byte-swapping to little-endian.
func (s *source) swapped(p *page) bool {
	return s.f.bo == binary.BigEndian && p.dtype.Size() > 1
}

// readTile fills dst with tile (ty, tx) of sample plane `plane` of p.
func (s *source) readTile(ctx context.Context, p *page, plane, ty, tx int, dst []byte) error {
	b := plane*p.across*p.down + ty*p.across + tx
	es, ppb := p.dtype.Size(), p.blockSamples()
	off, n, err := s.f.blockExtent(p, b)
	if err != nil {
		return err
	}
	pix := p.bw * p.bh
	switch {
	case n == 0:
		clear(dst)
	case p.direct() && ppb == 1:
		if err := s.readRaw(dst, off); err != nil {
			return err
		}
		if s.swapped(p) {
			loader.SwapBytes(dst, es)
		}
	case p.direct():
		deinterleave(dst, pix*es, s.f.b[off:off+n], pix, ppb, es, s.swapped(p))
	case ppb == 1:
		if err := s.decodeBlock(p, b, s.f.b[off:off+n], dst); err != nil {
			return err
		}
	default:
		buf := getScratch(len(dst))
		defer scratch.Put(buf)
		if err := s.decodeBlock(p, b, s.f.b[off:off+n], *buf); err != nil {
			return err
		}
		deinterleave(dst, pix*es, *buf, pix, ppb, es, false)
	}
	vr := min(p.bh, p.height-ty*p.bh)
	vc := min(p.bw, p.width-tx*p.bw)
	zeroEdges(dst, ppb, p.bh, p.bw*es, vr, vc*es)
	return ctx.Err()
}

// readRaw copies the len(dst) stored bytes at off (checked to lie in the
// file) into dst. It uses a positioned read where the file is open: on
// first touch that is several times faster than faulting the mapping in.
func (s *source) readRaw(dst []byte, off int64) error {
	if s.fh == nil {
		copy(dst, s.f.b[off:])
		return nil
	}
	if _, err := s.fh.ReadAt(dst, off); err != nil {
		return formatErr("reading %d bytes at offset %d: %v", len(dst), off, err)
	}
	return nil
}

// zeroEdges clears the part of each of the planes of dst (rows x rowBytes)
// outside the first vr rows and vcBytes of each row.
func zeroEdges(dst []byte, planes, rows, rowBytes, vr, vcBytes int) {
	if vr == rows && vcBytes == rowBytes {
		return
	}
	ps := rows * rowBytes
	for c := 0; c < planes; c++ {
		pl := dst[c*ps : (c+1)*ps]
		for r := 0; r < vr; r++ {
			clear(pl[r*rowBytes+vcBytes : (r+1)*rowBytes])
		}
		clear(pl[vr*rowBytes:])
	}
}

// readRows fills dst with rows [y0, y0+rows) of sample plane `plane` of a
// strip-organised page p, decoding every strip that overlaps them.
func (s *source) readRows(ctx context.Context, p *page, plane, y0, rows int, dst []byte) error {
	ppb := p.blockSamples()
	drb := p.width * p.dtype.Size() // bytes per row of one plane in dst
	ps := rows * drb                // bytes of one plane in dst
	y1 := min(y0+rows, p.height)
	for j := y0 / p.bh; j*p.bh < y1; j++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.readStrip(p, plane*p.down+j, y0, y1, dst, ps); err != nil {
			return err
		}
	}
	if y1-y0 < rows {
		for c := 0; c < ppb; c++ {
			clear(dst[c*ps+(y1-y0)*drb : (c+1)*ps])
		}
	}
	return nil
}

// readStrip places the rows of strip b that lie in [y0, y1) into dst, whose
// sample planes are ps bytes apart and start at row y0.
func (s *source) readStrip(p *page, b, y0, y1 int, dst []byte, ps int) error {
	es, ppb := p.dtype.Size(), p.blockSamples()
	rb := p.rowBytes()  // stored bytes per row (all samples)
	drb := p.width * es // bytes per row of one plane in dst
	sy0, srows := (b%p.down)*p.bh, p.blockRows(b)
	ry0, ry1 := max(y0, sy0), min(y1, sy0+srows)
	off, n, err := s.f.blockExtent(p, b)
	if isTruncated(err) {
		if o, m, ok := s.f.cutStrip(p, b, ry1-sy0); ok {
			off, n, err = o, m, nil
		}
	}
	if err != nil {
		return err
	}
	at := (ry0 - y0) * drb // where the rows go in each plane of dst
	if n == 0 {
		for c := 0; c < ppb; c++ {
			clear(dst[c*ps+at : c*ps+at+(ry1-ry0)*drb])
		}
		return nil
	}
	raw := s.f.b[off : off+n]
	var src []byte
	swap := false
	switch {
	case p.direct() && ppb == 1:
		d := dst[at : at+(ry1-ry0)*rb]
		if err := s.readRaw(d, off+int64((ry0-sy0)*rb)); err != nil {
			return err
		}
		if s.swapped(p) {
			loader.SwapBytes(d, es)
		}
		return nil
	case p.direct():
		src = raw[(ry0-sy0)*rb : (ry1-sy0)*rb]
		swap = s.swapped(p)
	case p.compression == cNone:
		// Converted samples: the stored rows are converted one by one.
		srb := p.storedRow()
		part := raw[(ry0-sy0)*srb : (ry1-sy0)*srb]
		if ppb == 1 {
			return s.decodeBlock(p, b, part, dst[at:at+(ry1-ry0)*drb])
		}
		buf := getScratch((ry1 - ry0) * rb)
		defer scratch.Put(buf)
		if err := s.decodeBlock(p, b, part, *buf); err != nil {
			return err
		}
		src = *buf
	case ppb == 1 && ry0 == sy0 && ry1 == sy0+srows:
		return s.decodeBlock(p, b, raw, dst[at:at+srows*drb])
	case p.bandedStrips() && ppb == 1:
		return s.decodeRows(p, b, raw, ry0-sy0, dst[at:at+(ry1-ry0)*drb])
	case p.bandedStrips():
		buf := getScratch((ry1 - ry0) * rb)
		defer scratch.Put(buf)
		if err := s.decodeRows(p, b, raw, ry0-sy0, *buf); err != nil {
			return err
		}
		src = *buf
	default:
		buf := getScratch(srows * rb)
		defer scratch.Put(buf)
		if err := s.decodeBlock(p, b, raw, *buf); err != nil {
			return err
		}
		src = (*buf)[(ry0-sy0)*rb : (ry1-sy0)*rb]
	}
	if ppb == 1 {
		copy(dst[at:], src)
		return nil
	}
	deinterleave(dst[at:], ps, src, (ry1-ry0)*p.width, ppb, es, swap)
	return nil
}

// deinterleave copies pix pixels of spp interleaved samples of es bytes
// from src into spp planes of dst that start planeStride bytes apart,
// swapping byte order if asked.
func deinterleave(dst []byte, planeStride int, src []byte, pix, spp, es int, swap bool) {
	for c := 0; c < spp; c++ {
		d := dst[c*planeStride : c*planeStride+pix*es]
		o := c * es
		step := spp * es
		switch {
		case es == 1:
			for i := range d {
				d[i] = src[o]
				o += step
			}
		case !swap:
			for i := 0; i < len(d); i += es {
				copy(d[i:i+es], src[o:o+es])
				o += step
			}
		default:
			for i := 0; i < len(d); i += es {
				for k := 0; k < es; k++ {
					d[i+k] = src[o+es-1-k]
				}
				o += step
			}
		}
	}
}

func blockErr(p *page, b int, format string, a ...any) error {
	return formatErr("block %d of IFD at offset %d: %s", b, p.ifd, fmt.Sprintf(format, a...))
}
