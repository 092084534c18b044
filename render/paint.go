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
		lut, pal := p.lut, &p.pal
		le := binary.LittleEndian
		if dt.Size() == 1 {
			for i, b := range buf {
				le.PutUint32(pix[4*i:], pal[lut[b]])
			}
			return
		}
		for i := 0; i < n; i++ {
			le.PutUint32(pix[4*i:], pal[lut[le.Uint16(buf[2*i:])]])
		}
		return
	case loader.Float32:
		if cm.Label {
			break
		}
		palette(&p.pal, cm)
		p.ok = false // the table of 8/16-bit values no longer matches p.pal
		span := hi - lo
		le := binary.LittleEndian
		for i := 0; i < n; i++ {
			v := float64(math.Float32frombits(le.Uint32(buf[4*i:])))
			le.PutUint32(pix[4*i:], p.pal[index(v, lo, span)])
		}
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
