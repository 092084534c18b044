package store

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestHTTPGet(t *testing.T) { synctest.Test(t, testHTTPGet) }

func testHTTPGet(t *testing.T) {
	s := newFaultServer(t)
	h := newStore(t, s, testOptions())
	want := s.put("0/1.2", 100_000)
	odd := s.put("a b/c%d", 10)
	ctx := context.Background()
	got, err := h.Get(ctx, "0/1.2")
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Get = %d bytes, %v; want the %d bytes stored", len(got), err, len(want))
	}
	got, err = h.Get(ctx, "a b/c%d")
	if err != nil || !bytes.Equal(got, odd) {
		t.Fatalf("Get of a key needing escapes = %q, %v", got, err)
	}
	for i, q := range s.queries {
		if q != "token=s3cr%2Fet&x=1" {
			t.Errorf("request %d: query %q, want the base URL's", i, q)
		}
	}
	if p := s.rawPaths[1]; p != "/base/a%20b/c%25d" {
		t.Errorf("escaped path %q", p)
	}
	st := h.Stats()
	if st.Requests != 2 || st.Retries != 0 || st.Failures != 0 || st.InFlight != 0 || st.Bytes != 100_010 {
		t.Errorf("stats %+v", st)
	}
	if h.String() != s.URL+"/base/" {
		t.Errorf("String() = %q", h.String())
	}
}

func TestHTTPNotFound(t *testing.T) { synctest.Test(t, testHTTPNotFound) }

func testHTTPNotFound(t *testing.T) {
	s := newFaultServer(t)
	h := newStore(t, s, testOptions())
	s.put("gone", 10)
	s.plan("gone", "410", "410")
	s.put("forbidden", 10)
	s.plan("forbidden", "403")
	ctx := context.Background()
	for _, key := range []string{"missing/0.0", "gone"} {
		_, err := h.Get(ctx, key)
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: %v, want ErrNotFound", key, err)
		}
		if _, err := h.GetRange(ctx, key, 0, 4); !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: GetRange: %v, want ErrNotFound", key, err)
		}
		if n := s.attempts(key); n != 2 {
			t.Errorf("%s: %d requests for two reads; a missing key is not retried", key, n)
		}
	}
	_, err := h.Get(ctx, "forbidden")
	if errors.Is(err, ErrNotFound) || err == nil || err.Error() != "GET "+h.String()+"forbidden: 403 Forbidden" {
		t.Errorf("403: %v", err)
	}
	if st := h.Stats(); st.Failures != 1 || st.LastError != err.Error() {
		t.Errorf("stats after one failure and four misses: %+v", st)
	}

	opt := testOptions()
	opt.ForbiddenIsNotFound = true
	h2 := newStore(t, s, opt)
	s.plan("forbidden", "403")
	if _, err := h2.Get(ctx, "forbidden"); !errors.Is(err, ErrNotFound) {
		t.Errorf("403 with ForbiddenIsNotFound: %v", err)
	}
}

func TestHTTPClientErrors(t *testing.T) { synctest.Test(t, testHTTPClientErrors) }

func testHTTPClientErrors(t *testing.T) {
	s := newFaultServer(t)
	h := newStore(t, s, testOptions())
	s.put("k", 10)
	s.plan("k", "400", s3Denied)
	ctx := context.Background()
	_, err := h.Get(ctx, "k")
	if err == nil || err.Error() != "GET "+h.String()+"k: 400 Bad Request" {
		t.Errorf("400: %v", err)
	}
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != 400 || he.Attempts != 1 {
		t.Errorf("400: %#v", he)
	}
	_, err = h.Get(ctx, "k")
	if err == nil || err.Error() != "GET "+h.String()+"k: 403 Forbidden (AccessDenied: Request has expired)" {
		t.Errorf("S3 403: %v", err)
	}
	if n := s.attempts("k"); n != 2 {
		t.Errorf("%d requests for two reads answered 4xx; want no retries", n)
	}
}

func TestHTTPTransientFaults(t *testing.T) {
	for _, f := range []fault{"500", "503", "502", "429", "408", stallHeaders, stallBody, truncate, reset} {
		t.Run(string(f), func(t *testing.T) { synctest.Test(t, func(t *testing.T) { testTransientFault(t, f) }) })
	}
}

