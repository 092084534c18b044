package store

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// env is a fixed environment for the address parsers.
func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestS3AddressesFollowAWSConventions(t *testing.T) {
	for _, c := range []struct {
		loc    string
		env    func(string) string
		region string
		base   string
		shown  string
	}{
		// AWS: virtual-hosted, regional once the region is known.
		{"s3://bucket/a/img.zarr", env(), "", "https://bucket.s3.amazonaws.com/a/img.zarr/", "s3://bucket/a/img.zarr"},
		{"s3://bucket/img.zarr/", env(), "eu-west-1", "https://bucket.s3.eu-west-1.amazonaws.com/img.zarr/", "s3://bucket/img.zarr"},
		{"s3://bucket", env(), "us-east-1", "https://bucket.s3.amazonaws.com/", "s3://bucket"},
		// Dots in a bucket break virtual-hosted TLS: path-style.
		{"s3://my.bucket/x", env(), "eu-west-1", "https://s3.eu-west-1.amazonaws.com/my.bucket/x/", "s3://my.bucket/x"},
		{"s3://bucket/x", env("AWS_S3_FORCE_PATH_STYLE", "true"), "", "https://s3.amazonaws.com/bucket/x/", "s3://bucket/x"},
		// Other endpoints: path-style unless asked, always for IP hosts.
		{"s3://bucket/x", env("AWS_ENDPOINT_URL", "http://minio.lan:9000"), "", "http://minio.lan:9000/bucket/x/", "s3://bucket/x"},
		{"s3://bucket/x", env("AWS_ENDPOINT_URL", "http://a", "AWS_ENDPOINT_URL_S3", "https://b"), "", "https://b/bucket/x/", "s3://bucket/x"},
		{"s3://bucket/x", env("AWS_ENDPOINT_URL", "http://minio.lan:9000", "AWS_S3_FORCE_PATH_STYLE", "false"), "", "http://bucket.minio.lan:9000/x/", "s3://bucket/x"},
		{"s3+http://127.0.0.1:9000/bucket/x", env("AWS_S3_FORCE_PATH_STYLE", "false"), "", "http://127.0.0.1:9000/bucket/x/", "s3+http://127.0.0.1:9000/bucket/x"},
		{"s3+https://objects.example.org/b/k%20y", env(), "", "https://objects.example.org/b/k%2520y/", "s3+https://objects.example.org/b/k%20y"},
	} {
		a, err := parseS3(c.loc, c.env)
		if err != nil {
			t.Errorf("%s: %v", c.loc, err)
			continue
		}
		if got := a.base(c.region); got != c.base || a.shown != c.shown {
			t.Errorf("%s (region %q): %s shown as %s, want %s shown as %s", c.loc, c.region, got, a.shown, c.base, c.shown)
		}
	}
	for _, bad := range []string{"s3://", "s3:///key", "s3+https:///b/k", "s3+https://user:pw@host/b/k", "s3://b/k?x=1"} {
		if _, err := parseS3(bad, env()); err == nil {
			t.Errorf("%s: accepted", bad)
		} else if strings.Contains(err.Error(), "pw") {
			t.Errorf("%s: error shows the password: %v", bad, err)
		}
	}
}

// TestGCSReadsThroughTheXMLAPI maps gs://bucket/key onto a local server
// standing for storage.googleapis.com: anonymous GETs of /bucket/key, a
// missing key as ErrNotFound, a refusal as one line that says only public
// data can be read.
func TestGCSReadsThroughTheXMLAPI(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		if r.Header.Get("Authorization") != "" {
			t.Errorf("request with credentials: %v", r.Header)
		}
		switch r.URL.Path {
		case "/pub/img.zarr/.zattrs":
			w.Write([]byte(`{}`))
		case "/priv/img.zarr/.zattrs":
			w.Header().Set("Content-Type", "application/xml; charset=UTF-8")
			w.WriteHeader(http.StatusForbidden)
			w.Write([]byte(`<?xml version='1.0' encoding='UTF-8'?><Error><Code>AccessDenied</Code><Message>Anonymous caller does not have storage.objects.get access.</Message></Error>`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	open := func(loc string) *HTTP {
		h, err := newGCS(loc, testOptions(), env("VASTVIEW_GS_ENDPOINT", srv.URL))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		return h
	}
	ctx := context.Background()
	h := open("gs://pub/img.zarr")
	if h.String() != "gs://pub/img.zarr/" {
		t.Errorf("String() = %q", h.String())
	}
	if b, err := h.Get(ctx, ".zattrs"); err != nil || string(b) != "{}" {
		t.Errorf("Get: %q %v", b, err)
	}
	if _, err := h.Get(ctx, "0/0.0"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing key: %v", err)
	}
	_, err := open("gs://priv/img.zarr").Get(ctx, ".zattrs")
	want := "gs://priv/img.zarr/.zattrs: access denied (403 Forbidden (AccessDenied: Anonymous caller does not have storage.objects.get access.)): only public gs:// data can be read (anonymous requests)"
	if err == nil || err.Error() != want {
		t.Errorf("refused: %v\nwant %s", err, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paths) == 0 || paths[0] != "/pub/img.zarr/.zattrs" {
		t.Errorf("paths requested: %v", paths)
	}
	if h, err := newGCS("gs://b/k", testOptions(), env()); err != nil || h.prefix != "https://storage.googleapis.com/b/k/" {
		t.Errorf("default endpoint: %v %v", h, err)
	}
}
