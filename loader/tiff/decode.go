package tiff

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/bits"
	"sync"

	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
	"golang.org/x/image/tiff/lzw"

	"vastview/loader"
	istream "vastview/loader/internal/stream"
)

// decodeBlock decompresses the stored block b of p from raw into out, whose
// length is exactly what the block (or, for uncompressed converted samples,
// the rows raw holds) decodes to, then undoes the predictor, converts packed
// and half-precision samples and leaves the samples little-endian. It never
// writes past out.
func (s *source) decodeBlock(p *page, b int, raw, out []byte) error {
	switch p.compression {
	case cJPEG:
		return s.unJPEG(p, b, raw, out)
	case cWebP:
		return s.unWebP(p, b, raw, out)
	}
	if !p.converted() || p.ycc {
		if err := inflate(p, b, raw, out, p.bh*p.rowBytes()); err != nil {
			return err
		}
		s.finishRows(p, out)
		if p.ycc {
			yccToRGB(out)
		}
		return nil
	}
	rows := len(out) / p.rowBytes()
	srb := p.storedRow()
	stored := raw
	if p.compression != cNone || p.half || p.lsbFirst {
		buf := getScratch(rows * srb)
		defer scratch.Put(buf)
		stored = *buf
		if p.compression == cNone {
			copy(stored, raw)
		} else if err := inflate(p, b, raw, stored, p.bh*srb); err != nil {
			return err
		}
		if p.lsbFirst && p.compression == cNone {
			reverseBits(stored)
		}
	}
	if p.half {
		s.finish(p, stored, 2, srb)
		loader.HalfToFloat32(out, stored, binary.LittleEndian)
		return nil
	}
	if !p.packed() {
		// Whole bytes per sample (FillOrder 2 of 8 to 64 bits): once each
		// byte's bits are reversed, the samples are in the file's byte
		// order, as tifffile and libtiff read them.
		copy(out, stored)
		s.finishRows(p, out)
		return nil
	}
	unpack(out, stored, rows, srb, p.bw*p.blockSamples(), p.bits)
	return nil
}

// inflate decompresses raw, stored block b of p, into out (for CCITT
// compression, packed rows of bits). full is the size of a whole block,
// which a short last strip may have been stored at.
func inflate(p *page, b int, raw, out []byte, full int) error {
	var err error
	switch p.compression {
	case cLZW:
		err = unLZW(raw, out)
	case cDeflate, cDeflOld:
		err = unDeflate(raw, out)
	case cPackBits:
		err = unPackBits(raw, out)
	case cZSTD:
		err = unZSTD(raw, out, full)
	case cLZMA:
		err = unLZMA(raw, out)
	case cG3, cG4:
		err = unFax(p, raw, out)
	default:
		copy(out, raw)
	}
	var ue *loader.UnsupportedError
	if err == nil || errors.As(err, &ue) {
		return err
	}
	return blockErr(p, b, "%v", err)
}

// finishRows turns decoded rows of p (whole rows, from a row's start) into
// samples: the byte order, and the predictor undone.
func (s *source) finishRows(p *page, out []byte) {
	s.finish(p, out, p.dtype.Size(), p.rowBytes())
}

// finish undoes the byte order and the predictor of p on rows of rb bytes
// of es-byte samples.
func (s *source) finish(p *page, out []byte, es, rb int) {
	if p.predictor == 3 {
		unshuffleFloat(out, rb, p.blockSamples(), es)
		return
	}
	if s.f.bo == binary.BigEndian && es > 1 {
		loader.SwapBytes(out, es)
	}
	if p.predictor == 2 {
		accumulate(out, rb, p.blockSamples(), es)
	}
}

// unpack expands rows of n samples of bits bits each (1 to 16), stored
// most significant bit first, each row starting at a byte (srb bytes
// apart), into out: a byte per sample up to 8 bits, else a little-endian
// uint16. Values are kept (a 1-bit sample is 0 or 1).
func unpack(out, src []byte, rows, srb, n, bits int) {
	if bits <= 8 {
		mask := byte(1)<<bits - 1
		per := 8 / bits
		for r := 0; r < rows; r++ {
			in, o := src[r*srb:(r+1)*srb], out[r*n:(r+1)*n]
			if 8%bits == 0 {
				for i := range o {
					sh := 8 - bits*(i%per+1)
					o[i] = in[i/per] >> sh & mask
				}
				continue
			}
			for i := range o {
				o[i] = byte(bitsAt(in, i*bits, bits))
			}
		}
		return
	}
	for r := 0; r < rows; r++ {
		in, o := src[r*srb:(r+1)*srb], out[r*n*2:(r+1)*n*2]
		if bits == 12 {
			for i := 0; i+1 < n; i += 2 {
				a, b, c := uint16(in[i/2*3]), uint16(in[i/2*3+1]), uint16(in[i/2*3+2])
				binary.LittleEndian.PutUint16(o[2*i:], a<<4|b>>4)
				binary.LittleEndian.PutUint16(o[2*i+2:], (b&15)<<8|c)
			}
			if n%2 == 1 {
				j := (n - 1) / 2 * 3
				binary.LittleEndian.PutUint16(o[2*(n-1):], uint16(in[j])<<4|uint16(in[j+1])>>4)
			}
			continue
		}
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint16(o[2*i:], uint16(bitsAt(in, i*bits, bits)))
		}
	}
}

