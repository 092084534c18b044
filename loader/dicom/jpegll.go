package dicom

import (
	"errors"
	"fmt"
)

// The lossless JPEG decoder (ITU-T T.81 annex H, process 14): Huffman
// coded differences from one of seven predictors, 2 to 16 bits of
// precision, a point transform, restart intervals, one scan holding every
// component or one scan per component.

// huffman is one decoding table (T.81 F.2.2.3).
type huffman struct {
	maxcode [18]int32
	valptr  [17]int32
	mincode [17]int32
	vals    []byte
	ok      bool
}

func (h *huffman) build(counts [16]byte, vals []byte) error {
	code, k := int32(0), int32(0)
	for l := 1; l <= 16; l++ {
		n := int32(counts[l-1])
		h.valptr[l] = k
		h.mincode[l] = code
		if n == 0 {
			h.maxcode[l] = -1
		} else {
			code += n
			k += n
			h.maxcode[l] = code - 1
			if code-1 >= 1<<l {
				return errors.New("bad Huffman table")
			}
		}
		code <<= 1
	}
	h.maxcode[17] = 1 << 30
	h.vals = vals
	h.ok = true
	return nil
}

// jpegComp is one component of the frame.
type jpegComp struct {
	id    byte
	table int // DC table of the current scan
}

// llDecoder holds a lossless JPEG stream being decoded.
type llDecoder struct {
	data      []byte
	pos       int
	precision int
	w, h      int
	comps     []jpegComp
	tables    [4]huffman
	restart   int
	out       [][]uint16 // per component, w*h samples

	wantW, wantH, wantC int
	// bit reader
	acc    uint64
	nbits  int
	marker bool // a marker was met: zeros follow
}

var errJPEG = errors.New("bad lossless JPEG stream")

func jpegErr(format string, args ...any) error {
	return fmt.Errorf("lossless JPEG: %s: %w", fmt.Sprintf(format, args...), errJPEG)
}

// decodeLossless decodes a lossless JPEG stream of w×h pixels of nc
// components into one slice of w*h samples per component (a frame of
// another size is an error, before anything is allocated).
func decodeLossless(data []byte, w, h, nc int) (*llDecoder, error) {
	d := &llDecoder{data: data, wantW: w, wantH: h, wantC: nc}
	if len(data) < 2 || data[0] != 0xFF || data[1] != 0xD8 {
		return nil, jpegErr("no SOI marker")
	}
	d.pos = 2
	sawFrame := false
	for {
		// Find the next marker.
		for d.pos < len(d.data) && d.data[d.pos] != 0xFF {
			d.pos++
		}
		for d.pos < len(d.data) && d.data[d.pos] == 0xFF {
			d.pos++
		}
		if d.pos >= len(d.data) {
			if sawFrame && d.out != nil {
				return d, nil // no EOI: what was decoded
			}
			return nil, jpegErr("stream ends before the image")
		}
		m := d.data[d.pos]
		d.pos++
		if m == 0xD9 { // EOI
			if !sawFrame || d.out == nil {
				return nil, jpegErr("EOI before any scan")
			}
			return d, nil
		}
		if m >= 0xD0 && m <= 0xD7 || m == 0x01 {
			continue
		}
		if d.pos+2 > len(d.data) {
			return nil, jpegErr("marker segment cut off: %v", errTruncated)
		}
		l := int(d.data[d.pos])<<8 | int(d.data[d.pos+1])
		if l < 2 || d.pos+l > len(d.data) {
			return nil, jpegErr("marker segment of %d bytes cut off: %v", l, errTruncated)
		}
		seg := d.data[d.pos+2 : d.pos+l]
		d.pos += l
		switch m {
		case 0xC3:
			if sawFrame {
				return nil, jpegErr("two frames")
			}
			if err := d.frame(seg); err != nil {
				return nil, err
			}
			sawFrame = true
		case 0xC4:
			if err := d.huffTables(seg); err != nil {
				return nil, err
			}
		case 0xDD:
			if len(seg) < 2 {
				return nil, jpegErr("short DRI")
			}
			d.restart = int(seg[0])<<8 | int(seg[1])
		case 0xDA:
			if !sawFrame {
				return nil, jpegErr("scan before frame")
			}
			if err := d.scan(seg); err != nil {
				return nil, err
			}
		case 0xC0, 0xC1, 0xC2, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF:
			return nil, jpegErr("SOF%d frame, not lossless Huffman (SOF3)", m-0xC0)
		}
	}
}

