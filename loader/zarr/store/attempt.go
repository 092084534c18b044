package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

// Causes of an attempt's cancellation by the store itself.
var (
	errStalled     = errors.New("stalled")
	errAttemptSlow = errors.New("attempt too slow")
	errReadSlow    = errors.New("read too slow")
	errDeadline    = errors.New("read deadline passed")
)

// attemptError is how one attempt failed.
type attemptError struct {
	err    error         // for the message; may match ErrNotFound, ErrOutOfRange
	status int           // response status, 0 if none
	retry  bool          // worth another attempt
	after  time.Duration // the server's Retry-After, 0 if none
}

// attempt makes one request for r of target within a concurrency slot, with
// a watchdog that cancels it when it stops making progress and a pacer that
// cancels it when it is too slow. It adds its time and body bytes to used.
// A value comes with what the response said of it.
//
// A kept value (nil if none) is asked for conditionally and returned as
// it is when the server answers 304 Not Modified.
func (h *HTTP) attempt(ctx context.Context, target string, r byteRange, used *spent, kept *cached) ([]byte, Info, *attemptError) {
	select {
	case h.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, Info{}, &attemptError{err: ctx.Err()}
	}
	defer func() { <-h.slots }()
	// A slot freed by Close may be taken before this read's context hears
	// of it (that news comes on another goroutine): no request begins once
	// the store is closed.
	if h.root.Err() != nil {
		return nil, Info{}, &attemptError{err: ErrClosed}
	}
	h.stats.inFlight.Add(1)
	defer h.stats.inFlight.Add(-1)
	h.stats.requests.Add(1)

	actx, cut := context.WithCancelCause(ctx)
	defer cut(nil)
	watchdog := time.AfterFunc(h.opt.IdleTimeout, func() { cut(errStalled) })
	defer watchdog.Stop()
	if h.opt.Deadline > 0 {
		deadline := time.AfterFunc(h.opt.Deadline, func() { cut(errDeadline) })
		defer deadline.Stop()
	}
	body := &watched{watchdog: watchdog, idle: h.opt.IdleTimeout, bytes: &h.stats.bytes}
	p := h.startPacer(*used, &body.got, cut)
	defer func() {
		p.stop()
		used.time += time.Since(p.start)
		used.bytes += body.got.Load()
	}()

	req, err := http.NewRequestWithContext(actx, http.MethodGet, target, nil)
	if err != nil {
		return nil, Info{}, &attemptError{err: err}
	}
	if v := r.header(); v != "" {
		req.Header.Set("Range", v)
	}
	req.Header.Set("Accept-Encoding", "identity")
	if kept != nil {
		if kept.info.ETag != "" {
			req.Header.Set("If-None-Match", kept.info.ETag)
		}
		if !kept.info.Modified.IsZero() {
			req.Header.Set("If-Modified-Since", kept.info.Modified.UTC().Format(http.TimeFormat))
		}
	}
	if h.opt.Sign != nil {
		if err := h.opt.Sign(req); err != nil {
			return nil, Info{}, &attemptError{err: err}
		}
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, Info{}, h.broken(actx, p, err, false)
	}
	defer resp.Body.Close()
	body.r = resp.Body
	if resp.StatusCode == http.StatusNotModified && kept != nil {
		io.CopyN(io.Discard, body, 4<<10)
		return kept.data, kept.info, nil
	}
	if f := h.checkStatus(resp, body, r); f != nil {
		return nil, Info{}, f
	}
	b, err := h.readBody(resp, body, r)
	if err != nil {
		var re *readError
		if errors.As(err, &re) {
			return nil, Info{}, h.brokenBody(actx, p, re, resp.StatusCode)
		}
		return nil, Info{}, &attemptError{err: err, status: resp.StatusCode}
	}
	return b, responseInfo(resp, b), nil
}

// responseInfo is what resp, which brought b, says of the value.
func responseInfo(resp *http.Response, b []byte) Info {
	info := Info{Size: int64(len(b)), ETag: resp.Header.Get("ETag")}
	if t, err := http.ParseTime(resp.Header.Get("Last-Modified")); err == nil {
		info.Modified = t
	}
	return info
}

// broken describes a failed request or body read.
func (h *HTTP) broken(actx context.Context, p *pacer, err error, body bool) *attemptError {
	switch context.Cause(actx) {
	case errStalled:
		if body {
			return &attemptError{err: fmt.Errorf("no data for %v", h.opt.IdleTimeout), retry: true}
		}
		return &attemptError{err: fmt.Errorf("no response within %v", h.opt.IdleTimeout), retry: true}
	case errAttemptSlow:
		return &attemptError{err: p.tooSlow(false), retry: true}
	case errReadSlow:
		return &attemptError{err: p.tooSlow(true)}
	case errDeadline:
		return &attemptError{err: fmt.Errorf("%w: no complete answer within %v", errDeadline, h.opt.Deadline)}
	}
	return &attemptError{err: describe(err), retry: retryable(err)}
}

// brokenBody describes a failed body read.
func (h *HTTP) brokenBody(actx context.Context, p *pacer, re *readError, status int) *attemptError {
	f := h.broken(actx, p, re.err, true)
	f.status = status
	if actx.Err() == nil && (errors.Is(re.err, io.EOF) || errors.Is(re.err, io.ErrUnexpectedEOF)) {
		f.err, f.retry = re, true
	}
	return f
}

// readError is a body that broke off after got of want bytes (want -1 if
// unknown).
type readError struct {
	err       error
	got, want int64
}

func (e *readError) Error() string {
	if e.want >= 0 {
		return fmt.Sprintf("body truncated at %d of %d bytes", e.got, e.want)
	}
	return fmt.Sprintf("body truncated after %d bytes", e.got)
}

func (e *readError) Unwrap() error { return e.err }

// watched is a response body whose every read that brings data re-arms the
// attempt's watchdog and is counted, for the attempt (got) and the store.
type watched struct {
	r        io.Reader
	watchdog *time.Timer
	idle     time.Duration
	got      atomic.Int64
	bytes    *atomic.Int64
}

func (w *watched) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if n > 0 {
		w.watchdog.Reset(w.idle)
		w.got.Add(int64(n))
		w.bytes.Add(int64(n))
	}
	return n, err
}