// bitsAt reads the n-bit (n <= 16) big-endian field at bit offset at of b.
func bitsAt(b []byte, at, n int) uint32 {
	i := at / 8
	var w uint32
	for k := 0; k < 3; k++ {
		w <<= 8
		if i+k < len(b) {
			w |= uint32(b[i+k])
		}
	}
	return w >> (24 - at%8 - n) & (1<<n - 1)
}

// reverseBits reverses the order of the bits in each byte of b.
func reverseBits(b []byte) {
	for i, v := range b {
		b[i] = bits.Reverse8(v)
	}
}

var errShort = errors.New("compressed data ends early")

func readFull(r io.Reader, out []byte) error {
	if _, err := io.ReadFull(r, out); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return errShort
		}
		return err
	}
	return nil
}

func unLZW(raw, out []byte) error {
	if len(raw) >= 2 && raw[0] == 0 && raw[1]&1 != 0 {
		return unsupported("old-style (LSB-first) LZW compression")
	}
	r := lzw.NewReader(bytes.NewReader(raw), lzw.MSB, 8)
	defer r.Close()
	return readFull(r, out)
}

var zlibReaders sync.Pool

func unDeflate(raw, out []byte) error {
	br := bytes.NewReader(raw)
	var r io.ReadCloser
	if z, ok := zlibReaders.Get().(io.ReadCloser); ok {
		if err := z.(zlib.Resetter).Reset(br, nil); err != nil {
			return err
		}
		r = z
	} else {
		z, err := zlib.NewReader(br)
		if err != nil {
			return err
		}
		r = z
	}
	err := readFull(r, out)
	if err == nil {
		zlibReaders.Put(r)
	}
	return err
}

// unPackBits decodes PackBits data, stopping when out is full.
func unPackBits(raw, out []byte) error {
	o := 0
	for i := 0; i < len(raw) && o < len(out); {
		c := int(int8(raw[i]))
		i++
		switch {
		case c >= 0:
			n := min(c+1, len(raw)-i, len(out)-o)
			if n < c+1 && o+n < len(out) {
				return errShort
			}
			copy(out[o:], raw[i:i+n])
			i += c + 1
			o += n
		case c != -128:
			if i >= len(raw) {
				return errShort
			}
			n := min(1-c, len(out)-o)
			v := raw[i]
			i++
			for k := 0; k < n; k++ {
				out[o+k] = v
			}
			o += n
		}
	}
	if o < len(out) {
		return errShort
	}
	return nil
}

// unZSTD decodes raw into out with the shared decoder, whose cap limit
// stops a frame from decoding more than its block should hold. A short
// last strip that was stored at the full strip size (up to full bytes) is
// decoded into scratch space and cut.
func unZSTD(raw, out []byte, full int) error {
	d, err := istream.ZstdDecoder()
	if err != nil {
		return err
	}
	res, err := d.DecodeAll(raw, out[:0:len(out)])
	if errors.Is(err, zstd.ErrDecoderSizeExceeded) && full > len(out) {
		buf := getScratch(full)
		defer scratch.Put(buf)
		res, err = d.DecodeAll(raw, (*buf)[:0:full])
		if len(res) > len(out) {
			res = res[:len(out)]
		}
	}
	if err != nil {
		return err
	}
	if len(res) < len(out) {
		return errShort
	}
	if &res[0] != &out[0] {
		copy(out, res)
	}
	return nil
}

// accumulate undoes the horizontal predictor: within each row of rb bytes,
// sample i adds sample i-spp (modulo the sample width). Samples are
// little-endian.
func accumulate(b []byte, rb, spp, es int) {
	for r := 0; r+rb <= len(b); r += rb {
		row := b[r : r+rb]
		switch es {
		case 1:
			for i := spp; i < len(row); i++ {
				row[i] += row[i-spp]
			}
		case 2:
			le := binary.LittleEndian
			for i := spp * 2; i+1 < len(row); i += 2 {
				le.PutUint16(row[i:], le.Uint16(row[i:])+le.Uint16(row[i-spp*2:]))
			}
		case 4:
			le := binary.LittleEndian
			for i := spp * 4; i+3 < len(row); i += 4 {
				le.PutUint32(row[i:], le.Uint32(row[i:])+le.Uint32(row[i-spp*4:]))
			}
		case 8:
			le := binary.LittleEndian
			for i := spp * 8; i+7 < len(row); i += 8 {
				le.PutUint64(row[i:], le.Uint64(row[i:])+le.Uint64(row[i-spp*8:]))
			}
		}
	}
}

// unshuffleFloat undoes the floating-point predictor row by row: bytes are
// accumulated with a stride of spp, then regathered from byte planes (most
// significant plane first) into little-endian samples.
func unshuffleFloat(b []byte, rb, spp, es int) {
	tmp := make([]byte, rb)
	wc := rb / es
	for r := 0; r+rb <= len(b); r += rb {
		row := b[r : r+rb]
		for i := spp; i < len(row); i++ {
			row[i] += row[i-spp]
		}
		copy(tmp, row)
		for i := 0; i < wc; i++ {
			for k := 0; k < es; k++ {
				row[i*es+k] = tmp[(es-1-k)*wc+i]
			}
		}
	}
}

// unLZMA decodes the xz stream raw (LZMA compression, as libtiff writes
// it) into out, which it must fill. The dictionary is no larger than out:
// a stream can refer back no further than what it has decoded.
func unLZMA(raw, out []byte) error {
	r, err := istream.XZReader(raw, len(out))
	if err != nil {
		return err
	}
	return readFull(r, out)
}
