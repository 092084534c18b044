package tiff

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"sync"

	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
	"golang.org/x/image/tiff/lzw"

	"vastview/loader"
)

// decodeBlock decompresses the stored block b of p from raw into out, whose
// length is exactly what the block decodes to, then undoes the predictor
// and leaves the samples little-endian. It never writes past out.
func (s *source) decodeBlock(p *page, b int, raw, out []byte) error {
	var err error
	switch p.compression {
	case cLZW:
		err = unLZW(raw, out)
	case cDeflate, cDeflOld:
		err = unDeflate(raw, out)
	case cPackBits:
		err = unPackBits(raw, out)
	case cZSTD:
		err = unZSTD(raw, out, p.bh*p.rowBytes())
	default:
		copy(out, raw)
	}
	var ue *loader.UnsupportedError
	if errors.As(err, &ue) {
		return err
	}
	if err != nil {
		return blockErr(p, b, "%v", err)
	}
	s.finishRows(p, out)
	return nil
}

// finishRows turns decoded rows of p (whole rows, from a row's start) into
// samples: the byte order, and the predictor undone.
func (s *source) finishRows(p *page, out []byte) {
	es, rb := p.dtype.Size(), p.rowBytes()
	if p.predictor == 3 {
		unshuffleFloat(out, rb, p.blockSamples(), es)
		return
	}
	if s.swapped(p) {
		loader.SwapBytes(out, es)
	}
	if p.predictor == 2 {
		accumulate(out, rb, p.blockSamples(), es)
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

var (
	zstdOnce sync.Once
	zstdDec  *zstd.Decoder
	zstdErr  error
)

// zstdDecoder is shared: DecodeAll is safe for concurrent use, and the cap
// limit stops a frame from decoding more than its block should hold.
func zstdDecoder() (*zstd.Decoder, error) {
	zstdOnce.Do(func() {
		zstdDec, zstdErr = zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(0),
			zstd.WithDecoderMaxMemory(maxBlockBytes),
			zstd.WithDecodeAllCapLimit(true))
	})
	return zstdDec, zstdErr
}

// unZSTD decodes raw into out. A short last strip that was stored at the
// full strip size (up to full bytes) is decoded into scratch space and cut.
func unZSTD(raw, out []byte, full int) error {
	d, err := zstdDecoder()
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
