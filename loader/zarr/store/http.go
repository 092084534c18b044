package store

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// HTTPOptions tunes an HTTP store. Zero fields take the defaults given.
type HTTPOptions struct {
	// Client sends the requests; nil means a client with keep-alive, enough
	// idle connections per host for MaxConcurrent, and no transparent
	// decompression.
	Client *http.Client
	// MaxConcurrent is the number of requests in flight at once (default
	// 16). Waiting for a slot honours the read's context.
	MaxConcurrent int
	// IdleTimeout fails (and retries) an attempt that makes no progress, no
	// response headers or no body bytes, for this long (default 5s).
	IdleTimeout time.Duration
	// AttemptTimeout, ReadTimeout and MinRate say when a server is too
	// slow. An attempt fails (and is retried) once it has run longer than
	// AttemptTimeout plus the time its body bytes take at MinRate; a read
	// fails, without another attempt, once it has run longer than
	// ReadTimeout plus the time all its body bytes take at MinRate.
	//
	// So a server that sends the body at MinRate or faster is never cut
	// off, however large the value (a 64 MiB chunk over a slow link), and
	// one that sends less, for example a byte every few seconds, which
	// never trips IdleTimeout, is reported after about ReadTimeout. The
	// time allowed grows with the bytes received rather than with the
	// bytes expected, so that a dribbling server is caught as soon for a
	// large value as for a small one, and a body of unknown length is
	// judged like any other.
	//
	// AttemptTimeout defaults to 20s.
	AttemptTimeout time.Duration
	// ReadTimeout bounds a read (see AttemptTimeout): its attempts and the
	// waits between them count, not the time waiting for a concurrency
	// slot, and no attempt is begun that would start after the bound.
	// Default 20s, or AttemptTimeout if that is longer.
	ReadTimeout time.Duration
	// MinRate, in bytes per second, is the average rate at or above which
	// a body is never cut off (see AttemptTimeout). Default 1 KiB/s per
	// request: what each of 16 requests in flight gets from a link of
	// about 128 kbit/s.
	MinRate int64
	// Retries is the number of retries after the first attempt (default 4;
	// negative: none).
	Retries int
	// Backoff is the wait before the first retry (default 100ms), doubled
	// for each further retry, with jitter.
	Backoff time.Duration
	// MaxWait caps one wait between attempts, including a server's
	// Retry-After (default 10s).
	MaxWait time.Duration
	// MaxBody is the largest response body read (default 2 GiB); larger
	// values are an error matching ErrTooLarge.
	MaxBody int64
	// ForbiddenIsNotFound makes 403 Forbidden mean a missing key. S3 answers
	// 403 for a missing key when the caller may not list the bucket, but
	// also for expired or wrong credentials, so by default 403 is an error
	// (reported at once) rather than silently turning chunks into fill.
	ForbiddenIsNotFound bool
	// Deadline, if above 0, bounds each request, from when it is sent to
	// its body's last byte, however steadily the body comes (so unlike
	// ReadTimeout it also cuts off a large value over a slow link); one
	// that runs out fails the read without another attempt. Open sets it
	// to DefaultDeadline.
	Deadline time.Duration
	// Sign, if not nil, is called on every request just before it is sent
	// (after its headers are set), to authorise it: object stores sign
	// requests with it. Its error fails the read at once; it must not
	// put credentials in that error.
	Sign func(*http.Request) error
	// Reauthorize, if not nil, is called once per read when a request is
	// refused (401 Unauthorized, 403 Forbidden); if it returns true (it
	// changed what Sign does, say from anonymous to signed requests), the
	// request is made again at once.
	Reauthorize func(context.Context) bool
	// Explain, if not nil, turns the final error of a failed read into the
	// one returned, for a message that says what to do; the result must
	// match what the *HTTPError given matches (errors.Is).
	Explain func(*HTTPError) error
	// Name, if not empty, is the store's location in messages and String
	// instead of the base URL (an s3:// address for an object store).
	Name string
	// Cache, if not nil, keeps the values read, validated on use: a value
	// the cache holds is asked for with If-None-Match / If-Modified-Since,
	// and a 304 answer is served from the cache, as is a read that fails
	// because the server cannot be reached. Its entries are keyed by the
	// endpoint (scheme, host, port), the path, and Region: a value is
	// never served for another server holding the same bucket and key.
	Cache *DiskCache
	// Write asks an object store's credentials for write access as well
	// (Google's token scope), for Put and Delete.
	Write bool
	// PartSize is the size above which Put uploads a value in parts, and
	// their size (default DefaultPartSize; S3 wants at least 5 MiB).
	PartSize int64
	// Region is the region of the values' endpoint (an S3 store's), "" if
	// none; with the endpoint it keys the values in Cache.
	Region string
}

