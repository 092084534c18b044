package store

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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
// missing key as ErrNotFound, a refusal as one line that says anonymous
// requests read only public data and how to give credentials.
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
	want := "gs://priv/img.zarr/.zattrs: access denied (403 Forbidden (AccessDenied: Anonymous caller does not have storage.objects.get access.)): anonymous requests read only public data; set GOOGLE_APPLICATION_CREDENTIALS to a service account key or authorized_user file"
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

// TestGCSServiceAccount reads a private object with the OAuth2 token that
// a service account key (GOOGLE_APPLICATION_CREDENTIALS) is exchanged for
// at its token_uri, here a local server, and never shows the token or the
// key in a message.
func TestGCSServiceAccount(t *testing.T) {
	const token = "vv-gcs-access-token-5e1f"
	var exchanges int
	var mu sync.Mutex
	mux := http.NewServeMux()
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		if r.Form.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" || r.Form.Get("assertion") == "" {
			http.Error(w, "bad grant", http.StatusBadRequest)
			return
		}
		mu.Lock()
		exchanges++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"access_token":"` + token + `","token_type":"Bearer","expires_in":3600}`))
	})
	mux.HandleFunc("/priv/", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Write([]byte(`{"zarr_format":2}`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	pemKey := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	sa, _ := json.Marshal(map[string]string{
		"type": "service_account", "project_id": "p", "private_key_id": "k1", "private_key": pemKey,
		"client_email": "reader@p.iam.gserviceaccount.com", "client_id": "1", "token_uri": srv.URL + "/token",
	})
	file := filepath.Join(t.TempDir(), "sa.json")
	os.WriteFile(file, sa, 0o600)
	getenv := env("VASTVIEW_GS_ENDPOINT", srv.URL, "GOOGLE_APPLICATION_CREDENTIALS", file)
	h, err := newGCS("gs://priv/img.zarr", testOptions(), getenv)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	for range 3 {
		if b, err := h.Get(ctx, ".zarray"); err != nil || string(b) != `{"zarr_format":2}` {
			t.Fatalf("Get: %q %v", b, err)
		}
	}
	if exchanges != 1 {
		t.Errorf("%d token exchanges for 3 reads, want 1 (the token is kept)", exchanges)
	}
	// A file that is not credentials is refused in one line naming it.
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"type":"external_account","secret":"`+token+`"}`), 0o600)
	_, err = newGCS("gs://priv/img.zarr", testOptions(), env("GOOGLE_APPLICATION_CREDENTIALS", bad))
	if err == nil || !strings.Contains(err.Error(), bad) || strings.Contains(err.Error(), token) {
		t.Errorf("bad credentials file: %v", err)
	}
}

// TestS3RegionFromTheBucket signs for the region the bucket names in
// x-amz-bucket-region when none is configured, and the store's messages
// and String name the s3 address.
func TestS3RegionFromTheBucket(t *testing.T) {
	var mu sync.Mutex
	var scopes []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			w.Header().Set("X-Amz-Bucket-Region", "eu-west-3")
			w.WriteHeader(http.StatusForbidden)
			return
		}
		a := r.Header.Get("Authorization")
		mu.Lock()
		scopes = append(scopes, a)
		mu.Unlock()
		if !strings.Contains(a, "/eu-west-3/s3/aws4_request") || r.Header.Get("X-Amz-Content-Sha256") != emptyHash {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		w.Write([]byte("{}"))
	}))
	defer srv.Close()
	none := filepath.Join(t.TempDir(), "none")
	getenv := env("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_CONFIG_FILE", none)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", none)
	loc := "s3+" + srv.URL + "/bucket/img.zarr"
	h, err := newS3(loc, testOptions(), getenv)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if h.String() != loc+"/" {
		t.Errorf("String() = %q, want %q", h.String(), loc+"/")
	}
	if b, err := h.Get(context.Background(), ".zattrs"); err != nil || string(b) != "{}" {
		t.Fatalf("Get: %q %v (authorization %v)", b, err, scopes)
	}
}
