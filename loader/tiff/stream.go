package tiff

import (
	"bytes"
	"compress/zlib"
	"errors"
	"io"
	"sync"

	"golang.org/x/image/tiff/lzw"

	"github.com/klauspost/compress/zstd"

	"vastview/loader"
)

// A strip whose decoded rows are many times the band size (one zlib strip
// for a whole 8192² page, as some writers make) is read in bands: each
// band decodes the strip's stream from the start, or from where the read
// of the band before it ended, up to the band's last row, keeping only the
// band's rows. Memory is one band, whatever the strip's size.

// streamable reports whether p's strips can be decoded a band at a time.
func (p *page) streamable() bool {
	switch p.compression {
	case cLZW, cDeflate, cDeflOld, cZSTD:
		return !p.tiled && !p.converted()
	}
	return false
}

// bandedStrips reports whether p's strips are read in bands, not whole.
func (p *page) bandedStrips() bool {
	return p.streamable() && int64(p.bh)*int64(p.rowBytes()) > 2*p.bands.band
}

// stripKey names a strip: its page (by IFD, and offset for pages without
// one) and its index.
type stripKey struct {
	ifd, shift int64
	block      int
}

// stream is a strip's decoder part way through.
type stream struct {
	r     io.Reader
	close func()
}

// kept is a decoder stopped at a row of its strip.
type kept struct {
	strip stripKey
	row   int
	st    *stream
	used  uint64 // when it was kept, for eviction
}

// streams keeps the decoders of strips read in bands where they stopped,
// a few per source, so that reading a strip's bands in order decodes it
// once: a read takes the decoder stopped nearest before its first row,
// or, when a read of the same strip in progress will stop at or before
// that row, waits for it (several readers of one plane's bands then take
// turns rather than each decoding the strip from its start).
type streams struct {
	mu       sync.Mutex
	cond     *sync.Cond
	kept     []kept
	inflight map[stripKey][]int // where the reads in progress of each strip stop
	clock    uint64
}

// maxStreams is how many stopped decoders a source keeps.
const maxStreams = 8

// take returns the decoder of strip k to read rows [r0, r1) from: one
// stopped at or before r0 (the caller discards up to r0), or nil to start
// one. The caller calls keep or done with r1 afterwards.
func (ss *streams) take(k stripKey, r0, r1 int) (*stream, int) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.cond == nil {
		ss.cond = sync.NewCond(&ss.mu)
		ss.inflight = map[stripKey][]int{}
	}
	for {
		best := -1
		for i, e := range ss.kept {
			if e.strip == k && e.row <= r0 && (best < 0 || e.row > ss.kept[best].row) {
				best = i
			}
		}
		if best >= 0 {
			e := ss.kept[best]
			ss.kept = append(ss.kept[:best], ss.kept[best+1:]...)
			ss.inflight[k] = append(ss.inflight[k], r1)
			return e.st, e.row
		}
		wait := false
		for _, end := range ss.inflight[k] {
			wait = wait || end <= r0
		}
		if !wait {
			ss.inflight[k] = append(ss.inflight[k], r1)
			return nil, 0
		}
		ss.cond.Wait()
	}
}

// done ends a read of strip k that stopped at r1, keeping its decoder st
// there unless st is nil (the strip ended, or the read failed).
func (ss *streams) done(k stripKey, r1 int, st *stream) {
	ss.mu.Lock()
	ends := ss.inflight[k]
	for i, e := range ends {
		if e == r1 {
			ends = append(ends[:i], ends[i+1:]...)
			break
		}
	}
	if len(ends) == 0 {
		delete(ss.inflight, k)
	} else {
		ss.inflight[k] = ends
	}
	var evict *stream
	if st != nil {
		ss.clock++
		ss.kept = append(ss.kept, kept{strip: k, row: r1, st: st, used: ss.clock})
		if len(ss.kept) > maxStreams {
			old := 0
			for i, e := range ss.kept {
				if e.used < ss.kept[old].used {
					old = i
				}
			}
			evict = ss.kept[old].st
			ss.kept = append(ss.kept[:old], ss.kept[old+1:]...)
		}
	}
	ss.cond.Broadcast()
	ss.mu.Unlock()
	if evict != nil {
		evict.close()
	}
}

// drop closes every decoder kept (the source closes).
func (ss *streams) drop() {
	ss.mu.Lock()
	ks := ss.kept
	ss.kept = nil
	ss.mu.Unlock()
	for _, e := range ks {
		e.st.close()
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
	r1 := r0 + len(out)/rb
	k := stripKey{ifd: p.ifd, shift: p.shift, block: b}
	st, at := s.streams.take(k, r0, r1)
	err := func() error {
		if st == nil {
			var err error
			if st, err = newStream(p, raw); err != nil {
				return err
			}
		}
		if _, err := io.CopyN(io.Discard, st.r, int64(r0-at)*int64(rb)); err != nil {
			return shortened(err)
		}
		return readFull(st.r, out)
	}()
	if err != nil || r1 >= p.blockRows(b) {
		if st != nil {
			st.close()
		}
		st = nil
	}
	s.streams.done(k, r1, st)
	if err != nil {
		var ue *loader.UnsupportedError
		if errors.As(err, &ue) {
			return err
		}
		return blockErr(p, b, "%v", err)
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