// withDefaults fills in the zero fields of o.
func (o HTTPOptions) withDefaults() HTTPOptions {
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = 16
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 5 * time.Second
	}
	if o.AttemptTimeout <= 0 {
		o.AttemptTimeout = 20 * time.Second
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = max(20*time.Second, o.AttemptTimeout)
	}
	if o.MinRate <= 0 {
		o.MinRate = 1 << 10
	}
	switch {
	case o.Retries == 0:
		o.Retries = 4
	case o.Retries < 0:
		o.Retries = 0
	}
	if o.Backoff <= 0 {
		o.Backoff = 100 * time.Millisecond
	}
	if o.MaxWait <= 0 {
		o.MaxWait = 10 * time.Second
	}
	if o.PartSize <= 0 {
		o.PartSize = DefaultPartSize
	}
	if o.MaxBody <= 0 {
		o.MaxBody = 2 << 30
	}
	return o
}

// HTTP is a Store that GETs key K from BASE/K over HTTP(S): plain web
// servers and S3-compatible object stores (path-style URLs). A query string
// of the base URL (an access token, a presigned signature) is sent with
// every request but never shown in messages, nor is a password.
//
// 404 Not Found and 410 Gone mean a missing key (ErrNotFound); 403
// Forbidden is an error unless HTTPOptions.ForbiddenIsNotFound. 5xx (but 501
// and 505), 408, 429 (after the server's Retry-After), stalls, attempts
// that are too slow, broken connections and truncated bodies are retried
// with exponential backoff and jitter, while the read has time left (see
// HTTPOptions.ReadTimeout); other statuses fail at once. Failures are
// *HTTPError values of one line. HTTP is safe for concurrent use.
type HTTP struct {
	prefix string // base URL with a trailing '/', for requests
	origin string // prefix without credentials, host and scheme canonical (Origin)
	query  string // "?query" of the base URL, or ""
	shown  string // prefix without credentials, for messages
	opt    HTTPOptions
	client *http.Client
	own    bool // client made here: Close drops its idle connections
	slots  chan struct{}

	root  context.Context // cancelled by Close
	stop  context.CancelFunc
	mu    sync.Mutex
	dead  bool
	calls sync.WaitGroup

	stats counters

	list, listPrefix string // bucket URL and key prefix for List; "" if none
}

// NewHTTP returns a store reading keys below the base URL, which must be
// http:// or https:// with a host.
//
// It makes the standard logger drop the line net/http's Transport prints
// when a server sends more than a response's Content-Length ("Unsolicited
// response received on idle HTTP channel"), which a client cannot
// otherwise prevent; the value read is the length announced.
func NewHTTP(base string, opt HTTPOptions) (*HTTP, error) {
	u, err := url.Parse(base)
	if err != nil {
		// The parser's reason quotes the part it could not read, which may
		// be a password: say what is wrong without it.
		return nil, errors.New("invalid URL: " + urlProblem(err))
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("invalid URL: want http:// or https:// and a host")
	}
	muteUnsolicited()
	h := &HTTP{opt: opt.withDefaults()}
	if u.RawQuery != "" {
		h.query = "?" + u.RawQuery
	}
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = "", false, "", ""
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		if u.RawPath != "" {
			u.RawPath += "/"
		}
	}
	h.setPrefix(u.String())
	u.User = nil
	h.shown = u.String()
	if h.opt.Name != "" {
		h.shown = strings.TrimSuffix(h.opt.Name, "/") + "/"
	}
	h.client = h.opt.Client
	if h.client == nil {
		h.client, h.own = newClient(h.opt.MaxConcurrent), true
	}
	h.slots = make(chan struct{}, h.opt.MaxConcurrent)
	h.root, h.stop = context.WithCancel(context.Background())
	return h, nil
}

// urlProblem says what url.Parse found wrong, without quoting the address.
func urlProblem(err error) string {
	msg := err.Error()
	for _, w := range []string{"port", "userinfo", "host", "escape", "control character", "scheme"} {
		if strings.Contains(msg, w) {
			return "malformed " + w
		}
	}
	return "malformed"
}

// newClient returns a client whose transport keeps enough idle
// connections for n concurrent requests and leaves bodies as sent.
func newClient(n int) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = max(100, 2*n)
	t.MaxIdleConnsPerHost = n
	t.DisableCompression = true
	t.ForceAttemptHTTP2 = true // HTTP/2 where a TLS server offers it
	return &http.Client{Transport: t}
}

// String returns the base URL without credentials or query string (or
// HTTPOptions.Name).
func (h *HTTP) String() string { return h.shown }

