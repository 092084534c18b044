package store

import (
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"":                              0,
		"0":                             0,
		"7":                             7 * time.Second,
		" 2 ":                           2 * time.Second,
		"99999999999":                   86400 * time.Second,
		"-3":                            0,
		"soon":                          0,
		"Sat, 01 Mar 2025 12:00:30 GMT": 30 * time.Second,
		"Sat, 01 Mar 2025 11:00:00 GMT": 0,
	} {
		if got := retryAfter(v, now); got != want {
			t.Errorf("retryAfter(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestWait(t *testing.T) {
	h, err := NewHTTP("http://example.org/", HTTPOptions{Backoff: 100 * time.Millisecond, MaxWait: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for n, want := range map[int]time.Duration{1: 100, 2: 200, 3: 400, 4: 800, 5: 1000, 60: 1000} {
		want *= time.Millisecond
		for range 50 {
			if d := h.wait(n, 0); d < want/2 || d > want {
				t.Fatalf("wait after attempt %d = %v, want %v..%v", n, d, want/2, want)
			}
		}
	}
	if d := h.wait(1, 3*time.Second); d != time.Second {
		t.Errorf("Retry-After 3s with MaxWait 1s: waited %v", d)
	}
	if d := h.wait(3, 250*time.Millisecond); d != 250*time.Millisecond {
		t.Errorf("Retry-After 250ms: waited %v", d)
	}
}

func TestHTTPCredentials(t *testing.T) { synctest.Test(t, testHTTPCredentials) }

func testHTTPCredentials(t *testing.T) {
	s := newFaultServer(t)
	var user, pass string
	s.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, _ = r.BasicAuth()
		http.Error(w, "no", http.StatusServiceUnavailable)
	})
	opt := testOptions()
	opt.Retries = -1
	opt.Client = s.net.client(t, opt)
	h, err := NewHTTP(strings.Replace(s.URL, "://", "://ann:pw%40x@", 1)+"/a.zarr?sig=SECRET", opt)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	_, err = h.Get(context.Background(), "0/.zarray")
	if user != "ann" || pass != "pw@x" {
		t.Errorf("server got user %q password %q", user, pass)
	}
	want := "GET " + s.URL + "/a.zarr/0/.zarray: 503 Service Unavailable"
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant  %s", err, want)
	}
	if st := h.Stats(); st.Requests != 1 || strings.Contains(st.LastError, "SECRET") || strings.Contains(st.LastError, "pw") {
		t.Errorf("stats %+v", st)
	}
}

// TestHTTPS runs in a synctest bubble, over an in-memory network.
func TestHTTPS(t *testing.T) { synctest.Test(t, testHTTPS) }

func testHTTPS(t *testing.T) {
	ln := newMemNet()
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("zarr"))
	})}}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake
	srv.StartTLS()
	defer srv.Close()
	opt := testOptions()
	opt.Client = srv.Client()
	opt.Client.Transport.(*http.Transport).DialContext = ln.DialContext
	h, err := NewHTTP(srv.URL+"/a.zarr", opt)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if b, err := h.Get(context.Background(), "zarr.json"); err != nil || string(b) != "zarr" {
		t.Errorf("Get over TLS with the server's client = %q, %v", b, err)
	}
	// A store's own client does not trust the test certificate: one attempt.
	opt = testOptions()
	opt.Client = ln.client(t, opt)
	h2, err := NewHTTP(srv.URL+"/a.zarr", opt)
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close()
	_, err = h2.Get(context.Background(), "zarr.json")
	var he *HTTPError
	if !errors.As(err, &he) || he.Attempts != 1 || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("untrusted certificate: %v", err)
	}
}
