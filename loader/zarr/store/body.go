package store

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
)

// readBody reads the part of a 200 or 206 response that r asks for,
// checking the lengths the response declares against r and the limit
// before it allocates. A body that breaks off gives a *readError.
func (h *HTTP) readBody(resp *http.Response, body io.Reader, r byteRange) ([]byte, error) {
	start, length, total := int64(0), resp.ContentLength, resp.ContentLength
	if resp.StatusCode == http.StatusPartialContent {
		first, last, tot, err := parseContentRange(resp.Header.Get("Content-Range"))
		if err != nil {
			return nil, err
		}
		if length >= 0 && length != last-first+1 {
			return nil, fmt.Errorf("%w: Content-Length %d for bytes %d-%d", errProtocol, length, first, last)
		}
		start, length, total = first, last-first+1, tot
	}
	if length < 0 {
		return h.readUnsized(body, r)
	}
	sp, err := r.plan(start, length, total)
	if err != nil {
		return nil, err
	}
	if sp.skip+sp.take > h.limit(r) {
		return nil, h.tooLarge(r, sp.skip+sp.take)
	}
	if got, err := discard(body, sp.skip); err != nil {
		return nil, &readError{err, got, length}
	}
	b := make([]byte, sp.take)
	if got, err := readFull(body, b); err != nil {
		return nil, &readError{err, sp.skip + int64(got), length}
	}
	return b, nil
}

// readUnsized reads r from a 200 response of unknown length, at most
// limit bytes of it: a range at an offset up to its end, a suffix or a
// whole value to the end of the body. Buffers grow as bytes arrive.
func (h *HTTP) readUnsized(body io.Reader, r byteRange) ([]byte, error) {
	max := h.limit(r)
	lim := &io.LimitedReader{R: body, N: max}
	var buf bytes.Buffer
	var err error
	if r.all || r.suffix {
		_, err = buf.ReadFrom(lim)
	} else if _, err = discard(lim, r.off); err == nil {
		_, err = buf.ReadFrom(io.LimitReader(lim, r.n))
	}
	got := max - lim.N
	if err != nil && err != io.EOF {
		return nil, &readError{err, got, -1}
	}
	b := buf.Bytes()
	short := r.all || r.suffix || int64(len(b)) < r.n // needs what lies beyond
	if lim.N == 0 && short {
		// The limit is reached: the value is too large if the body goes
		// on, complete only if it ends cleanly here.
		switch more, err := more(body); {
		case more:
			return nil, h.tooLarge(r, -1)
		case err != io.EOF:
			return nil, &readError{err, got, -1}
		}
	}
	if r.all {
		return b, nil
	}
	sp, err := r.plan(got-int64(len(b)), int64(len(b)), got)
	if err != nil {
		return nil, err
	}
	if sp.take == int64(len(b)) {
		return b, nil
	}
	return bytes.Clone(b[sp.skip : sp.skip+sp.take]), nil
}

// more reports whether r has another byte; if not, the error that ended
// it (io.EOF for a clean end).
func more(r io.Reader) (bool, error) {
	var b [1]byte
	n, err := io.ReadFull(r, b[:])
	return n > 0, err
}

// limit is the most bytes of body read for r.
func (h *HTTP) limit(r byteRange) int64 {
	if r.limit > 0 {
		return min(r.limit, h.opt.MaxBody)
	}
	return h.opt.MaxBody
}

// tooLarge reports a read that needs n (-1: an unknown number) bytes of
// body, more than the limit. The error matches ErrTooLarge.
func (h *HTTP) tooLarge(r byteRange, n int64) error {
	lim := h.limit(r)
	var msg string
	switch {
	case r.all && n < 0:
		msg = fmt.Sprintf("value is over the %d-byte limit", lim)
	case r.all:
		msg = fmt.Sprintf("value of %d bytes is over the %d-byte limit", n, lim)
	case n < 0:
		msg = fmt.Sprintf("server ignored the Range header: reading %s needs more than the %d-byte limit", r, lim)
	default:
		msg = fmt.Sprintf("server ignored the Range header: reading %s needs %d bytes, over the %d-byte limit", r, n, lim)
	}
	return &cause{msg, ErrTooLarge}
}

// readFull fills p from r. On a short read it returns the reader's own
// error: io.EOF for a clean end, io.ErrUnexpectedEOF for a broken one.
func readFull(r io.Reader, p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m, err := r.Read(p[n:])
		n += m
		if err != nil {
			if n == len(p) {
				return n, nil
			}
			return n, err
		}
	}
	return n, nil
}

// discard reads and drops n bytes of r.
func discard(r io.Reader, n int64) (int64, error) {
	if n == 0 {
		return 0, nil
	}
	got, err := io.CopyN(io.Discard, r, n)
	return got, err
}
