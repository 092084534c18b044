package stream

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/ulikunitz/xz/lzma"

	"vastview/loader"
)

// XZReader reads the xz stream b: the data of its first block, whose
// filters are LZMA2 alone (as Python's lzma module, numcodecs and Java's
// xz write it) or a delta filter then LZMA2 (as libtiff writes it), with a
// dictionary of at most max(dictCap, the smallest LZMA2 allows) bytes —
// the decoded size is enough, as a stream refers back no further than
// what it has decoded. Later blocks and the stream's index are not read.
func XZReader(b []byte, dictCap int) (io.Reader, error) {
	data, delta, err := xzBlock(b)
	if err != nil {
		return nil, err
	}
	r, err := lzma.Reader2Config{DictCap: min(max(lzma.MinDictCap, dictCap), 1<<28)}.NewReader2(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("xz: %v", err)
	}
	if delta == 0 {
		return r, nil
	}
	return &deltaReader{r: r, hist: make([]byte, delta)}, nil
}

// deltaReader undoes the xz delta filter: each byte adds the byte decoded
// dist bytes before it (zeros before the first).
type deltaReader struct {
	r    io.Reader
	hist []byte // the last len(hist) bytes decoded, a ring
	at   int
}

func (d *deltaReader) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	for i := range p[:n] {
		p[i] += d.hist[d.at]
		d.hist[d.at] = p[i]
		if d.at++; d.at == len(d.hist) {
			d.at = 0
		}
	}
	return n, err
}

var errXZ = errors.New("xz: bad block header")

// xzBlock returns the LZMA2 data of the first block of the xz stream b and
// the distance of the delta filter before it (0 for none).
func xzBlock(b []byte) (data []byte, delta int, err error) {
	if len(b) < 13 || string(b[:6]) != "\xfd7zXZ\x00" {
		return nil, 0, errors.New("xz: no stream header")
	}
	h := b[12:]
	size := (int(h[0]) + 1) * 4
	if h[0] == 0 || size > len(h) || size < 8 {
		return nil, 0, errXZ
	}
	hdr := h[1 : size-4]
	flags := hdr[0]
	hdr = hdr[1:]
	varint := func() (uint64, bool) {
		var v uint64
		for i := 0; i < 9 && i < len(hdr); i++ {
			v |= uint64(hdr[i]&0x7f) << (7 * i)
			if hdr[i] < 0x80 {
				hdr = hdr[i+1:]
				return v, true
			}
		}
		return 0, false
	}
	for _, bit := range []byte{0x40, 0x80} { // compressed, uncompressed sizes
		if flags&bit != 0 {
			if _, ok := varint(); !ok {
				return nil, 0, errXZ
			}
		}
	}
	filters := int(flags&3) + 1
	for k := 0; k < filters; k++ {
		id, ok1 := varint()
		n, ok2 := varint()
		if !ok1 || !ok2 || n > uint64(len(hdr)) {
			return nil, 0, errXZ
		}
		props := hdr[:n]
		hdr = hdr[n:]
		switch {
		case id == 0x03 && k < filters-1 && n == 1:
			delta = int(props[0]) + 1
		case id == 0x21 && k == filters-1:
		default:
			return nil, 0, &loader.UnsupportedError{Format: "xz", Feature: fmt.Sprintf("filter %#x", id)}
		}
	}
	return h[size:], delta, nil
}