// testTransientFault runs in a synctest bubble: the time a read takes is
// that of the store's own timers on the fake clock.
func testTransientFault(t *testing.T, f fault) {
	s := newFaultServer(t)
	opt := testOptions()
	opt.IdleTimeout = 150 * time.Millisecond
	h := newStore(t, s, opt)
	want := s.put("c/0/1", 64<<10)
	s.plan("c/0/1", f, f, ok)
	start := time.Now()
	got, err := h.Get(context.Background(), "c/0/1")
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Get = %d bytes, %v; want the %d bytes stored", len(got), err, len(want))
	}
	// Two stalls at most cost an idle timeout each, and the two
	// waits at most MaxWait each.
	if d := time.Since(start); d > 2*(opt.IdleTimeout+opt.MaxWait) {
		t.Errorf("recovering took %v on the clock, want at most %v", d, 2*(opt.IdleTimeout+opt.MaxWait))
	}
	st := h.Stats()
	if f != reset && (st.Retries != 2 || st.Requests != 3) {
		t.Errorf("stats %+v, want 3 requests, 2 retries", st)
	}
	if st.Retries < 1 || st.Failures != 0 || st.LastError == "" || st.InFlight != 0 {
		t.Errorf("stats %+v", st)
	}
	// The same for a range.
	s.plan("c/0/1", f, ok)
	got, err = h.GetRange(context.Background(), "c/0/1", 1000, 5000)
	if err != nil || !bytes.Equal(got, want[1000:6000]) {
		t.Fatalf("GetRange = %d bytes, %v", len(got), err)
	}
}

func TestHTTPPersistentFaults(t *testing.T) {
	for _, c := range []struct {
		f    fault
		want string
	}{
		{"503", "503 Service Unavailable (4 attempts)"},
		{"500", "500 Internal Server Error (4 attempts)"},
		{"429", "429 Too Many Requests (4 attempts)"},
		{stallHeaders, "no response within 100ms (4 attempts)"},
		{stallBody, "no data for 100ms (4 attempts)"},
		{truncate, "body truncated at 512 of 1024 bytes (4 attempts)"},
		{reset, "connection closed without a response (4 attempts)"},
	} {
		t.Run(string(c.f), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newFaultServer(t)
				opt := testOptions()
				opt.IdleTimeout = 100 * time.Millisecond
				h := newStore(t, s, opt)
				s.put("0/0.0", 1024)
				s.always = c.f
				start := time.Now()
				_, err := h.Get(context.Background(), "0/0.0")
				// On the bubble's clock: four stalls at most cost an idle
				// timeout each, and the three waits at most MaxWait each.
				if d, most := time.Since(start), 4*opt.IdleTimeout+3*opt.MaxWait; d > most {
					t.Errorf("giving up took %v on the clock, want at most %v", d, most)
				}
				want := "GET " + h.String() + "0/0.0: " + c.want
				if err == nil || err.Error() != want {
					t.Fatalf("error %v\nwant  %s", err, want)
				}
				if errors.Is(err, ErrNotFound) {
					t.Error("a failure matches ErrNotFound")
				}
				if n := s.attempts("0/0.0"); c.f != reset && n != 4 {
					t.Errorf("%d requests, want 4", n)
				}
				st := h.Stats()
				if st.Failures != 1 || st.Retries != 3 || st.LastError != want || st.InFlight != 0 {
					t.Errorf("stats %+v", st)
				}
			})
		})
	}
}

func TestHTTPSlowButSteady(t *testing.T) { synctest.Test(t, testHTTPSlowButSteady) }

func testHTTPSlowButSteady(t *testing.T) {
	s := newFaultServer(t)
	opt := testOptions()
	opt.IdleTimeout = 150 * time.Millisecond
	h := newStore(t, s, opt)
	want := s.put("k", 10_000)
	s.pause = 40 * time.Millisecond // 360ms in all, each gap under the idle timeout
	s.always = slow
	got, err := h.Get(context.Background(), "k")
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Get = %d bytes, %v", len(got), err)
	}
	if st := h.Stats(); st.Requests != 1 {
		t.Errorf("a body that keeps coming was retried: %+v", st)
	}

	// A body that keeps coming, but slower than MinRate, is cut after
	// AttemptTimeout plus its bytes at MinRate: pieces of 1000 bytes at
	// 0, 40, 80 and 120ms allow 154ms.
	opt.AttemptTimeout, opt.MinRate = 150*time.Millisecond, 1_000_000
	opt.Retries = 1
	h2 := newStore(t, s, opt)
	_, err = h2.Get(context.Background(), "k")
	if err == nil || err.Error() != "GET "+h.String()+"k: the server sent 4000 bytes in 154ms: too slow (2 attempts)" {
		t.Errorf("attempt timeout: %v", err)
	}
}

