package store

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
)

// gcsEndpoint is Google Cloud Storage's XML API.
const gcsEndpoint = "https://storage.googleapis.com"

// NewGCS returns a store reading gs://bucket/key through Google Cloud
// Storage's XML API (https://storage.googleapis.com/bucket/key, or the
// endpoint VASTVIEW_GS_ENDPOINT names). Requests are anonymous (public
// data) unless GOOGLE_APPLICATION_CREDENTIALS names a service account key
// or an authorized_user file, whose OAuth2 access token (read-only
// storage scope, or read-write with HTTPOptions.Write) then goes with
// every request. A refused request says
// what to do. opt.Sign, Explain and Name are set here.
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
	hint := ": anonymous requests read only public data; set GOOGLE_APPLICATION_CREDENTIALS to a service account key or authorized_user file"
	if file := getenv("GOOGLE_APPLICATION_CREDENTIALS"); file != "" {
		scope := "https://www.googleapis.com/auth/devstorage.read_only"
		if opt.Write {
			scope = "https://www.googleapis.com/auth/devstorage.read_write"
		}
		ts, err := gcsTokens(file, scope)
		if err != nil {
			return nil, err
		}
		opt.Sign = ts.sign
		hint = ": check the account of GOOGLE_APPLICATION_CREDENTIALS"
	}
	opt.Explain = func(e *HTTPError) error {
		switch {
		case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden:
			return &cause{e.URL + ": access denied (" + e.Err.Error() + ")" + hint, e}
		case e.Status == http.StatusNotFound && !errors.Is(e, ErrNotFound):
			return &cause{e.URL + ": no such bucket (" + e.Err.Error() + ")", e}
		}
		return e
	}
	h, err := NewHTTP(base+"/", opt)
	if err != nil {
		return nil, err
	}
	h.setList(ep+"/"+url.PathEscape(bucket)+"/", listPrefix(key))
	return h, nil
}

// gcsAuth adds a Google OAuth2 access token to requests.
type gcsAuth struct {
	mu  sync.Mutex
	src oauth2.TokenSource
}

// gcsTokens reads a credentials file of type service_account or
// authorized_user. Errors name the file, never its content.
func gcsTokens(file, scope string) (*gcsAuth, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, errors.New("GOOGLE_APPLICATION_CREDENTIALS: " + oneLine(err))
	}
	var f struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(b, &f) != nil {
		return nil, errors.New("GOOGLE_APPLICATION_CREDENTIALS " + file + ": not a JSON credentials file")
	}
	typ := google.CredentialsType(f.Type)
	if typ != google.ServiceAccount && typ != google.AuthorizedUser {
		return nil, errors.New("GOOGLE_APPLICATION_CREDENTIALS " + file + ": credentials of type " +
			strconvQuote(f.Type) + ", want service_account or authorized_user")
	}
	c, err := google.CredentialsFromJSONWithType(context.Background(), b, typ, scope)
	if err != nil {
		return nil, errors.New("GOOGLE_APPLICATION_CREDENTIALS " + file + ": not usable credentials")
	}
	return &gcsAuth{src: c.TokenSource}, nil
}

// sign sets the request's bearer token, fetching a new one when needed.
func (g *gcsAuth) sign(req *http.Request) error {
	g.mu.Lock()
	tok, err := g.src.Token()
	g.mu.Unlock()
	if err != nil {
		return errors.New("no Google access token: " + tokenError(err))
	}
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	return nil
}

// tokenError is what a failed token request says, without the response
// body (which could echo what was sent).
func tokenError(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.Response != nil {
		s := re.Response.Status
		if re.ErrorCode != "" {
			s += " (" + re.ErrorCode + ")"
		}
		return "token endpoint answered " + s
	}
	return "token request failed"
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