// frame reads SOF3.
func (d *llDecoder) frame(b []byte) error {
	if len(b) < 6 {
		return jpegErr("short SOF3")
	}
	d.precision = int(b[0])
	d.h = int(b[1])<<8 | int(b[2])
	d.w = int(b[3])<<8 | int(b[4])
	nf := int(b[5])
	if d.precision < 2 || d.precision > 16 {
		return jpegErr("precision %d", d.precision)
	}
	if d.w == 0 || d.h == 0 || nf < 1 || nf > 4 || len(b) < 6+3*nf {
		return jpegErr("frame of %d×%d, %d components", d.w, d.h, nf)
	}
	if d.w != d.wantW || d.h != d.wantH || nf != d.wantC {
		return jpegErr("frame of %d×%d×%d in an image of %d×%d×%d", d.w, d.h, nf, d.wantW, d.wantH, d.wantC)
	}
	for i := 0; i < nf; i++ {
		c := b[6+3*i:]
		if c[1] != 0x11 {
			return jpegErr("subsampled component (%d×%d)", c[1]>>4, c[1]&15)
		}
		d.comps = append(d.comps, jpegComp{id: c[0]})
	}
	return nil
}

// huffTables reads DHT.
func (d *llDecoder) huffTables(b []byte) error {
	for len(b) > 0 {
		if len(b) < 17 {
			return jpegErr("short DHT")
		}
		tc, th := b[0]>>4, b[0]&15
		if th > 3 {
			return jpegErr("Huffman table %d", th)
		}
		var counts [16]byte
		copy(counts[:], b[1:17])
		n := 0
		for _, c := range counts {
			n += int(c)
		}
		if n > 256 || len(b) < 17+n {
			return jpegErr("DHT of %d values cut off", n)
		}
		if tc == 0 {
			if err := d.tables[th].build(counts, append([]byte(nil), b[17:17+n]...)); err != nil {
				return jpegErr("%v", err)
			}
		}
		b = b[17+n:]
	}
	return nil
}

// scan decodes one scan (SOS header b, entropy data from d.pos).
func (d *llDecoder) scan(b []byte) error {
	if len(b) < 1 {
		return jpegErr("short SOS")
	}
	ns := int(b[0])
	if ns < 1 || ns > len(d.comps) || len(b) < 1+2*ns+3 {
		return jpegErr("scan of %d components", ns)
	}
	if d.out == nil {
		if int64(d.w)*int64(d.h) > 1<<28 {
			return jpegErr("frame of %d×%d samples", d.w, d.h)
		}
		d.out = make([][]uint16, len(d.comps))
	}
	var idx []int
	for i := 0; i < ns; i++ {
		cs, t := b[1+2*i], int(b[2+2*i]>>4)
		k := -1
		for j, c := range d.comps {
			if c.id == cs {
				k = j
			}
		}
		if k < 0 || t > 3 || !d.tables[t].ok {
			return jpegErr("scan component %d (table %d)", cs, t)
		}
		if d.out[k] == nil {
			d.out[k] = make([]uint16, d.w*d.h)
		}
		d.comps[k].table = t
		idx = append(idx, k)
	}
	sel := int(b[1+2*ns])
	pt := int(b[3+2*ns] & 15)
	if sel < 1 || sel > 7 {
		return jpegErr("predictor %d", sel)
	}
	if pt >= d.precision {
		return jpegErr("point transform %d of precision %d", pt, d.precision)
	}
	d.acc, d.nbits, d.marker = 0, 0, false
	w, h := d.w, d.h
	initial := int32(1) << (d.precision - pt - 1)
	mcus := 0
	firstRow, reset := true, true
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if d.restart > 0 && mcus > 0 && mcus%d.restart == 0 {
				if err := d.nextRestart(); err != nil {
					return err
				}
				firstRow, reset = true, true
			}
			i := y*w + x
			for _, k := range idx {
				out := d.out[k]
				var p int32
				switch {
				case reset:
					p = initial
				case firstRow && x > 0:
					p = int32(out[i-1])
				case x == 0:
					p = int32(out[i-w])
				default:
					ra, rb, rc := int32(out[i-1]), int32(out[i-w]), int32(out[i-w-1])
					switch sel {
					case 1:
						p = ra
					case 2:
						p = rb
					case 3:
						p = rc
					case 4:
						p = ra + rb - rc
					case 5:
						p = ra + ((rb - rc) >> 1)
					case 6:
						p = rb + ((ra - rc) >> 1)
					case 7:
						p = (ra + rb) >> 1
					}
				}
				diff, err := d.diff(&d.tables[d.comps[k].table])
				if err != nil {
					return err
				}
				out[i] = uint16(p + diff)
			}
			reset = false
			mcus++
		}
		firstRow = false
	}
	// Undo the point transform and find the end of the scan.
	if pt > 0 {
		for _, k := range idx {
			for i, v := range d.out[k] {
				d.out[k][i] = v << pt
			}
		}
	}
	d.skipEntropy()
	return nil
}

