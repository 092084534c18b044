package tiff

import (
	"bytes"
	"compress/zlib"
	"io"
	"sync"

	"golang.org/x/image/tiff/lzw"

	"github.com/klauspost/compress/zstd"

	"vastview/internal/lru"
)

// A strip whose decoded rows are many times bandBytes (one zlib strip
// for a whole 8192² page, as some writers make) is read in bands: each
// band decodes the strip's stream from the start, or from where the read
// of the band before it ended, up to the band's last row, keeping only the
// band's rows. Memory is one band, whatever the strip's size.

// streamable reports whether p's strips can be decoded a band at a time.
func (p *page) streamable() bool {
	switch p.compression {
	case cLZW, cDeflate, cDeflOld, cZSTD:
		return !p.tiled
	}
	return false
}

// bandedStrips reports whether p's strips are read in bands, not whole.
func (p *page) bandedStrips() bool {
	return p.streamable() && int64(p.bh)*int64(p.rowBytes()) > 2*bandBytes
}

// streamKey names where a stream stopped: the block (by its page's IFD and
// its index) and the row reached.
type streamKey struct {
	ifd      int64
	block    int
	row      int
	shift    int64
	compress int
}

// stream is a strip's decoder part way through.
type stream struct {
	r     io.Reader
	close func()
}

// streams keeps the decoders of the strips read in bands where they
// stopped, a few per source, so that reading a strip's bands in order
// decodes it once.
type streams struct {
	mu sync.Mutex
	c  *lru.Cache[streamKey, *stream]
}

// maxStreams is how many stopped decoders a source keeps.
const maxStreams = 8

// take returns the decoder of block b of p stopped at row, if kept.
func (ss *streams) take(k streamKey) *stream {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.c == nil {
		return nil
	}
	st, ok := ss.c.Get(k)
	if ok {
		ss.c.Remove(k)
	}
	return st
}

// keep holds st, stopped where k says.
func (ss *streams) keep(k streamKey, st *stream) {
	ss.mu.Lock()
	if ss.c == nil {
		ss.c = lru.New[streamKey, *stream](maxStreams)
	}
	evicted := ss.c.Put(k, st, 1)
	ss.mu.Unlock()
	for _, e := range evicted {
		e.Val.close()
	}
}

// drop closes every decoder kept (the source closes).
func (ss *streams) drop() {
	ss.mu.Lock()
	c := ss.c
	ss.c = nil
	ss.mu.Unlock()
	for c != nil {
		_, st, ok := c.RemoveOldest()
		if !ok {
			break
		}
		st.close()
	}
}

// newStream starts decoding the compressed strip raw.
func newStream(p *page, raw []byte) (*stream, error) {
	br := bytes.NewReader(raw)
	switch p.compression {
	case cLZW:
		if len(raw) >= 2 && raw[0] == 0 && raw[1]&1 != 0 {
			return nil, unsupported("old-style (LSB-first) LZW compression")
		}
		r := lzw.NewReader(br, lzw.MSB, 8)
		return &stream{r: r, close: func() { r.Close() }}, nil
	case cZSTD:
		d, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, err
		}
		return &stream{r: d, close: d.Close}, nil
	}
	z, err := zlib.NewReader(br)
	if err != nil {
		return nil, err
	}
	return &stream{r: z, close: func() { z.Close() }}, nil
}

// decodeRows decodes rows [r0, r0+len(out)/rowBytes) of strip b of p,
// whose compressed bytes are raw, into out, as decodeBlock would decode
// them with the rest of the strip.
func (s *source) decodeRows(p *page, b int, raw []byte, r0 int, out []byte) error {
	rb := p.rowBytes()
	n := len(out) / rb
	k := streamKey{ifd: p.ifd, block: b, row: r0, shift: p.shift, compress: p.compression}
	st := s.streams.take(k)
	if st == nil {
		var err error
		if st, err = newStream(p, raw); err != nil {
			return blockErr(p, b, "%v", err)
		}
		if _, err := io.CopyN(io.Discard, st.r, int64(r0)*int64(rb)); err != nil {
			st.close()
			return blockErr(p, b, "%v", shortened(err))
		}
	}
	if err := readFull(st.r, out); err != nil {
		st.close()
		return blockErr(p, b, "%v", err)
	}
	if r0+n < p.blockRows(b) {
		k.row = r0 + n
		s.streams.keep(k, st)
	} else {
		st.close()
	}
	s.finishRows(p, out)
	return nil
}

// shortened is err, or errShort for a stream that ended early.
func shortened(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return errShort
	}
	return err
}
