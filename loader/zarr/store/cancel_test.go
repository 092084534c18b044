package store

import (
	"context"
	"io"
	"testing"
	"testing/synctest"
	"time"
)

// stuckCase puts a read into a state where only cancellation ends it.
type stuckCase struct {
	name string
	// setup configures the server and options and returns the key to read
	// and a function reporting when the read has reached the state.
	setup func(t *testing.T, s *faultServer, opt *HTTPOptions) (key string, stuck func(h *HTTP) bool)
}

var stuckCases = []stuckCase{
	{"waiting for a slot", func(t *testing.T, s *faultServer, opt *HTTPOptions) (string, func(*HTTP) bool) {
		opt.MaxConcurrent = 1
		s.put("hog", 10)
		s.put("k", 10)
		s.plan("hog", stallHeaders)
		return "k", func(h *HTTP) bool {
			return s.attempts("hog") == 1 && s.attempts("k") == 0 && h.Stats().InFlight == 1
		}
	}},
	{"waiting for headers", func(t *testing.T, s *faultServer, opt *HTTPOptions) (string, func(*HTTP) bool) {
		s.put("k", 10)
		s.plan("k", stallHeaders)
		return "k", func(*HTTP) bool { return s.attempts("k") == 1 }
	}},
	{"stalled mid-body", func(t *testing.T, s *faultServer, opt *HTTPOptions) (string, func(*HTTP) bool) {
		s.put("k", 100_000)
		s.plan("k", stallBody)
		return "k", func(h *HTTP) bool { return h.Stats().Bytes > 0 }
	}},
	{"sleeping in backoff", func(t *testing.T, s *faultServer, opt *HTTPOptions) (string, func(*HTTP) bool) {
		opt.Backoff, opt.MaxWait = time.Hour, time.Hour
		s.put("k", 10)
		s.plan("k", "503")
		return "k", func(h *HTTP) bool { return h.Stats().Retries == 1 }
	}},
}

// runStuck starts a read of c's key in a synctest bubble and ends it with
// stop once it is stuck; it returns the read's error. Once every goroutine
// is blocked the read must be in c's state; once they are all blocked again
// after stop, without the clock having moved, it must have returned.
func runStuck(t *testing.T, c stuckCase, stop func(h *HTTP, cancel context.CancelFunc)) (*HTTP, *faultServer, error) {
	s := newFaultServer(t)
	opt := testOptions()
	opt.IdleTimeout, opt.AttemptTimeout, opt.ReadTimeout = time.Hour, time.Hour, 3*time.Hour
	key, stuck := c.setup(t, s, &opt)
	h := newStore(t, s, opt)
	if c.name == "waiting for a slot" {
		go h.Get(t.Context(), "hog")
		synctest.Wait()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := h.Get(ctx, key)
		done <- err
	}()
	synctest.Wait()
	select {
	case err := <-done:
		t.Fatalf("the read returned before it was stopped: %v", err)
	default:
	}
	if !stuck(h) {
		t.Fatalf("the read is not %s: %+v", c.name, h.Stats())
	}
	start := time.Now()
	stop(h, cancel)
	synctest.Wait()
	select {
	case err := <-done:
		if d := time.Since(start); d != 0 {
			t.Errorf("the read returned %v after it was stopped", d)
		}
		return h, s, err
	default:
		t.Fatal("the read did not return after it was stopped")
	}
	return nil, nil, nil
}

func TestHTTPCancel(t *testing.T) {
	for _, c := range stuckCases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h, _, err := runStuck(t, c, func(_ *HTTP, cancel context.CancelFunc) { cancel() })
				if err != context.Canceled {
					t.Errorf("error %v, want context.Canceled", err)
				}
				if st := h.Stats(); st.Failures != 0 {
					t.Errorf("a cancelled read counted as a failure: %+v", st)
				}
			})
		})
	}
}

func TestHTTPClose(t *testing.T) {
	for _, c := range stuckCases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h, s, err := runStuck(t, c, func(h *HTTP, _ context.CancelFunc) { h.Close() })
				if err != ErrClosed {
					t.Errorf("error %v, want ErrClosed", err)
				}
				n := s.attempts("k")
				if _, err := h.Get(context.Background(), "k"); err != ErrClosed {
					t.Errorf("Get after Close: %v", err)
				}
				if _, err := h.GetRange(context.Background(), "k", 0, 1); err != ErrClosed {
					t.Errorf("GetRange after Close: %v", err)
				}
				if _, err := h.GetRange(context.Background(), "k", 0, 0); err != ErrClosed {
					t.Errorf("empty GetRange after Close: %v", err)
				}
				if s.attempts("k") != n {
					t.Error("requests sent after Close")
				}
				if err := h.Close(); err != nil {
					t.Errorf("second Close: %v", err)
				}
			})
		})
	}
}

// TestHTTPDeadline runs in a synctest bubble: the read returns when the
// clock reaches its context's deadline, not an idle timeout later.
func TestHTTPDeadline(t *testing.T) { synctest.Test(t, testHTTPDeadline) }

func testHTTPDeadline(t *testing.T) {
	s := newFaultServer(t)
	opt := testOptions()
	opt.IdleTimeout = time.Hour
	h := newStore(t, s, opt)
	s.put("k", 10)
	s.always = stallHeaders
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := h.Get(ctx, "k")
	if err != context.DeadlineExceeded {
		t.Errorf("error %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d != 100*time.Millisecond {
		t.Errorf("returned after %v for a 100ms deadline", d)
	}
	if _, err := h.Get(ctx, "k"); err != context.DeadlineExceeded {
		t.Errorf("Get with an ended context: %v", err)
	}
}

// A server that accepts connections and reads them but never answers: the
// read waits for a response until its deadline. The test runs in a synctest
// bubble.
func TestHTTPCancelUnansweredConnection(t *testing.T) {
	synctest.Test(t, testHTTPCancelUnansweredConnection)
}

func testHTTPCancelUnansweredConnection(t *testing.T) {
	ln := newMemNet()
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				io.Copy(io.Discard, c)
				c.Close()
			}()
		}
	}()
	opt := testOptions()
	opt.IdleTimeout = time.Hour
	opt.Client = ln.client(t, opt)
	h, err := NewHTTP("http://"+ln.Addr().String()+"/a.zarr", opt)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := h.Get(ctx, "0/.zarray"); err != context.DeadlineExceeded {
		t.Errorf("error %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d != 100*time.Millisecond {
		t.Errorf("returned after %v for a 100ms deadline", d)
	}
}
