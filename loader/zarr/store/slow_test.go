package store

import (
	"bytes"
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// TestHTTPDrip: a server that sends one byte every 4s never trips the idle
// timeout (5s), yet the read fails after about 20s, in one attempt, with
// one line saying what happened. With and without a Content-Length.
func TestHTTPDrip(t *testing.T) {
	for _, f := range []fault{drip, dripUnsized} {
		t.Run(string(f), func(t *testing.T) { synctest.Test(t, func(t *testing.T) { testHTTPDrip(t, f) }) })
	}
}

func testHTTPDrip(t *testing.T, f fault) {
	s := newFaultServer(t)
	h := newStore(t, s, HTTPOptions{}) // the defaults
	s.put("0/0.0", 1000)
	s.always = f
	s.piece, s.pause = 1, 4*time.Second
	start := time.Now()
	_, err := h.Get(context.Background(), "0/0.0")
	if d := time.Since(start); d < 20*time.Second || d > 21*time.Second {
		t.Errorf("the drip was reported after %v on the clock, want about 20s", d)
	}
	// Bytes came at 0s, 4s, ..., 20s.
	want := "GET " + h.String() + "0/0.0: the server sent 6 bytes in 20s: too slow"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v\nwant  %s", err, want)
	}
	if n := s.attempts("0/0.0"); n != 1 {
		t.Errorf("%d requests; the read's time was up after the first", n)
	}
	if st := h.Stats(); st.Failures != 1 || st.LastError != want {
		t.Errorf("stats %+v", st)
	}
}

// TestHTTPSteadyLargeChunk: a 2 MiB chunk coming at 4 KiB/s (a slow link
// shared by many requests) takes 512s and is read in one attempt; so is a
// small value that waited for the only concurrency slot meanwhile.
func TestHTTPSteadyLargeChunk(t *testing.T) { synctest.Test(t, testHTTPSteadyLargeChunk) }

func testHTTPSteadyLargeChunk(t *testing.T) {
	s := newFaultServer(t)
	h := newStore(t, s, HTTPOptions{MaxConcurrent: 1})
	want := s.put("0/0.0", 2<<20)
	small := s.put("0/.zarray", 300)
	s.plan("0/0.0", drip)
	s.piece, s.pause = 4<<10, time.Second
	queued := make(chan error, 1)
	go func() {
		synctest.Wait() // the chunk holds the slot
		got, err := h.Get(context.Background(), "0/.zarray")
		if err == nil && !bytes.Equal(got, small) {
			t.Error("the small value came back wrong")
		}
		queued <- err
	}()
	start := time.Now()
	got, err := h.Get(context.Background(), "0/0.0")
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Get = %d bytes, %v; want the %d bytes stored", len(got), err, len(want))
	}
	if d := time.Since(start); d != 511*time.Second {
		t.Errorf("the chunk took %v on the clock, want 511s (512 pieces a second apart)", d)
	}
	if err := <-queued; err != nil {
		t.Errorf("a read that waited 511s for a slot: %v", err)
	}
	if st := h.Stats(); st.Requests != 2 || st.Retries != 0 {
		t.Errorf("stats %+v, want 2 requests, no retries", st)
	}
}

// TestHTTPBelowMinRate: a steady body slower than MinRate fails once the
// read has run longer than ReadTimeout plus its bytes at MinRate.
func TestHTTPBelowMinRate(t *testing.T) { synctest.Test(t, testHTTPBelowMinRate) }

func testHTTPBelowMinRate(t *testing.T) {
	s := newFaultServer(t)
	h := newStore(t, s, HTTPOptions{MinRate: 800})
	s.put("k", 1<<20)
	s.always = drip
	s.piece, s.pause = 500, time.Second // 500 bytes/s
	start := time.Now()
	_, err := h.Get(context.Background(), "k")
	// At 53.75s, 54 pieces have come: 20s + 27000 bytes at 800 bytes/s
	// (and never before: the next deadline is always ahead).
	if d := time.Since(start); d != 53750*time.Millisecond {
		t.Errorf("failed after %v on the clock, want 53.75s", d)
	}
	want := "GET " + h.String() + "k: the server sent 27000 bytes in 54s: too slow"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v\nwant  %s", err, want)
	}
}

// TestHTTPAttemptTimeout: an attempt that dribbles is given up after
// AttemptTimeout and tried again while the read has time left.
func TestHTTPAttemptTimeout(t *testing.T) { synctest.Test(t, testHTTPAttemptTimeout) }

func testHTTPAttemptTimeout(t *testing.T) {
	s := newFaultServer(t)
	opt := testOptions()
	opt.IdleTimeout, opt.AttemptTimeout, opt.ReadTimeout = 5*time.Second, 5*time.Second, 20*time.Second
	h := newStore(t, s, opt)
	want := s.put("k", 1000)
	s.plan("k", drip, ok)
	s.piece, s.pause = 1, 4*time.Second
	got, err := h.Get(context.Background(), "k")
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Get = %d bytes, %v", len(got), err)
	}
	st := h.Stats()
	if st.Requests != 2 || st.Retries != 1 || st.LastError != "GET "+h.String()+"k: the server sent 2 bytes in 5s: too slow" {
		t.Errorf("stats %+v", st)
	}
}

// TestHTTPReadTimeoutEndsRetries: no attempt is made that would begin after
// the read's time is up; the last failure is reported at once.
func TestHTTPReadTimeoutEndsRetries(t *testing.T) { synctest.Test(t, testHTTPReadTimeoutEndsRetries) }

func testHTTPReadTimeoutEndsRetries(t *testing.T) {
	s := newFaultServer(t)
	opt := testOptions()
	opt.MaxWait, opt.ReadTimeout = 10*time.Second, 15*time.Second
	h := newStore(t, s, opt)
	s.put("k", 10)
	s.always = "429"
	s.retryAfter = "10"
	start := time.Now()
	_, err := h.Get(context.Background(), "k")
	want := "GET " + h.String() + "k: 429 Too Many Requests (2 attempts)"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v\nwant  %s", err, want)
	}
	if d := time.Since(start); d != 10*time.Second {
		t.Errorf("gave up after %v on the clock, want 10s (a second wait would end past 15s)", d)
	}
}