// diff decodes one difference (T.81 H.1.2.2).
func (d *llDecoder) diff(t *huffman) (int32, error) {
	code := int32(0)
	l := 1
	for ; l <= 16; l++ {
		code = code<<1 | int32(d.bit())
		if code <= t.maxcode[l] {
			break
		}
	}
	if l > 16 {
		return 0, jpegErr("bad Huffman code")
	}
	j := t.valptr[l] + code - t.mincode[l]
	if j < 0 || int(j) >= len(t.vals) {
		return 0, jpegErr("bad Huffman code")
	}
	s := int(t.vals[j])
	switch {
	case s == 0:
		return 0, nil
	case s == 16:
		return 32768, nil
	case s > 16:
		return 0, jpegErr("difference category %d", s)
	}
	v := int32(d.bits(s))
	if v < 1<<(s-1) {
		v += -(1 << s) + 1
	}
	return v, nil
}

// fill tops the bit buffer up to more than 56 bits; past a marker or the
// end of the data it adds zeros.
func (d *llDecoder) fill() {
	for d.nbits <= 56 {
		var c byte
		if !d.marker && d.pos < len(d.data) {
			c = d.data[d.pos]
			if c == 0xFF {
				if d.pos+1 < len(d.data) && d.data[d.pos+1] == 0x00 {
					d.pos += 2
				} else {
					d.marker = true
					c = 0
				}
			} else {
				d.pos++
			}
		}
		d.acc |= uint64(c) << (56 - d.nbits)
		d.nbits += 8
	}
}

func (d *llDecoder) bit() uint32 {
	if d.nbits == 0 {
		d.fill()
	}
	v := uint32(d.acc >> 63)
	d.acc <<= 1
	d.nbits--
	return v
}

func (d *llDecoder) bits(n int) uint32 {
	if d.nbits < n {
		d.fill()
	}
	v := uint32(d.acc >> (64 - n))
	d.acc <<= n
	d.nbits -= n
	return v
}

// nextRestart drops the bits left and reads a RST marker.
func (d *llDecoder) nextRestart() error {
	d.acc, d.nbits = 0, 0
	d.marker = false
	for d.pos < len(d.data) && d.data[d.pos] == 0xFF {
		d.pos++
		if d.pos < len(d.data) && d.data[d.pos] >= 0xD0 && d.data[d.pos] <= 0xD7 {
			d.pos++
			return nil
		}
		if d.pos < len(d.data) && d.data[d.pos] != 0xFF {
			return jpegErr("marker %#x where a restart marker should be", d.data[d.pos])
		}
	}
	return jpegErr("restart marker missing at byte %d", d.pos)
}

// skipEntropy moves past what is left of the scan's entropy-coded data,
// to the next marker.
func (d *llDecoder) skipEntropy() {
	d.acc, d.nbits, d.marker = 0, 0, false
	for d.pos < len(d.data) {
		if d.data[d.pos] == 0xFF && d.pos+1 < len(d.data) && d.data[d.pos+1] != 0x00 && (d.data[d.pos+1] < 0xD0 || d.data[d.pos+1] > 0xD7) {
			return
		}
		d.pos++
	}
}

// decodeLosslessFrame decodes a lossless JPEG frame of sl into dst.
func decodeLosslessFrame(data []byte, sl *slice, dst []byte) error {
	d, err := decodeLossless(data, sl.cols, sl.rows, sl.spp)
	if err != nil {
		return formatError("%v", err)
	}
	if d.precision > sl.bitsAlloc {
		return formatError("JPEG precision %d in samples of %d bits", d.precision, sl.bitsAlloc)
	}
	n := d.w * d.h
	es := sl.bitsAlloc / 8
	for k, out := range d.out {
		if out == nil {
			return formatError("lossless JPEG: component %d not in any scan", k)
		}
		base := k * n * es
		switch es {
		case 1:
			for i, v := range out {
				dst[base+i] = byte(v)
			}
		case 2:
			for i, v := range out {
				dst[base+2*i], dst[base+2*i+1] = byte(v), byte(v>>8)
			}
		default:
			for i, v := range out {
				o := base + es*i
				dst[o], dst[o+1] = byte(v), byte(v>>8)
				for j := 2; j < es; j++ {
					dst[o+j] = 0
				}
			}
		}
	}
	return nil
}
