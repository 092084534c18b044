package store

import (
	"errors"
	"net/http"
	"net/url"
	"os"
	"strings"
)

// gcsEndpoint is Google Cloud Storage's XML API.
const gcsEndpoint = "https://storage.googleapis.com"

// NewGCS returns a store reading gs://bucket/key through Google Cloud
// Storage's XML API (https://storage.googleapis.com/bucket/key, or the
// endpoint VASTVIEW_GS_ENDPOINT names), with anonymous requests: public
// data. A refused request says so. opt.Explain and Name are set here.
func NewGCS(location string, opt HTTPOptions) (*HTTP, error) {
	return newGCS(location, opt, os.Getenv)
}

func newGCS(location string, opt HTTPOptions, getenv func(string) string) (*HTTP, error) {
	scheme, rest, ok := strings.Cut(location, "://")
	if !ok || strings.ToLower(scheme) != "gs" {
		return nil, errors.New("invalid gs:// address")
	}
	if strings.ContainsAny(rest, "?#") {
		return nil, errors.New("invalid gs:// address: no query string or fragment")
	}
	bucket, key, _ := strings.Cut(rest, "/")
	if bucket == "" || strings.Contains(bucket, "@") {
		return nil, errors.New("invalid gs:// address: no bucket")
	}
	key = strings.Trim(key, "/")
	ep := gcsEndpoint
	if v := getenv("VASTVIEW_GS_ENDPOINT"); v != "" {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, errors.New("invalid VASTVIEW_GS_ENDPOINT: want http:// or https:// and a host")
		}
		ep = strings.TrimSuffix(v, "/")
	}
	base := ep + "/" + url.PathEscape(bucket)
	shown := "gs://" + bucket
	if key != "" {
		base += "/" + escapeKey(key)
		shown += "/" + key
	}
	opt.Name = shown
	opt.Explain = func(e *HTTPError) error {
		switch {
		case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden:
			return &cause{e.URL + ": access denied (" + e.Err.Error() + "): only public gs:// data can be read (anonymous requests)", e}
		case e.Status == http.StatusNotFound && !errors.Is(e, ErrNotFound):
			return &cause{e.URL + ": no such bucket (" + e.Err.Error() + ")", e}
		}
		return e
	}
	return NewHTTP(base+"/", opt)
}
