package store

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fault is what the test server does on one attempt: "ok", a status code
// ("503"), or one of the behaviours handled in ServeHTTP.
type fault string

const (
	ok           fault = "ok"
	stallHeaders fault = "stall-headers" // never answer
	stallBody    fault = "stall-body"    // send half the body, then nothing
	truncate     fault = "truncate"      // declare the full length, send half, close
	reset        fault = "reset"         // close the connection without an answer
	ignoreRange  fault = "ignore-range"  // answer 200 with the whole value
	chunked      fault = "chunked"       // ignore the range, no Content-Length
	chunkedCut   fault = "chunked-cut"   // no Content-Length, half the value, close
	slow         fault = "slow"          // send the body in 10 pieces, a pause between
	drip         fault = "drip"          // send the body piece bytes at a time, a pause between
	dripUnsized  fault = "drip-unsized"  // the same without a Content-Length
	overlong     fault = "overlong"      // declare half the length, send it all
	s3Denied     fault = "s3-denied"     // 403 with an S3 XML error body
)

// faultServer serves values under /base/ and misbehaves as planned, per key
// and per attempt. It records what clients asked for. It listens on an
// in-memory network (memNet), so that tests run in a synctest bubble, where
// stalls, timeouts and backoff pass on the bubble's fake clock.
type faultServer struct {
	*httptest.Server
	net        *memNet
	mu         sync.Mutex
	values     map[string][]byte
	plans      map[string][]fault // attempt i of key gets plans[key][i]; later attempts "ok"
	always     fault              // used when not "" and no plan applies
	hits       map[string]int
	queries    []string
	ranges     []string
	rawPaths   []string
	inFlight   int
	peak       int
	delay      time.Duration // before answering
	pause      time.Duration // between pieces of a slow or dripping body
	piece      int           // bytes per piece of a dripping body
	retryAfter string
	release    chan struct{}
}

// newFaultServer starts a server; it is closed when the test ends.
func newFaultServer(t *testing.T) *faultServer {
	s := &faultServer{
		net:     newMemNet(),
		values:  map[string][]byte{},
		plans:   map[string][]fault{},
		hits:    map[string]int{},
		release: make(chan struct{}),
		pause:   20 * time.Millisecond,
		piece:   1,
	}
	s.Server = &httptest.Server{Listener: s.net, Config: &http.Server{Handler: s}}
	s.Start()
	t.Cleanup(func() {
		close(s.release)
		s.Close()
	})
	return s
}

// put stores a value of n random bytes under key and returns it.
func (s *faultServer) put(key string, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rand.N(256))
	}
	s.mu.Lock()
	s.values[key] = b
	s.mu.Unlock()
	return b
}

// plan sets what the next attempts on key do, and restarts its count.
func (s *faultServer) plan(key string, faults ...fault) {
	s.mu.Lock()
	s.plans[key] = faults
	s.hits[key] = 0
	s.mu.Unlock()
}

// attempts returns how many requests key received since its last plan.
func (s *faultServer) attempts(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[key]
}

func (s *faultServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := strings.TrimPrefix(r.URL.Path, "/base/")
	s.mu.Lock()
	n := s.hits[key]
	s.hits[key]++
	f := s.always
	if p, found := s.plans[key]; found {
		f = ok
		if n < len(p) {
			f = p[n]
		}
	}
	s.queries = append(s.queries, r.URL.RawQuery)
	s.ranges = append(s.ranges, r.Header.Get("Range"))
	s.rawPaths = append(s.rawPaths, r.URL.EscapedPath())
	s.inFlight++
	s.peak = max(s.peak, s.inFlight)
	value, exists := s.values[key]
	delay, pause, piece, retryAfter := s.delay, s.pause, s.piece, s.retryAfter
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()
	if delay > 0 && !s.wait(r, delay) {
		return
	}
	if f == "" {
		f = ok
	}
	if code, err := strconv.Atoi(string(f)); err == nil {
		if code == http.StatusTooManyRequests && retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		http.Error(w, http.StatusText(code), code)
		return
	}
	if !exists && f != stallHeaders && f != reset {
		http.NotFound(w, r)
		return
	}
	s.misbehave(w, r, f, value, pause, piece)
}