func TestHTTPRetryAfter(t *testing.T) { synctest.Test(t, testHTTPRetryAfter) }

func testHTTPRetryAfter(t *testing.T) {
	s := newFaultServer(t)
	opt := testOptions()
	opt.MaxWait = 5 * time.Second
	h := newStore(t, s, opt)
	want := s.put("k", 100)
	s.retryAfter = "1"
	s.plan("k", "429", ok)
	start := time.Now() // the bubble's clock: nothing else takes time
	got, err := h.Get(context.Background(), "k")
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Get = %d bytes, %v", len(got), err)
	}
	if d := time.Since(start); d != time.Second {
		t.Errorf("retried after %v, want the server's 1s", d)
	}

	// A long Retry-After is capped by MaxWait.
	opt.MaxWait = 30 * time.Millisecond
	h2 := newStore(t, s, opt)
	s.retryAfter = "3600"
	s.plan("k", "503", "429", ok)
	start = time.Now()
	if _, err := h2.Get(context.Background(), "k"); err != nil {
		t.Fatal(err)
	}
	// The 503 waits Backoff at most, the 429 MaxWait.
	if d := time.Since(start); d < opt.MaxWait || d > opt.MaxWait+opt.Backoff {
		t.Errorf("a 3600s Retry-After made the read wait %v with MaxWait 30ms and Backoff 1ms", d)
	}
}

func TestHTTPMaxConcurrent(t *testing.T) { synctest.Test(t, testHTTPMaxConcurrent) }

func testHTTPMaxConcurrent(t *testing.T) {
	s := newFaultServer(t)
	opt := testOptions()
	opt.MaxConcurrent = 3
	h := newStore(t, s, opt)
	// The bubble's clock moves only when every goroutine waits: when the
	// delay ends, every request the store lets through is at the server.
	s.delay = 20 * time.Millisecond
	const n = 24
	want := make([][]byte, n)
	for i := range n {
		want[i] = s.put("k/"+string(rune('a'+i)), 100)
	}
	errs := make(chan error, n)
	for i := range n {
		go func() {
			got, err := h.Get(context.Background(), "k/"+string(rune('a'+i)))
			if err == nil && !bytes.Equal(got, want[i]) {
				err = errors.New("wrong bytes")
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	s.mu.Lock()
	peak := s.peak
	s.mu.Unlock()
	if peak != 3 {
		t.Errorf("peak of %d requests in flight, want MaxConcurrent = 3", peak)
	}
}

func TestHTTPMaxBody(t *testing.T) { synctest.Test(t, testHTTPMaxBody) }

func testHTTPMaxBody(t *testing.T) {
	s := newFaultServer(t)
	opt := testOptions()
	opt.MaxBody = 500
	h := newStore(t, s, opt)
	want := s.put("big", 1000)
	ctx := context.Background()
	if _, err := h.Get(ctx, "big"); err == nil || !strings.Contains(err.Error(), "value of 1000 bytes is over the 500-byte limit") {
		t.Errorf("Get over MaxBody: %v", err)
	}
	if n := s.attempts("big"); n != 1 {
		t.Errorf("%d requests; a value over the limit is not retried", n)
	}
	s.plan("big", chunked, chunked)
	if _, err := h.Get(ctx, "big"); err == nil || !strings.Contains(err.Error(), "value is over the 500-byte limit") {
		t.Errorf("unsized Get over MaxBody: %v", err)
	}
	if n := s.attempts("big"); n != 1 {
		t.Errorf("%d requests; a value over the limit is not retried", n)
	}
	if _, err := h.GetRange(ctx, "big", 0, 600); err == nil || err.Error() != "GET "+h.String()+"big: bytes 0-599 are over the 500-byte limit" {
		t.Errorf("GetRange over MaxBody: %v", err)
	}
	// A server ignoring ranges may be read up to MaxBody bytes.
	for _, f := range []fault{ignoreRange, chunked} {
		s.plan("big", f, f)
		got, err := h.GetRange(ctx, "big", 100, 200)
		if err != nil || !bytes.Equal(got, want[100:300]) {
			t.Errorf("%s: GetRange within the limit = %d bytes, %v", f, len(got), err)
		}
		_, err = h.GetRange(ctx, "big", 400, 200)
		if err == nil || !strings.Contains(err.Error(), "server ignored the Range header") {
			t.Errorf("%s: GetRange needing 600 bytes: %v", f, err)
		}
	}
}
