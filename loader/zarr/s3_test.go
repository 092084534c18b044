package zarr_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"vastview/app/cli"
	"vastview/base/testtool"
	"vastview/loader"
	"vastview/loader/internal/loadertest"
	"vastview/loader/zarr"
	"vastview/loader/zarr/store"
)

// The gateway's root account; the secret is looked for in every output.
const (
	s3Access = "VVTESTROOTACCESS"
	s3Secret = "vvTopSecretKey-9f3a1c7e5b2d"
)

// startGateway runs versitygw's posix backend over a temporary folder on
// 127.0.0.1, with virtual-hosted addressing under "localhost" as well as
// path-style, and returns its host:port and a function that stops it
// (also called when the test ends).
func startGateway(t testing.TB) (string, func()) {
	return testtool.StartS3Gateway(t, t.TempDir(), s3Access, s3Secret, true)
}

// s3Do sends a request signed with the root account.
func s3Do(t testing.TB, method, url string, body []byte) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	req.Header.Set("X-Amz-Content-Sha256", hash)
	creds := aws.Credentials{AccessKeyID: s3Access, SecretAccessKey: s3Secret}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, hash, "s3", "us-east-1", time.Now()); err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// s3Must sends a signed request that must succeed.
func s3Must(t testing.TB, method, url string, body []byte) {
	t.Helper()
	resp := s3Do(t, method, url, body)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %s %s", method, url, resp.Status, b)
	}
}

