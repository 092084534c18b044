package store

import (
	"context"
	"net"
	"testing"
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

// runStuck starts a read of c's key and ends it with stop once it is stuck;
// it returns the read's error and how long it took to return after stop.
func runStuck(t *testing.T, c stuckCase, stop func(h *HTTP, cancel context.CancelFunc)) (*HTTP, *faultServer, error, time.Duration) {
	s := newFaultServer(t)
	opt := testOptions()
	opt.IdleTimeout, opt.AttemptTimeout = time.Hour, time.Hour
	key, stuck := c.setup(t, s, &opt)
	h := newStore(t, s, opt)
	if c.name == "waiting for a slot" {
		go h.Get(t.Context(), "hog")
		for s.attempts("hog") == 0 {
			time.Sleep(5 * time.Millisecond)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := h.Get(ctx, key)
		done <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !stuck(h) {
		if time.Now().After(deadline) {
			t.Fatal("the read never got stuck")
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("the read returned before it was stopped: %v", err)
	default:
	}
	start := time.Now()
	stop(h, cancel)
	select {
	case err := <-done:
		return h, s, err, time.Since(start)
	case <-time.After(5 * time.Second):
		t.Fatal("the read did not return after it was stopped")
	}
	return nil, nil, nil, 0
}

func TestHTTPCancel(t *testing.T) {
	for _, c := range stuckCases {
		t.Run(c.name, func(t *testing.T) {
			noLeaks(t)
			h, _, err, d := runStuck(t, c, func(_ *HTTP, cancel context.CancelFunc) { cancel() })
			if err != context.Canceled {
				t.Errorf("error %v, want context.Canceled", err)
			}
			if d > 300*time.Millisecond {
				t.Errorf("returned %v after cancellation", d)
			}
			if st := h.Stats(); st.Failures != 0 {
				t.Errorf("a cancelled read counted as a failure: %+v", st)
			}
		})
	}
}

func TestHTTPClose(t *testing.T) {
	for _, c := range stuckCases {
		t.Run(c.name, func(t *testing.T) {
			noLeaks(t)
			var closeTook time.Duration
			h, s, err, d := runStuck(t, c, func(h *HTTP, _ context.CancelFunc) {
				start := time.Now()
				h.Close()
				closeTook = time.Since(start)
			})
			if err != ErrClosed {
				t.Errorf("error %v, want ErrClosed", err)
			}
			if d > 300*time.Millisecond {
				t.Errorf("returned %v after Close (Close took %v)", d, closeTook)
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
	}
}

func TestHTTPDeadline(t *testing.T) {
	noLeaks(t)
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
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("returned after %v for a 100ms deadline", d)
	}
	if _, err := h.Get(ctx, "k"); err != context.DeadlineExceeded {
		t.Errorf("Get with an ended context: %v", err)
	}
}

// A server that accepts connections but never reads them: the read waits
// for a response until cancelled.
func TestHTTPCancelUnansweredConnection(t *testing.T) {
	noLeaks(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	opt := testOptions()
	opt.IdleTimeout = time.Hour
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
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("returned after %v for a 100ms deadline", d)
	}
}
