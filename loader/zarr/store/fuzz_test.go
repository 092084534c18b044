package store

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// FuzzKey checks that a key accepted by checkKey stays inside the folder
// and maps to a URL path that decodes back to the key, segment by segment.
func FuzzKey(f *testing.F) {
	for _, k := range append(badKeys, "0/.zarray", "s0/c/0/0/1", "a b/c%d", "é/ü", "a?b#c", "x/;y", "...", "-1.2") {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, key string) {
		if checkKey(key) != nil {
			return
		}
		root := filepath.FromSlash("/data/root")
		p := filepath.Join(root, filepath.FromSlash(key))
		if rel, err := filepath.Rel(root, p); err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			t.Fatalf("key %q names %q outside the folder", key, p)
		}
		esc := escapeKey(key)
		u, err := url.Parse("http://host/base/" + esc + "?q=1")
		if err != nil {
			t.Fatalf("key %q escapes to %q, not a URL: %v", key, esc, err)
		}
		if u.Path != "/base/"+key || u.RawQuery != "q=1" || u.Fragment != "" {
			t.Fatalf("key %q escapes to %q, which reads back as path %q query %q", key, esc, u.Path, u.RawQuery)
		}
		if strings.Count(esc, "/") != strings.Count(key, "/") {
			t.Fatalf("key %q escapes to %q: segments changed", key, esc)
		}
	})
}

// FuzzContentRange checks that a parsed Content-Range is consistent and
// prints back to the same value.
func FuzzContentRange(f *testing.F) {
	for _, s := range []string{"bytes 0-99/1000", "bytes 900-999/*", "bytes */1000", "bytes 5-4/10", "bytes 0-0/1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		first, last, total, err := parseContentRange(s)
		if err != nil {
			if !errors.Is(err, errProtocol) {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		if first < 0 || last < first || total < -1 || (total >= 0 && last >= total) {
			t.Fatalf("%q: %d-%d/%d", s, first, last, total)
		}
		tot := "*"
		if total >= 0 {
			tot = strconv.FormatInt(total, 10)
		}
		back := "bytes " + strconv.FormatInt(first, 10) + "-" + strconv.FormatInt(last, 10) + "/" + tot
		if f2, l2, t2, err := parseContentRange(back); err != nil || f2 != first || l2 != last || t2 != total {
			t.Fatalf("%q -> %q does not parse back", s, back)
		}
	})
}

// response is a canned HTTP response.
type response struct {
	status        int
	contentRange  string
	contentLength int64
	body          []byte
}

func (r *response) RoundTrip(req *http.Request) (*http.Response, error) {
	h := http.Header{}
	if r.contentRange != "" {
		h.Set("Content-Range", r.contentRange)
	}
	return &http.Response{
		StatusCode: r.status, Header: h, ContentLength: r.contentLength,
		Body: io.NopCloser(bytes.NewReader(r.body)), Request: req,
	}, nil
}

// FuzzResponse reads ranges, and whole values up to a bound, from arbitrary
// responses: no panic, no allocation beyond MaxBody, and a read that
// succeeds returns exactly the bytes asked for, taken from the body (a
// whole value: a prefix of it within the bound).
func FuzzResponse(f *testing.F) {
	f.Add(206, "bytes 10-19/100", int64(10), []byte("0123456789"), int64(10), int64(10))
	f.Add(206, "bytes 90-99/100", int64(-1), []byte("0123456789"), int64(-10), int64(0))
	f.Add(200, "", int64(20), []byte("0123456789abcdefghij"), int64(5), int64(5))
	f.Add(200, "", int64(-1), []byte("0123456789abcdefghij"), int64(-5), int64(0))
	f.Add(200, "", int64(-1), []byte("0123456789"), int64(0), int64(20))
	f.Add(206, "bytes 0-9/*", int64(12), []byte("0123456789"), int64(0), int64(10))
	f.Add(416, "bytes */5", int64(0), []byte{}, int64(9), int64(1))
	f.Fuzz(func(t *testing.T, status int, cr string, cl int64, body []byte, off, n int64) {
		if len(body) > 1<<12 {
			return
		}
		rt := &response{status, cr, cl, body}
		h, err := NewHTTP("http://host/a", HTTPOptions{Client: &http.Client{Transport: rt}, Retries: -1, MaxBody: 1 << 16})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		if n > 0 {
			got, info, err := h.GetAtMost(context.Background(), "k", n)
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of several lines: %q", err)
			}
			if err == nil && (int64(len(got)) > n || !bytes.HasPrefix(body, got) || info.Size != int64(len(got))) {
				t.Fatalf("GetAtMost(%d) = %d bytes %q, size %d, from body %q", n, len(got), got, info.Size, body)
			}
		}
		got, err := h.GetRange(context.Background(), "k", off, n)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of several lines: %q", err)
			}
			return
		}
		want := n
		if off < 0 {
			want = -off
		}
		if int64(len(got)) != want || !bytes.Contains(body, got) {
			t.Fatalf("GetRange(%d, %d) = %d bytes %q from body %q", off, n, len(got), got, body)
		}
	})
}
