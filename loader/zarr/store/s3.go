package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/ec2rolecreds"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
)

// emptyHash is the SHA-256 of an empty body, the payload hash of a GET.
const emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// IsObjectURL reports whether location is an object store address:
// s3://bucket/key, s3+https://host/bucket/key, s3+http://host/bucket/key
// or gs://bucket/key.
func IsObjectURL(location string) bool {
	p := strings.ToLower(location)
	for _, s := range []string{"s3://", "s3+https://", "s3+http://", "gs://"} {
		if strings.HasPrefix(p, s) {
			return true
		}
	}
	return false
}

// s3Address is where an S3 location's values are.
type s3Address struct {
	shown    string // the location without credentials, for messages
	bucket   string
	prefix   string // key prefix, no leading or trailing '/'
	endpoint *url.URL
	aws      bool // endpoint is AWS's own (virtual-hosted by default)
	path     bool // path-style addressing
}

// parseS3 reads an s3:// or s3+http(s):// location; getenv gives
// AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL and AWS_S3_FORCE_PATH_STYLE.
func parseS3(location string, getenv func(string) string) (*s3Address, error) {
	scheme, rest, ok := strings.Cut(location, "://")
	if !ok {
		return nil, errors.New("invalid S3 address")
	}
	scheme = strings.ToLower(scheme)
	a := &s3Address{}
	switch scheme {
	case "s3":
		ep := getenv("AWS_ENDPOINT_URL_S3")
		if ep == "" {
			ep = getenv("AWS_ENDPOINT_URL")
		}
		if ep != "" {
			u, err := url.Parse(ep)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return nil, errors.New("invalid AWS_ENDPOINT_URL: want http:// or https:// and a host")
			}
			a.endpoint = u
		} else {
			a.endpoint, a.aws = &url.URL{Scheme: "https", Host: "s3.amazonaws.com"}, true
		}
	case "s3+https", "s3+http":
		host, path, _ := strings.Cut(rest, "/")
		if host == "" || strings.Contains(host, "@") {
			return nil, errors.New("invalid S3 address: want " + scheme + "://host/bucket/key, without credentials")
		}
		a.endpoint = &url.URL{Scheme: strings.TrimPrefix(scheme, "s3+"), Host: host}
		rest = path
	default:
		return nil, errors.New("invalid S3 address")
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		return nil, errors.New("invalid S3 address: no query string or fragment")
	}
	bucket, key, _ := strings.Cut(rest, "/")
	if bucket == "" || strings.Contains(bucket, "@") {
		return nil, errors.New("invalid S3 address: no bucket")
	}
	a.bucket, a.prefix = bucket, strings.Trim(key, "/")
	a.shown = scheme + "://"
	if scheme != "s3" {
		a.shown += a.endpoint.Host + "/"
	}
	a.shown += bucket
	if a.prefix != "" {
		a.shown += "/" + a.prefix
	}
	// Virtual-hosted addressing needs a bucket that is a DNS label (and
	// for TLS no dots) and a host name the bucket can go in front of.
	dnsBucket := !strings.Contains(bucket, ".") && bucket == strings.ToLower(bucket)
	ipHost := net.ParseIP(a.endpoint.Hostname()) != nil
	a.path = !a.aws
	switch strings.ToLower(getenv("AWS_S3_FORCE_PATH_STYLE")) {
	case "true", "1", "yes":
		a.path = true
	case "false", "0", "no":
		a.path = false
	}
	if ipHost || !dnsBucket {
		a.path = true
	}
	return a, nil
}

// base is the URL of the location's prefix for region ("" for the
// endpoint as given).
func (a *s3Address) base(region string) string {
	u := *a.endpoint
	if a.aws && region != "" && region != "us-east-1" {
		u.Host = "s3." + region + ".amazonaws.com"
	}
	p := strings.TrimSuffix(u.Path, "/")
	if a.path {
		p += "/" + url.PathEscape(a.bucket)
	} else {
		u.Host = a.bucket + "." + u.Host
	}
	if a.prefix != "" {
		p += "/" + escapeKey(a.prefix)
	}
	u.Path, u.RawPath = "", ""
	return u.String() + p + "/"
}

// bucketURL is the URL of the bucket itself, for a HEAD that tells its
// region.
func (a *s3Address) bucketURL() string {
	u := *a.endpoint
	p := strings.TrimSuffix(u.Path, "/")
	if a.path {
		p += "/" + url.PathEscape(a.bucket)
	} else {
		u.Host = a.bucket + "." + u.Host
	}
	u.Path, u.RawPath = "", ""
	return u.String() + p + "/"
}

// s3Auth signs the requests of an S3 store once credentials are in use.
type s3Auth struct {
	addr   *s3Address
	getenv func(string) string
	client *http.Client

	mu     sync.Mutex
	tried  bool                    // credentials were looked for
	creds  aws.CredentialsProvider // nil: anonymous
	region string
	why    string // why there are no credentials, for messages
	signer *v4.Signer
}

// explicit reports whether credentials are configured, so that requests
// are signed from the start.
func (s *s3Auth) explicit() bool {
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE"} {
		if s.getenv(k) != "" {
			return true
		}
	}
	return false
}

