package render

import (
	"encoding/binary"
	"math"

	"vastview/loader"
)

// Painter colours a buffer of samples through a window and a colormap, as
// Draw does, keeping its colour tables from call to call so that painting
// with the same window and colormap again allocates nothing. The zero value
// is ready to use; a Painter is not safe for concurrent use.
type Painter struct {
	lut *[65536]uint8
	key lutKey
	ok  bool
	pal [256]uint32
}

// Paint writes one RGBA pixel into pix for each sample of buf, through the
// window [lo, hi] and the colormap: lo and below are colour 0, hi and above
// colour 255, NaN colour 0. A label colormap ignores the window.
func (p *Painter) Paint(pix, buf []byte, dt loader.DType, lo, hi float64, cm *Colormap) {
	n := len(buf) / dt.Size()
	pix = pix[:4*n]
	switch dt {
	case loader.Uint8, loader.Int8, loader.Uint16, loader.Int16:
		key := lutKey{dt, lo, hi, cm}
		if !p.ok || p.key != key {
			if p.lut == nil {
				p.lut = new([65536]uint8)
			}
			fillLUT(p.lut[:1<<(8*dt.Size())], dt, lo, hi, cm)
			palette(&p.pal, cm)
			p.key, p.ok = key, true
		}
		if dt.Size() == 1 {
			paint8(pix, buf[:n], (*[256]uint8)(p.lut[:256]), &p.pal)
			return
		}
		paint16(pix, buf[:2*n], p.lut, &p.pal)
		return
	case loader.Float32:
		if cm.Label {
			break
		}
		palette(&p.pal, cm)
		p.ok = false // the table of 8/16-bit values no longer matches p.pal
		paintFloat32(pix, buf[:4*n], lo, hi-lo, &p.pal)
		return
	}
	span := hi - lo
	for i := 0; i < n; i++ {
		e := 0
		if cm.Label && dt.Is64BitInt() { // exact ids: a float64 rounds those beyond 2^53
			e = labelIndexBits(dt.Bits(buf, i), dt.Signed())
		} else {
			e = cm.entry(Sample(buf, dt, i), lo, span)
		}
		c := cm.LUT[e]
		q := pix[4*i : 4*i+4 : 4*i+4]
		q[0], q[1], q[2], q[3] = c[0], c[1], c[2], 255
	}
}

// The loops below colour two samples an iteration, through slices whose
// bounds are checked once for the pair: twice as fast as a sample at a
// time (see docs/PERFORMANCE.md). pix holds 4 bytes for each sample.

// paint8 colours 8-bit samples through lut and pal.
func paint8(pix, buf []byte, lut *[256]uint8, pal *[256]uint32) {
	le := binary.LittleEndian
	n := len(buf)
	pix = pix[:4*n]
	for i := 0; i+1 < n; i += 2 {
		d := pix[4*i : 4*i+8 : 4*i+8]
		le.PutUint32(d, pal[lut[buf[i]]])
		le.PutUint32(d[4:], pal[lut[buf[i+1]]])
	}
	if n%2 == 1 {
		le.PutUint32(pix[4*n-4:], pal[lut[buf[n-1]]])
	}
}

// paint16 colours 16-bit little-endian samples through lut and pal.
func paint16(pix, buf []byte, lut *[65536]uint8, pal *[256]uint32) {
	le := binary.LittleEndian
	n := len(buf) / 2
	pix = pix[:4*n]
	for i := 0; i+1 < n; i += 2 {
		s := buf[2*i : 2*i+4 : 2*i+4]
		d := pix[4*i : 4*i+8 : 4*i+8]
		le.PutUint32(d, pal[lut[le.Uint16(s)]])
		le.PutUint32(d[4:], pal[lut[le.Uint16(s[2:])]])
	}
	if n%2 == 1 {
		le.PutUint32(pix[4*n-4:], pal[lut[le.Uint16(buf[2*n-2:])]])
	}
}

// paintFloat32 colours float32 little-endian samples through the window
// [lo, lo+span] and pal.
func paintFloat32(pix, buf []byte, lo, span float64, pal *[256]uint32) {
	le := binary.LittleEndian
	n := len(buf) / 4
	pix = pix[:4*n]
	for i := 0; i+1 < n; i += 2 {
		s := buf[4*i : 4*i+8 : 4*i+8]
		d := pix[4*i : 4*i+8 : 4*i+8]
		v0 := float64(math.Float32frombits(le.Uint32(s)))
		v1 := float64(math.Float32frombits(le.Uint32(s[4:])))
		le.PutUint32(d, pal[index(v0, lo, span)])
		le.PutUint32(d[4:], pal[index(v1, lo, span)])
	}
	if n%2 == 1 {
		v := float64(math.Float32frombits(le.Uint32(buf[4*n-4:])))
		le.PutUint32(pix[4*n-4:], pal[index(v, lo, span)])
	}
}
