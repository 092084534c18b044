package store

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// checkStatus turns a response that carries no value into an attemptError.
// It reads a short error body, so that the connection can be reused.
func (h *HTTP) checkStatus(resp *http.Response, body io.Reader, r byteRange) *attemptError {
	c := resp.StatusCode
	if c == http.StatusOK || c == http.StatusPartialContent {
		return nil
	}
	se := &statusError{text: statusText(resp)}
	f := &attemptError{status: c, err: se}
	var detail string
	if c == http.StatusNotFound {
		detail = errorDetail(resp, body)
	}
	switch {
	case c == http.StatusNotFound && strings.HasPrefix(detail, "NoSuchBucket"):
		// An object store's missing bucket is a wrong address, not a
		// missing chunk.
		se.text += " (" + detail + ")"
	case c == http.StatusNotFound || c == http.StatusGone ||
		(c == http.StatusForbidden && h.opt.ForbiddenIsNotFound):
		se.is = ErrNotFound
	case c == http.StatusRequestedRangeNotSatisfiable:
		se.is = ErrOutOfRange
		se.text += " (" + r.String() + ")"
	case c == http.StatusRequestTimeout || c == http.StatusTooManyRequests ||
		(c >= 500 && c != http.StatusNotImplemented && c != http.StatusHTTPVersionNotSupported):
		f.retry = true
		f.after = retryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	if se.is == nil && c != http.StatusNotFound {
		if d := errorDetail(resp, body); d != "" {
			se.text += " (" + d + ")"
		}
	}
	io.CopyN(io.Discard, body, 4<<10)
	return f
}

// statusError is an HTTP status that carries no value, such as
// "503 Service Unavailable"; is is ErrNotFound or ErrOutOfRange when the
// status means that.
type statusError struct {
	text string
	is   error
}

func (e *statusError) Error() string { return e.text }
func (e *statusError) Unwrap() error { return e.is }

// statusText is the response's status line without the protocol.
func statusText(resp *http.Response) string {
	if t := http.StatusText(resp.StatusCode); t != "" {
		return strconv.Itoa(resp.StatusCode) + " " + t
	}
	if resp.Status != "" {
		return resp.Status
	}
	return strconv.Itoa(resp.StatusCode)
}

// s3Field matches <Code> and <Message> in an S3-style XML error body.
var s3Field = regexp.MustCompile(`<(Code|Message)>([^<]{1,200})</`)

// errorDetail returns "Code: Message" from an S3-style XML error body (read
// at most 4 KiB of it), or "".
func errorDetail(resp *http.Response, body io.Reader) string {
	if !strings.Contains(resp.Header.Get("Content-Type"), "xml") {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(body, 4<<10))
	var code, msg string
	for _, m := range s3Field.FindAllStringSubmatch(string(b), 2) {
		if m[1] == "Code" {
			code = m[2]
		} else {
			msg = m[2]
		}
	}
	switch {
	case code != "" && msg != "":
		return code + ": " + msg
	case code != "":
		return code
	}
	return msg
}

// retryAfter parses a Retry-After value (seconds or an HTTP date); 0 if
// absent or not in the future.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, ok := parseCount(strings.TrimSpace(v)); ok {
		return time.Duration(min(s, 86400)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), 86400*time.Second)
	}
	return 0
}

// wait is the pause after failed attempt n (1 for the first): the server's
// Retry-After if it gave one, else Backoff doubled n-1 times, with jitter
// (between half and all of it); never more than MaxWait.
func (h *HTTP) wait(n int, after time.Duration) time.Duration {
	if after > 0 {
		return min(after, h.opt.MaxWait)
	}
	d := h.opt.Backoff
	for i := 1; i < n && d < h.opt.MaxWait; i++ {
		d *= 2
	}
	d = min(d, h.opt.MaxWait)
	return d/2 + rand.N(d/2+1)
}

// sleep waits for d or until ctx ends; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// cause is an error with a shorter message than the one it wraps.
type cause struct {
	msg string
	err error
}

func (c *cause) Error() string { return c.msg }
func (c *cause) Unwrap() error { return c.err }

// describe shortens a transport error to what went wrong, without the
// method, URL and addresses Go's errors repeat.
func describe(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &cause{"connection closed without a response", err}
	}
	var se *os.SyscallError
	if errors.As(err, &se) {
		return &cause{se.Err.Error(), err}
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return &cause{oe.Err.Error(), err}
	}
	return err
}

// retryable reports whether a transport error may go away: everything but
// certificate problems.
func retryable(err error) bool {
	var (
		cv *tls.CertificateVerificationError
		ua x509.UnknownAuthorityError
		hn x509.HostnameError
		ci x509.CertificateInvalidError
	)
	return !errors.As(err, &cv) && !errors.As(err, &ua) && !errors.As(err, &hn) && !errors.As(err, &ci)
}