// enable looks for credentials in the standard chain (environment, shared
// config and credentials files with AWS_PROFILE, web identity, instance
// metadata with a short timeout) and finds the bucket's region. It
// reports whether requests are now signed (also when another read had
// them signed after this one's request went out unsigned).
func (s *s3Auth) enable(ctx context.Context) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tried {
		return s.creds != nil
	}
	s.tried = true
	meta := imds.New(imds.Options{
		HTTPClient: &http.Client{Timeout: 700 * time.Millisecond},
		Retryer:    aws.NopRetryer{},
	})
	cfg, err := config.LoadDefaultConfig(ctx,
		config.WithEC2RoleCredentialOptions(func(o *ec2rolecreds.Options) { o.Client = meta }))
	if err != nil {
		s.why = "AWS configuration: " + oneLine(err)
		return false
	}
	if cfg.Credentials == nil {
		s.why = "no AWS credentials found"
		return false
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := cfg.Credentials.Retrieve(cctx); err != nil {
		s.why = "no AWS credentials found"
		return false
	}
	s.region = cfg.Region
	if s.region == "" {
		s.region = s.discoverRegion(ctx)
	}
	s.creds, s.signer = cfg.Credentials, v4.NewSigner()
	return true
}

// discoverRegion asks the bucket for its region (HEAD, x-amz-bucket-region,
// which S3 sends also with a refusal); us-east-1 if it does not say.
func (s *s3Auth) discoverRegion(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, s.addr.bucketURL(), nil)
	if err == nil {
		if resp, err := s.client.Do(req); err == nil {
			resp.Body.Close()
			if r := resp.Header.Get("X-Amz-Bucket-Region"); r != "" {
				return r
			}
		}
	}
	return "us-east-1"
}

// sign signs req with SigV4 once credentials are in use.
func (s *s3Auth) sign(req *http.Request) error {
	s.mu.Lock()
	creds, region, signer := s.creds, s.region, s.signer
	s.mu.Unlock()
	if creds == nil {
		return nil
	}
	c, err := creds.Retrieve(req.Context())
	if err != nil {
		return errors.New("AWS credentials could not be refreshed")
	}
	hash := emptyHash
	if req.GetBody != nil && req.ContentLength > 0 {
		body, err := req.GetBody()
		if err != nil {
			return errors.New("request signing failed")
		}
		sum := sha256.New()
		io.Copy(sum, body)
		hash = hex.EncodeToString(sum.Sum(nil))
	}
	req.Header.Set("X-Amz-Content-Sha256", hash)
	if err := signer.SignHTTP(req.Context(), c, req, hash, "s3", region, time.Now()); err != nil {
		return errors.New("request signing failed")
	}
	return nil
}

// explain makes a refused read say why and what to do.
func (s *s3Auth) explain(e *HTTPError) error {
	s.mu.Lock()
	signed, why := s.creds != nil, s.why
	s.mu.Unlock()
	var msg string
	switch {
	case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden:
		msg = "access denied (" + e.Err.Error() + ")"
		switch {
		case signed:
			msg += ": check AWS_PROFILE / credentials"
		case why != "":
			msg += " to anonymous requests, and " + why + ": set AWS_PROFILE or AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY"
		}
	case e.Status == http.StatusNotFound && !errors.Is(e, ErrNotFound):
		msg = "no such bucket (" + e.Err.Error() + ")"
	case e.Status == http.StatusMovedPermanently:
		msg = "the bucket is in another region (" + e.Err.Error() + "): set AWS_REGION"
	default:
		return e
	}
	return &cause{e.URL + ": " + msg, e}
}

// NewS3 returns a store reading the S3 location: s3://bucket/key (AWS, or
// the endpoint AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL names), or
// s3+https://host/bucket/key and s3+http://host/bucket/key for another
// endpoint. Requests are anonymous, so public data needs no account,
// until one is refused; then, or from the start when credentials are
// configured (AWS_ACCESS_KEY_ID, AWS_PROFILE, AWS_WEB_IDENTITY_TOKEN_FILE),
// they are signed (SigV4) with credentials from the AWS SDK's standard
// chain, for the region configured (AWS_REGION, the profile's) or else
// the bucket's. AWS is addressed virtual-hosted, other endpoints
// path-style; AWS_S3_FORCE_PATH_STYLE=true or false chooses (buckets with
// dots and IP address endpoints are always path-style). Messages name the
// location, never credentials or signatures. opt.Sign, Reauthorize,
// Explain and Name are set here.
func NewS3(location string, opt HTTPOptions) (*HTTP, error) {
	return newS3(location, opt, os.Getenv)
}

func newS3(location string, opt HTTPOptions, getenv func(string) string) (*HTTP, error) {
	a, err := parseS3(location, getenv)
	if err != nil {
		return nil, err
	}
	auth := &s3Auth{addr: a, getenv: getenv}
	region := getenv("AWS_REGION")
	if region == "" {
		region = getenv("AWS_DEFAULT_REGION")
	}
	opt.Sign, opt.Explain, opt.Name = auth.sign, auth.explain, a.shown
	opt.Reauthorize = auth.enable
	opt.Region = region
	h, err := NewHTTP(a.base(region), opt)
	if err != nil {
		return nil, err
	}
	auth.client = h.client
	h.setList(a.bucketURL(), listPrefix(a.prefix))
	if auth.explicit() {
		auth.enable(context.Background())
		if !a.path && a.aws {
			// The region known now picks the regional endpoint.
			if r := auth.region; r != region && r != "" {
				h.setPrefix(a.base(r))
			}
		}
	}
	return h, nil
}

// listPrefix is the key prefix of a location's values in a listing.
func listPrefix(p string) string {
	if p == "" {
		return ""
	}
	return p + "/"
}

// oneLine is err's message on one line.
func oneLine(err error) string {
	s := strings.Join(strings.Fields(err.Error()), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
