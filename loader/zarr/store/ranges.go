package store

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// byteRange is what a read asks for: the whole value (all), n bytes at off,
// or the last n bytes (suffix); limit, when above 0, is the most bytes of
// body it reads, if less than MaxBody.
type byteRange struct {
	all    bool
	suffix bool
	off, n int64
	limit  int64
}

// header returns the Range header value ("" for the whole value).
func (r byteRange) header() string {
	switch {
	case r.all:
		return ""
	case r.suffix:
		return "bytes=-" + strconv.FormatInt(r.n, 10)
	}
	return fmt.Sprintf("bytes=%d-%d", r.off, r.off+r.n-1)
}

// String describes the range for messages.
func (r byteRange) String() string {
	switch {
	case r.all:
		return "whole value"
	case r.suffix:
		return fmt.Sprintf("last %d bytes", r.n)
	}
	return fmt.Sprintf("bytes %d-%d", r.off, r.off+r.n-1)
}

// span is the part of a response body a read keeps: skip bytes, then take.
type span struct{ skip, take int64 }

// errProtocol marks a response that breaks HTTP's range rules; such
// responses are not retried.
var errProtocol = errors.New("bad response")

// plan says which bytes of a body to keep: the body holds bytes
// [start, start+length) of a value of size total (-1 if unknown). A range
// reaching past the end of the value is ErrOutOfRange; a body that does not
// hold the range for another reason is errProtocol.
func (r byteRange) plan(start, length, total int64) (span, error) {
	end := start + length
	if r.all {
		if start != 0 || (total >= 0 && end != total) {
			return span{}, fmt.Errorf("%w: partial content for a whole value", errProtocol)
		}
		return span{0, length}, nil
	}
	if total < 0 && r.suffix {
		total = end // a suffix is served up to the end
	}
	want := r.off
	if r.suffix {
		want = total - r.n
	}
	switch {
	case want < 0 && start == 0:
		return span{}, fmt.Errorf("%s of a %d-byte value: %w", r, total, ErrOutOfRange)
	case want < start:
		return span{}, fmt.Errorf("%w: sent bytes from %d for %s", errProtocol, start, r)
	case want+r.n > end && end == total:
		return span{}, fmt.Errorf("%s of a %d-byte value: %w", r, total, ErrOutOfRange)
	case want+r.n > end:
		return span{}, fmt.Errorf("%w: sent bytes %d-%d for %s", errProtocol, start, end-1, r)
	}
	return span{want - start, r.n}, nil
}

// parseContentRange parses a Content-Range value "bytes FIRST-LAST/TOTAL"
// (TOTAL may be "*", giving -1).
func parseContentRange(s string) (first, last, total int64, err error) {
	bad := fmt.Errorf("%w: Content-Range %q", errProtocol, s)
	rest, ok := strings.CutPrefix(s, "bytes ")
	if !ok {
		return 0, 0, 0, bad
	}
	rng, tot, ok := strings.Cut(strings.TrimSpace(rest), "/")
	if !ok {
		return 0, 0, 0, bad
	}
	a, b, ok := strings.Cut(rng, "-")
	if !ok {
		return 0, 0, 0, bad
	}
	first, ok1 := parseCount(a)
	last, ok2 := parseCount(b)
	total, ok3 := int64(-1), true
	if tot != "*" {
		total, ok3 = parseCount(tot)
	}
	if !ok1 || !ok2 || !ok3 || last < first || (total >= 0 && last >= total) {
		return 0, 0, 0, bad
	}
	return first, last, total, nil
}

// parseCount parses a non-negative decimal integer, digits only.
func parseCount(s string) (int64, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	var v int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}