// upload puts every file below dir into the bucket under prefix, through
// the S3 API.
func upload(t testing.TB, base, bucket, prefix, dir string) {
	t.Helper()
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		s3Must(t, http.MethodPut, base+"/"+bucket+"/"+prefix+"/"+filepath.ToSlash(rel), b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// s3Fixture writes an OME-Zarr with python-zarr and dask, as zarr reads it
// back level by level, under a temporary folder; it returns the folder
// and the image's name in it.
func s3Fixture(t testing.TB) (string, string) {
	testtool.RequirePython(t, "zarr", "numcodecs", "dask", "numpy")
	dir := t.TempDir()
	spec := []map[string]any{{
		"name": "img.ome.zarr", "version": "0.4", "shape": []int{300, 200}, "dtype": "<u2",
		"chunks": []int{64, 64}, "levels": 2, "factors": []int{2, 2}, "method": "dask",
		"compressor": map[string]any{"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2},
		"axes":       []map[string]any{{"name": "y", "type": "space"}, {"name": "x", "type": "space"}},
	}}
	js, _ := json.Marshal(spec)
	testtool.RunPython(t, zarr.ZarrPyFixtures, dir, string(js))
	return dir, "img.ome.zarr"
}

// isolateAWS clears the AWS settings of the environment and points the
// shared files at nothing, so only what a test sets is used.
func isolateAWS(t *testing.T) {
	none := filepath.Join(t.TempDir(), "none")
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "",
		"AWS_PROFILE": "", "AWS_DEFAULT_PROFILE": "", "AWS_WEB_IDENTITY_TOKEN_FILE": "",
		"AWS_REGION": "", "AWS_DEFAULT_REGION": "", "AWS_ENDPOINT_URL": "", "AWS_ENDPOINT_URL_S3": "",
		"AWS_S3_FORCE_PATH_STYLE": "", "AWS_CONFIG_FILE": none, "AWS_SHARED_CREDENTIALS_FILE": none,
		"AWS_EC2_METADATA_DISABLED": "true",
	} {
		t.Setenv(k, v)
	}
}

// safeLog collects the standard logger's output during a test.
type safeLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *safeLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// TestS3Gateway reads an OME-Zarr written by python-zarr from a real S3
// implementation that checks SigV4 signatures (versitygw), anonymously
// from a public bucket and with credentials from the environment and from
// a profile, path-style and virtual-hosted, and checks every value equals
// zarr's; wrong credentials, no credentials and a missing bucket each give
// one line naming the address, and the secret appears in no output.
func TestS3Gateway(t *testing.T) {
	dir, name := s3Fixture(t)
	addr, stop := startGateway(t)
	base := "http://" + addr
	s3Must(t, http.MethodPut, base+"/priv", nil)
	s3Must(t, http.MethodPut, base+"/pub", nil)
	upload(t, base, "priv", name, filepath.Join(dir, name))
	upload(t, base, "pub", name, filepath.Join(dir, name))
	policy := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*",` +
		`"Action":["s3:GetObject"],"Resource":["arn:aws:s3:::pub/*"]}]}`
	resp := s3Do(t, http.MethodPut, base+"/pub?policy=", []byte(policy))
	pb, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	publicOK := resp.StatusCode/100 == 2

	var logs safeLog
	log.SetOutput(&logs)
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	var outputs []string // every message, checked for the secret at the end
	t.Cleanup(func() {
		outputs = append(outputs, logs.buf.String())
		for _, o := range outputs {
			if strings.Contains(o, s3Secret) || strings.Contains(o, "Signature=") {
				t.Errorf("credentials in output: %q", o)
			}
		}
	})

	read := func(t *testing.T, loc string) {
		t.Helper()
		src, err := loader.Open(context.Background(), loc)
		if err != nil {
			outputs = append(outputs, err.Error())
			t.Fatal(err)
		}
		defer src.Close()
		zarr.CheckPyData(t, src, filepath.Join(dir, name), 0)
	}
	fails := func(t *testing.T, loc string, want ...string) {
		t.Helper()
		src, err := loader.Open(context.Background(), loc)
		if err == nil {
			src.Close()
			t.Fatalf("%s opened", loc)
		}
		msg := err.Error()
		t.Log(msg)
		outputs = append(outputs, msg)
		if strings.Contains(msg, "\n") {
			t.Errorf("error of more than one line: %q", msg)
		}
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("error %q does not say %q", msg, w)
			}
		}
	}
	priv := "s3+http://" + addr + "/priv/" + name

	t.Run("anonymous", func(t *testing.T) {
		isolateAWS(t)
		if !publicOK {
			t.Skipf("versitygw refused the public-read bucket policy: %s", pb)
		}
		read(t, "s3+http://"+addr+"/pub/"+name)
	})
	t.Run("no credentials", func(t *testing.T) {
		isolateAWS(t)
		fails(t, priv, priv+"/", "access denied", "no AWS credentials found")
	})
	t.Run("environment", func(t *testing.T) {
		isolateAWS(t)
		t.Setenv("AWS_ACCESS_KEY_ID", s3Access)
		t.Setenv("AWS_SECRET_ACCESS_KEY", s3Secret)
		read(t, priv)
		// The same through AWS_ENDPOINT_URL and an s3:// address.
		t.Setenv("AWS_ENDPOINT_URL", base)
		read(t, "s3://priv/"+name)
	})
	t.Run("wrong secret", func(t *testing.T) {
		isolateAWS(t)
		t.Setenv("AWS_ACCESS_KEY_ID", s3Access)
		t.Setenv("AWS_SECRET_ACCESS_KEY", s3Secret+"-wrong")
		fails(t, priv, priv+"/", "access denied (403", "SignatureDoesNotMatch", "check AWS_PROFILE / credentials")
	})
	t.Run("missing bucket", func(t *testing.T) {
		isolateAWS(t)
		t.Setenv("AWS_ACCESS_KEY_ID", s3Access)
		t.Setenv("AWS_SECRET_ACCESS_KEY", s3Secret)
		fails(t, "s3+http://"+addr+"/nobucket/"+name, "s3+http://"+addr+"/nobucket/"+name, "no such bucket")
	})
	t.Run("profile", func(t *testing.T) {
		isolateAWS(t)
		d := t.TempDir()
		creds := filepath.Join(d, "credentials")
		conf := filepath.Join(d, "config")
		os.WriteFile(creds, []byte("[lab]\naws_access_key_id = "+s3Access+"\naws_secret_access_key = "+s3Secret+"\n"), 0o600)
		os.WriteFile(conf, []byte("[profile lab]\nregion = us-east-1\n"), 0o600)
		t.Setenv("AWS_SHARED_CREDENTIALS_FILE", creds)
		t.Setenv("AWS_CONFIG_FILE", conf)
		t.Setenv("AWS_PROFILE", "lab")
		read(t, priv)
	})
	t.Run("default profile after a refusal", func(t *testing.T) {
		// No credentials named: the first request goes out unsigned, is
		// refused, and the read is made again signed with [default].
		isolateAWS(t)
		creds := filepath.Join(t.TempDir(), "credentials")
		os.WriteFile(creds, []byte("[default]\naws_access_key_id = "+s3Access+"\naws_secret_access_key = "+s3Secret+"\n"), 0o600)
		t.Setenv("AWS_SHARED_CREDENTIALS_FILE", creds)
		read(t, priv)
	})
	t.Run("virtual-hosted", func(t *testing.T) {
		isolateAWS(t)
		t.Setenv("AWS_ACCESS_KEY_ID", s3Access)
		t.Setenv("AWS_SECRET_ACCESS_KEY", s3Secret)
		_, port, _ := net.SplitHostPort(addr)
		t.Setenv("AWS_ENDPOINT_URL", "http://localhost:"+port)
		t.Setenv("AWS_S3_FORCE_PATH_STYLE", "false")
		// priv.localhost may not resolve here: every dial goes to the
		// gateway, whatever the host the request names.
		var hosts []string
		var mu sync.Mutex
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.DialContext = func(ctx context.Context, network, a string) (net.Conn, error) {
			mu.Lock()
			hosts = append(hosts, a)
			mu.Unlock()
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		}
		st, err := store.NewS3("s3://priv/"+name, store.HTTPOptions{Client: &http.Client{Transport: tr}})
		if err != nil {
			t.Fatal(err)
		}
		src, err := zarr.OpenStore(context.Background(), st)
		if err != nil {
			outputs = append(outputs, err.Error())
			t.Fatal(err)
		}
		defer src.Close()
		zarr.CheckPyData(t, src, filepath.Join(dir, name), 0)
		if len(hosts) == 0 || hosts[0] != "priv.localhost:"+port {
			t.Errorf("dialled %v, want priv.localhost:%s", hosts, port)
		}
	})
	t.Run("cli info", func(t *testing.T) {
		isolateAWS(t)
		t.Setenv("AWS_ACCESS_KEY_ID", s3Access)
		t.Setenv("AWS_SECRET_ACCESS_KEY", s3Secret)
		var out, errb bytes.Buffer
		if rc := cli.Run([]string{"info", "--json", priv}, &out, &errb); rc != 0 {
			t.Fatalf("info: %d %s", rc, errb.String())
		}
		outputs = append(outputs, out.String(), errb.String())
		var info struct {
			Levels []struct {
				Shape []int `json:"shape"`
			} `json:"levels"`
		}
		if err := json.Unmarshal(out.Bytes(), &info); err != nil {
			t.Fatalf("info --json: %v\n%s", err, out.String())
		}
		if len(info.Levels) != 2 || len(info.Levels[0].Shape) < 2 ||
			info.Levels[0].Shape[len(info.Levels[0].Shape)-2] != 300 {
			t.Errorf("info: %s", out.String())
		}
		t.Setenv("AWS_SECRET_ACCESS_KEY", s3Secret+"x")
		out.Reset()
		errb.Reset()
		if rc := cli.Run([]string{"info", priv}, &out, &errb); rc != 1 ||
			strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 || !strings.Contains(errb.String(), "access denied") {
			t.Errorf("info with a wrong secret: %d %q", rc, errb.String())
		}
		outputs = append(outputs, out.String(), errb.String())
	})
	// Last: it stops the gateway.
	t.Run("offline from the disk cache", func(t *testing.T) {
		isolateAWS(t)
		t.Setenv("AWS_ACCESS_KEY_ID", s3Access)
		t.Setenv("AWS_SECRET_ACCESS_KEY", s3Secret)
		cache, err := store.OpenDiskCache(t.TempDir(), 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		readWith := func() {
			t.Helper()
			st, err := store.NewS3(priv, store.HTTPOptions{Cache: cache, Retries: -1})
			if err != nil {
				t.Fatal(err)
			}
			src, err := zarr.OpenStore(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			zarr.CheckPyData(t, src, filepath.Join(dir, name), 0)
		}
		readWith()
		stop()
		readWith() // every key was seen: served from the cache
	})
}

// bigFixture writes with python-zarr a z × 2048 × 2048 uint16 array
// (blosc-zstd, 1 × 512 × 512 chunks) of which only the plane z = 0 is
// stored: z × 8 MiB logical, 16 chunks real; the rest reads as fill.
func bigFixture(b *testing.B, dir string, z int) {
	testtool.RequirePython(b, "zarr", "numcodecs", "numpy")
	testtool.RunPython(b, `
import sys, numpy as np, zarr, numcodecs
path, z = sys.argv[1], int(sys.argv[2])
g = zarr.open_group(path, mode='w')
a = g.create_dataset('0', shape=(z, 2048, 2048), chunks=(1, 512, 512), dtype='<u2',
    compressor=numcodecs.Blosc(cname='zstd', clevel=3, shuffle=2), fill_value=0)
a[0] = np.random.default_rng(3).integers(0, 4096, (2048, 2048), dtype='<u2')
g.attrs['multiscales'] = [{'version': '0.4', 'datasets': [{'path': '0'}],
    'axes': [{'name': 'z', 'type': 'space'}, {'name': 'y', 'type': 'space'}, {'name': 'x', 'type': 'space'}]}]
`, dir, strconv.Itoa(z))
}

// BenchmarkS3OpenFirstPlane opens OME-Zarr images of 400 MiB and 4 GiB
// (logical) on versitygw over loopback with signed requests, and reads the
// first plane (8 MiB, 16 chunks): the time should not grow with the
// image. "cold" has no disk cache, "warm" a disk cache that holds the
// chunks, validated by conditional requests (304).
func BenchmarkS3OpenFirstPlane(b *testing.B) {
	addr, _ := startGateway(b)
	base := "http://" + addr
	s3Must(b, http.MethodPut, base+"/bench", nil)
	for _, z := range []int{51, 512} {
		dir := filepath.Join(b.TempDir(), "big.ome.zarr")
		bigFixture(b, dir, z)
		name := "z" + strconv.Itoa(z) + ".ome.zarr"
		upload(b, base, "bench", name, dir)
		for _, warm := range []bool{false, true} {
			var cache *store.DiskCache
			kind := "cold"
			if warm {
				kind = "warm"
				c, err := store.OpenDiskCache(b.TempDir(), 1<<30)
				if err != nil {
					b.Fatal(err)
				}
				cache = c
			}
			b.Run(fmt.Sprintf("logical=%dMiB/%s", z*8, kind), func(b *testing.B) {
				b.Setenv("AWS_ACCESS_KEY_ID", s3Access)
				b.Setenv("AWS_SECRET_ACCESS_KEY", s3Secret)
				b.Setenv("AWS_EC2_METADATA_DISABLED", "true")
				open := func(ctx context.Context, _ string) (loader.Source, error) {
					st, err := store.NewS3("s3+http://"+addr+"/bench/"+name, store.HTTPOptions{Cache: cache})
					if err != nil {
						return nil, err
					}
					return zarr.OpenStore(ctx, st)
				}
				if warm { // fill the cache
					src, err := open(context.Background(), "")
					if err != nil {
						b.Fatal(err)
					}
					loader.ReadPlane(context.Background(), src, 0, loader.Plane{Orientation: loader.XY})
					src.Close()
				}
				loadertest.OpenFirstPlane(b, "", open)
			})
		}
	}
}

// TestGSThroughLoaderOpen opens gs://BUCKET/img.ome.zarr with the XML API
// endpoint moved to a local web server (VASTVIEW_GS_ENDPOINT) that serves
// the python-zarr fixture under /BUCKET/, and checks every value, and
// that a refusal says what to do.
func TestGSThroughLoaderOpen(t *testing.T) {
	dir, name := s3Fixture(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Dir(dir))))
	defer srv.Close()
	t.Setenv("VASTVIEW_GS_ENDPOINT", srv.URL)
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "")
	bucket := filepath.Base(dir)
	src, err := loader.Open(context.Background(), "gs://"+bucket+"/"+name)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	zarr.CheckPyData(t, src, filepath.Join(dir, name), 0)

	deny := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
	}))
	defer deny.Close()
	t.Setenv("VASTVIEW_GS_ENDPOINT", deny.URL)
	_, err = loader.Open(context.Background(), "gs://private/"+name)
	if err == nil || strings.Contains(err.Error(), "\n") ||
		!strings.Contains(err.Error(), "gs://private/"+name+"/") || !strings.Contains(err.Error(), "GOOGLE_APPLICATION_CREDENTIALS") {
		t.Errorf("refused: %v", err)
	}
}