// Origin returns the URL the values are read from, for keys of caches:
// the endpoint's scheme and host (lower case) and port (left out when it
// is the scheme's default), and the path with a trailing '/', without
// credentials or query string. Unlike String, it tells apart two servers
// that hold the same bucket and key (an s3:// address read through
// different AWS_ENDPOINT_URLs).
func (h *HTTP) Origin() string { return h.origin }

// setPrefix sets the base URL of requests, and Origin from it.
func (h *HTTP) setPrefix(p string) {
	h.prefix = p
	u, err := url.Parse(p)
	if err != nil {
		h.origin = p
		return
	}
	u.User = nil
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	if port := u.Port(); (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		u.Host = u.Hostname()
		if strings.Contains(u.Host, ":") {
			u.Host = "[" + u.Host + "]"
		}
	}
	h.origin = u.String()
}

// Stats returns a snapshot of the store's counters.
func (h *HTTP) Stats() Stats { return h.stats.snapshot() }

// Close cancels the reads in flight, waits for them to return (they return
// ErrClosed), and drops idle connections. Later calls fail with ErrClosed.
func (h *HTTP) Close() error {
	h.mu.Lock()
	h.dead = true
	h.mu.Unlock()
	h.stop()
	h.calls.Wait()
	if h.own {
		h.client.CloseIdleConnections()
	}
	return nil
}

// Get returns the whole value of key.
func (h *HTTP) Get(ctx context.Context, key string) ([]byte, error) {
	b, _, err := h.read(ctx, key, byteRange{all: true})
	return b, err
}

// GetAtMost returns the whole value of key, if it holds at most max bytes
// (and MaxBody), with the size, ETag and Last-Modified of the response. A
// larger value is an error matching ErrTooLarge, reported from the
// Content-Length before the body is read when the server sends one.
func (h *HTTP) GetAtMost(ctx context.Context, key string, max int64) ([]byte, Info, error) {
	if max <= 0 {
		return nil, Info{}, errors.New("GetAtMost: limit must be positive")
	}
	return h.read(ctx, key, byteRange{all: true, limit: max})
}

// GetRange returns n bytes of key's value at off, or its last -off bytes
// when off < 0, with a Range request. A server that ignores the range is
// read up to the bytes wanted (within MaxBody) and sliced.
func (h *HTTP) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	if err := badRange(off, n); err != nil {
		return nil, err
	}
	r := byteRange{off: off, n: n}
	if off < 0 {
		r = byteRange{suffix: true, n: -off}
	}
	if err := checkKey(key); err != nil {
		return nil, err
	}
	if r.n > h.opt.MaxBody {
		return nil, fmt.Errorf("GET %s%s: %w", h.shown, escapeKey(key),
			&cause{fmt.Sprintf("%s are over the %d-byte limit", r, h.opt.MaxBody), ErrTooLarge})
	}
	if r.n == 0 {
		if h.root.Err() != nil {
			return nil, ErrClosed
		}
		return []byte{}, nil
	}
	b, _, err := h.read(ctx, key, r)
	return b, err
}

// begin registers a read and returns its context, cancelled also by Close,
// and the function that ends the read.
func (h *HTTP) begin(ctx context.Context) (context.Context, func(), error) {
	h.mu.Lock()
	if h.dead {
		h.mu.Unlock()
		return nil, nil, ErrClosed
	}
	h.calls.Add(1)
	h.mu.Unlock()
	if err := ctx.Err(); err != nil {
		h.calls.Done()
		return nil, nil, err
	}
	cctx, cancel := context.WithCancelCause(ctx)
	unhook := context.AfterFunc(h.root, func() { cancel(ErrClosed) })
	return cctx, func() {
		unhook()
		cancel(nil)
		h.calls.Done()
	}, nil
}

// ended returns the error for a read whose context ended or whose store
// closed: ErrClosed if the store was closed, else the caller's ctx.Err().
func (h *HTTP) ended(ctx context.Context) error {
	if h.root.Err() != nil || errors.Is(context.Cause(ctx), ErrClosed) {
		return ErrClosed
	}
	return ctx.Err()
}