// misbehave answers r with value as fault f says (a slow or dripping body
// pauses between pieces; a dripping one sends piece bytes at a time).
func (s *faultServer) misbehave(w http.ResponseWriter, r *http.Request, f fault, value []byte, pause time.Duration, piece int) {
	switch f {
	case stallHeaders:
		s.wait(r, time.Hour)
	case stallBody, truncate:
		w.Header().Set("Content-Length", strconv.Itoa(len(value)))
		w.WriteHeader(http.StatusOK)
		w.Write(value[:len(value)/2])
		w.(http.Flusher).Flush()
		if f == stallBody {
			s.wait(r, time.Hour)
			return
		}
		hangUp(w)
	case reset:
		hangUp(w)
	case overlong:
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err == nil {
			fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(value)/2, value)
			buf.Flush()
			s.wait(r, time.Hour)
			conn.Close()
		}
	case chunkedCut:
		w.WriteHeader(http.StatusOK)
		w.Write(value[:len(value)/2])
		w.(http.Flusher).Flush()
		hangUp(w)
	case chunked:
		w.WriteHeader(http.StatusOK)
		w.Write(value[:len(value)/2])
		w.(http.Flusher).Flush()
		w.Write(value[len(value)/2:])
	case slow:
		w.Header().Set("Content-Length", strconv.Itoa(len(value)))
		w.WriteHeader(http.StatusOK)
		for i := range 10 {
			if i > 0 && !s.wait(r, pause) {
				return
			}
			w.Write(value[i*len(value)/10 : (i+1)*len(value)/10])
			w.(http.Flusher).Flush()
		}
	case drip, dripUnsized:
		if f == drip {
			w.Header().Set("Content-Length", strconv.Itoa(len(value)))
		}
		w.WriteHeader(http.StatusOK)
		for i := 0; i < len(value); i += piece {
			if i > 0 && !s.wait(r, pause) {
				return
			}
			w.Write(value[i:min(i+piece, len(value))])
			w.(http.Flusher).Flush()
		}
	case s3Denied:
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>`)
	case ignoreRange:
		r.Header.Del("Range")
		fallthrough
	default:
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(value))
	}
}

// hangUp closes the connection under w at once.
func hangUp(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

// wait pauses for d, the client's going away or the server's end; it
// reports whether d passed.
func (s *faultServer) wait(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
	case <-s.release:
	}
	return false
}

// testOptions are short timeouts for tests. In a synctest bubble they pass
// on the fake clock: what a test sees of them does not depend on the speed
// of the machine.
func testOptions() HTTPOptions {
	return HTTPOptions{
		IdleTimeout:    2 * time.Second,
		AttemptTimeout: 10 * time.Second,
		Retries:        3,
		Backoff:        time.Millisecond,
		MaxWait:        20 * time.Millisecond,
	}
}

// newStore opens an HTTP store on s's /base/ (with a query string), closed
// when the test ends. Unless opt names a client, it uses one like its own
// on s's network.
func newStore(t *testing.T, s *faultServer, opt HTTPOptions) *HTTP {
	if opt.Client == nil {
		opt.Client = s.net.client(t, opt)
	}
	h, err := NewHTTP(s.URL+"/base?token=s3cr%2Fet&x=1", opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// memNet is an in-memory network with one listener: every dial, whatever
// its address, makes a net.Pipe whose other end the listener accepts. A
// goroutine waiting on a pipe is durably blocked in a synctest bubble, as
// one waiting on a loopback socket is not, so the bubble's clock can move
// while clients and servers wait on each other. It is safe for concurrent
// use.
type memNet struct {
	mu     sync.Mutex
	conns  chan net.Conn // dialled, not yet accepted
	done   chan struct{} // closed by Close
	closed bool
}

func newMemNet() *memNet {
	return &memNet{conns: make(chan net.Conn, 64), done: make(chan struct{})}
}

// Accept returns the server end of the next connection dialled.
func (n *memNet) Accept() (net.Conn, error) {
	select {
	case c := <-n.conns:
		return c, nil
	case <-n.done:
		return nil, net.ErrClosed
	}
}

// Close stops the listener and closes the connections it did not accept.
func (n *memNet) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.closed {
		n.closed = true
		close(n.done)
		for len(n.conns) > 0 {
			(<-n.conns).Close()
		}
	}
	return nil
}

// Addr is the listener's address: an IP address, which the certificate
// of httptest's TLS servers names.
func (n *memNet) Addr() net.Addr { return memAddr{} }

// DialContext connects to the listener, or fails once it is closed or when
// 64 connections wait to be accepted.
func (n *memNet) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	c, srv := net.Pipe()
	if !n.closed {
		select {
		case n.conns <- srv:
			return c, nil
		default:
		}
	}
	c.Close()
	srv.Close()
	return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
}

// client returns a client like the one an HTTP store makes for opt,
// dialling n. Its idle connections are closed when the test ends.
func (n *memNet) client(t *testing.T, opt HTTPOptions) *http.Client {
	c := newClient(opt.withDefaults().MaxConcurrent)
	tr := c.Transport.(*http.Transport)
	tr.DialContext, tr.Proxy = n.DialContext, nil
	t.Cleanup(tr.CloseIdleConnections)
	return c
}

// memAddr is the address of every memNet listener.
type memAddr struct{}

func (memAddr) Network() string { return "mem" }
func (memAddr) String() string  { return "127.0.0.1:9" }