// read fetches r of key, retrying failed attempts.
func (h *HTTP) read(ctx context.Context, key string, r byteRange) ([]byte, Info, error) {
	if err := checkKey(key); err != nil {
		return nil, Info{}, err
	}
	ctx, done, err := h.begin(ctx)
	if err != nil {
		return nil, Info{}, err
	}
	defer done()
	esc := escapeKey(key)
	target, shown := h.prefix+esc+h.query, h.shown+esc
	// The endpoint and region as well as the key, never credentials nor
	// query string, on disk.
	ck := h.origin + esc + "#" + r.String()
	if h.opt.Region != "" {
		ck += "#region=" + h.opt.Region
	}
	var kept *cached
	if h.opt.Cache != nil {
		if kept = h.opt.Cache.get(ck); kept != nil && r.limit > 0 && kept.info.Size > r.limit {
			kept = nil
		}
	}
	var used spent
	reauth := false
	for n := 1; ; n++ {
		b, info, fail := h.attempt(ctx, target, r, &used, kept)
		if fail == nil {
			if h.opt.Cache != nil && !sameBytes(b, kept) {
				h.opt.Cache.put(ck, b, info)
			}
			return b, info, nil
		}
		if ctx.Err() != nil || h.root.Err() != nil {
			return nil, Info{}, h.ended(ctx)
		}
		if h.opt.Cache != nil && fail.status == 0 && unreachable(fail.err) {
			if kept != nil {
				return kept.data, kept.info, nil
			}
			if h.opt.Cache.get(ck+missingSuffix) != nil {
				return nil, Info{}, h.failed(http.MethodGet, shown, n, &attemptError{status: http.StatusNotFound,
					err: &statusError{text: "404 Not Found (as when last reached; the server cannot be reached now)", is: ErrNotFound}})
			}
		}
		refused := fail.status == http.StatusUnauthorized || fail.status == http.StatusForbidden
		if h.opt.Cache != nil && errors.Is(fail.err, ErrNotFound) && (!fail.retry || n > h.opt.Retries) &&
			!(refused && !reauth && h.opt.Reauthorize != nil) {
			h.opt.Cache.putMissing(ck + missingSuffix)
		}
		if again, err := h.again(ctx, http.MethodGet, shown, n, fail, &used, &reauth); !again {
			return nil, Info{}, err
		}
	}
}

// again decides, after attempt n of a request (a read or a write) failed
// with fail, whether to make another: once credentials are enabled after
// a refusal, at once; after a failure worth retrying, while retries and
// time (HTTPOptions.ReadTimeout, grown with the bytes moved) are left,
// after the backoff or the server's Retry-After. Otherwise it returns the
// request's final error.
func (h *HTTP) again(ctx context.Context, method, shown string, n int, fail *attemptError, used *spent, reauth *bool) (bool, error) {
	if ctx.Err() != nil || h.root.Err() != nil {
		return false, h.ended(ctx)
	}
	if (fail.status == http.StatusUnauthorized || fail.status == http.StatusForbidden) &&
		!*reauth && h.opt.Reauthorize != nil {
		*reauth = true
		if h.opt.Reauthorize(ctx) {
			return true, nil
		}
	}
	if !fail.retry || n > h.opt.Retries {
		return false, h.failed(method, shown, n, fail)
	}
	w := h.wait(n, fail.after)
	if used.time+w >= h.allow(h.opt.ReadTimeout, used.bytes) {
		return false, h.failed(method, shown, n, fail) // no time left for another attempt
	}
	h.stats.setError(method + " " + shown + ": " + fail.err.Error())
	h.stats.retries.Add(1)
	if !sleep(ctx, w) {
		return false, h.ended(ctx)
	}
	used.time += w
	return true, nil
}

// failed makes the final error of a request after n attempts and counts
// it.
func (h *HTTP) failed(method, shown string, n int, f *attemptError) error {
	e := &HTTPError{Method: method, URL: shown, Status: f.status, Attempts: n, Err: f.err}
	var err error = e
	if h.opt.Explain != nil {
		err = h.opt.Explain(e)
	}
	if !errors.Is(e, ErrNotFound) {
		h.stats.failures.Add(1)
		h.stats.setError(err.Error())
	}
	return err
}

// HTTPError is a failed HTTP request.
type HTTPError struct {
	Method   string // the request's method; "" means GET
	URL      string // the value's URL, without credentials or query string
	Status   int    // the last response's status code, 0 if none came
	Attempts int    // requests made
	Err      error  // the last attempt's failure; matches ErrNotFound for 404/410
}

// Error is one line: "GET URL: what went wrong (N attempts)".
func (e *HTTPError) Error() string {
	m := e.Method
	if m == "" {
		m = http.MethodGet
	}
	s := m + " " + e.URL + ": " + e.Err.Error()
	if e.Attempts > 1 {
		s += fmt.Sprintf(" (%d attempts)", e.Attempts)
	}
	return s
}

// Unwrap returns Err.
func (e *HTTPError) Unwrap() error { return e.Err }

// sameBytes reports whether b is the kept value itself.
func sameBytes(b []byte, kept *cached) bool {
	return kept != nil && len(b) == len(kept.data) && (len(b) == 0 || &b[0] == &kept.data[0])
}
