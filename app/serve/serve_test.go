package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"vastview/app/serve"
	"vastview/base/testtool"
	"vastview/levels"
	"vastview/loader"
	_ "vastview/loader/sequence"
	_ "vastview/loader/tiff"
	_ "vastview/loader/video"
)

// python runs script with Debian's python3 (numpy, tifffile, zarr,
// fsspec, aiohttp and dask importable), d set to dir and u to url.
func python(t *testing.T, dir, url, script string) string {
	t.Helper()
	testtool.RequirePython(t, "numpy", "tifffile", "zarr", "fsspec", "aiohttp", "dask.array")
	head := "import sys, json\nimport numpy as np, tifffile, zarr, fsspec, dask.array as da\nd, u = sys.argv[1], sys.argv[2]\n"
	return string(testtool.RunPython(t, head+script, dir, url))
}

// served opens each path as vastview does (loader.Open, then a pyramid)
// and serves them; it returns the server's address and the server.
func served(t *testing.T, opt serve.Options, paths ...string) (string, *serve.Server) {
	t.Helper()
	var imgs []serve.Image
	names := serve.Names(paths)
	for i, p := range paths {
		src, err := loader.Open(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		pyr, err := levels.Open(src, levels.Options{CacheBytes: 64 << 20})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pyr.Close() })
		imgs = append(imgs, serve.Image{Name: names[i], Src: pyr, Type: "mean"})
	}
	return serveImages(t, imgs, opt)
}

func serveImages(t testing.TB, imgs []serve.Image, opt serve.Options) (string, *serve.Server) {
	t.Helper()
	s, err := serve.New(imgs, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return hs.URL, s
}

// meanCheck is Python that checks every level of the image at u against
// level 0 mean-downsampled by numpy: each level halves (ceil) the axes
// whose length changed, a partial edge block the mean of what it has,
// integers rounded half up; scale and translation follow OME-NGFF for
// mean binning. It prints the number of levels.
const meanCheck = `
def half(a, ax):
    n = a.shape[ax]
    a = a.astype(np.int64)
    lo = np.take(a, range(0, n, 2), axis=ax)
    hi = np.take(a, range(1, n, 2), axis=ax)
    cnt = np.ones(lo.shape, np.int64)
    if hi.shape[ax] < lo.shape[ax]:
        pad = [(0, 0)] * a.ndim
        pad[ax] = (0, 1)
        hi = np.pad(hi, pad)
        cp = np.zeros(lo.shape, np.int64)
        idx = [slice(None)] * a.ndim
        idx[ax] = slice(0, -1)
        cp[tuple(idx)] = 1
        return lo + hi, cnt + cp
    return lo + hi, cnt * 2

def check_levels(u):
    g = zarr.open(fsspec.get_mapper(u), mode='r')
    ms = g.attrs['multiscales'][0]
    assert g.attrs['multiscales'][0]['version'] == '0.4'
    paths = [ds['path'] for ds in ms['datasets']]
    s0 = np.array(ms['datasets'][0]['coordinateTransformations'][0]['scale'])
    t0 = np.array(ms['datasets'][0]['coordinateTransformations'][1]['translation'])
    prev = g[paths[0]][...]
    f = np.ones(prev.ndim)
    for p, ds in zip(paths[1:], ms['datasets'][1:]):
        arr = g[p]
        want = prev.astype(np.int64)
        cnt = np.ones(want.shape, np.int64)
        for ax in range(prev.ndim):
            if arr.shape[ax] != prev.shape[ax]:
                assert arr.shape[ax] == (prev.shape[ax] + 1) // 2, (p, arr.shape, prev.shape)
                s, _ = half(want, ax)
                c, _ = half(cnt, ax)
                want, cnt = s, c
                f[ax] *= 2
        want = (2 * want + cnt) // (2 * cnt)
        got = arr[...]
        assert got.dtype == prev.dtype
        assert np.array_equal(got, want), ('level', p)
        ct = ds['coordinateTransformations']
        assert np.allclose(ct[0]['scale'], s0 * f), (p, ct)
        assert np.allclose(ct[1]['translation'], t0 + (f - 1) / 2 * s0), (p, ct)
        prev = got
    print(len(paths))
`

// TestTIFFStackAsZarr serves a TIFF stack written by tifffile and reads it
// back with zarr and dask over fsspec's HTTP: level 0 equals tifffile's
// read, zstd-compressed and raw (-short: zstd only), and every computed level is the mean
// numpy computes from the level below.
func TestTIFFStackAsZarr(t *testing.T) {
	dir := t.TempDir()
	python(t, dir, "", `
rng = np.random.default_rng(7)
tifffile.imwrite(d + '/stack.tif', rng.integers(0, 65536, (10, 300, 20), dtype=np.uint16))
`)
	for _, codec := range testtool.Quick([]string{"zstd", "none"}, 1) {
		t.Run(codec, func(t *testing.T) {
			url, srv := served(t, serve.Options{Codec: codec}, filepath.Join(dir, "stack.tif"))
			out := python(t, dir, url+"/stack.ome.zarr", meanCheck+`
a = da.from_zarr(u + '/0')
ref = tifffile.imread(d + '/stack.tif')
assert a.shape == ref.shape and a.dtype == ref.dtype, (a.shape, a.dtype)
assert a.chunksize == (1, 300, 20), a.chunksize
assert np.array_equal(a.compute(), ref)
z = json.loads(fsspec.get_mapper(u)['0/.zarray'])
print(z['compressor'], z['dimension_separator'])
check_levels(u)
`)
			want := "None /\n3\n"
			if codec == "zstd" {
				want = "{'id': 'zstd', 'level': 1} /\n3\n"
			}
			if out != want {
				t.Fatalf("python printed %q, want %q", out, want)
			}
			if n, _ := srv.Chunks(); n == 0 {
				t.Fatal("no chunk counted")
			}
		})
	}
}

// TestOMETIFFChannels serves an OME-TIFF stored Z, C, Y, X with named,
// coloured channels: the image is served in OME-NGFF order (C before Z),
// values equal to tifffile's read transposed, and its omero channels
// carry the names and colours.
func TestOMETIFFChannels(t *testing.T) {
	dir := t.TempDir()
	python(t, dir, "", `
rng = np.random.default_rng(3)
a = rng.integers(0, 4000, (3, 2, 16, 24), dtype=np.uint16)
tifffile.imwrite(d + '/named.ome.tif', a, metadata={'axes': 'ZCYX',
    'Channel': {'Name': ['GFP', 'mCherry'], 'Color': [16711935, -16711681]}})
`)
	url, _ := served(t, serve.Options{}, filepath.Join(dir, "named.ome.tif"))
	out := python(t, dir, url+"/named.ome.zarr", `
g = zarr.open(fsspec.get_mapper(u), mode='r')
ref = tifffile.imread(d + '/named.ome.tif')
assert np.array_equal(g['0'][...], ref.transpose(1, 0, 2, 3))
print([a['name'] for a in g.attrs['multiscales'][0]['axes']])
print([(c['label'], c['color']) for c in g.attrs['omero']['channels']])
`)
	want := "['c', 'z', 'y', 'x']\n[('GFP', '00FF00'), ('mCherry', 'FF00FF')]\n"
	if out != want {
		t.Fatalf("python printed %q, want %q", out, want)
	}
}

// TestPNGFolder serves a folder of 16-bit PNG frames that PIL wrote: each
// plane of level 0 equals PIL's read of its frame.
func TestPNGFolder(t *testing.T) {
	testtool.RequirePython(t, "PIL")
	dir := t.TempDir()
	frames := filepath.Join(dir, "frames")
	if err := os.Mkdir(frames, 0o755); err != nil {
		t.Fatal(err)
	}
	python(t, frames, "", `
from PIL import Image
rng = np.random.default_rng(5)
for i in range(6):
    Image.fromarray(rng.integers(0, 256, (40, 50), dtype=np.uint8)).save(d + '/f%03d.png' % i)
`)
	url, _ := served(t, serve.Options{}, frames)
	out := python(t, frames, url+"/frames.ome.zarr", `
from PIL import Image
import glob
a = da.from_zarr(u + '/0').compute()
ref = np.stack([np.asarray(Image.open(p)) for p in sorted(glob.glob(d + '/*.png'))])
assert a.dtype == ref.dtype and np.array_equal(a, ref), (a.shape, ref.shape)
print(a.shape)
`)
	if out != "(6, 40, 50)\n" {
		t.Fatalf("python printed %q", out)
	}
}

// TestStridedRead serves a 10,000-page stack, one page per chunk: dask's
// read of every hundredth frame asks the server for about a hundred
// chunks, not ten thousand, and gets tifffile's frames 0, 100, ...
func TestStridedRead(t *testing.T) {
	testtool.Long(t, "10,000 pages")
	dir := t.TempDir()
	python(t, dir, "", `
rng = np.random.default_rng(11)
tifffile.imwrite(d + '/long.tif', rng.integers(0, 65536, (10000, 16, 16), dtype=np.uint16))
`)
	url, srv := served(t, serve.Options{}, filepath.Join(dir, "long.tif"))
	out := python(t, dir, url+"/long.ome.zarr", `
a = da.from_zarr(u + '/0')
assert a.chunksize == (1, 16, 16), a.chunksize
got = a[::100].compute()
ref = tifffile.imread(d + '/long.tif', key=range(0, 10000, 100))
assert np.array_equal(got, ref)
print(got.shape)
`)
	if out != "(100, 16, 16)\n" {
		t.Fatalf("python printed %q", out)
	}
	n, _ := srv.Chunks()
	if n < 100 || n > 110 {
		t.Fatalf("%d chunk reads for 100 frames", n)
	}
	t.Logf("%d chunk reads for 100 frames of 10,000", n)
}

// planeSource is a synthetic 2-D source whose chunk fail holds fail's
// error.
type planeSource struct {
	meta *loader.Meta
	fail error
	mu   sync.Mutex
	n    int // reads
}

func newPlane() *planeSource {
	return &planeSource{meta: loader.NewMeta("plane", "YX", []int{100, 70}, loader.Uint16, []int{64, 64}, nil, nil)}
}

func (s *planeSource) Meta() *loader.Meta { return s.meta }
func (s *planeSource) Close() error       { return nil }
func (s *planeSource) ReadChunk(_ context.Context, _ int, idx []int, dst []byte) error {
	s.mu.Lock()
	s.n++
	s.mu.Unlock()
	if s.fail != nil && idx[0] == 1 && idx[1] == 1 {
		return s.fail
	}
	for i := range dst {
		dst[i] = byte(i + idx[0]*3 + idx[1]*5)
	}
	return nil
}

func get(t *testing.T, method, url, auth string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// TestToken: with a token, requests without it, or with another, get
// 401; with it, 200; a CORS preflight needs none (browsers send none).
func TestToken(t *testing.T) {
	var logb bytes.Buffer
	url, _ := serveImages(t, []serve.Image{{Name: "p", Src: newPlane()}}, serve.Options{Token: "s3cret", Log: &logb})
	for _, auth := range []string{"", "Bearer wrong", "s3cret", "Basic s3cret"} {
		if r, _ := get(t, "GET", url+"/p.ome.zarr/.zattrs", auth); r.StatusCode != http.StatusUnauthorized {
			t.Errorf("Authorization %q: status %d, want 401", auth, r.StatusCode)
		}
	}
	if r, _ := get(t, "GET", url+"/p.ome.zarr/0/0/0", "Bearer s3cret"); r.StatusCode != 200 {
		t.Errorf("with the token: status %d", r.StatusCode)
	}
	// Browser clients that cannot send headers give it in the query.
	if r, _ := get(t, "GET", url+"/p.ome.zarr/.zattrs?token=s3cret", ""); r.StatusCode != 200 {
		t.Errorf("with ?token=: status %d", r.StatusCode)
	}
	for _, q := range []string{"?token=wrong", "?token=", "?token=s3cret&token=s3cret", "?tok=s3cret"} {
		if r, _ := get(t, "GET", url+"/p.ome.zarr/.zattrs"+q, ""); r.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: status %d, want 401", q, r.StatusCode)
		}
	}
	if r, _ := get(t, "OPTIONS", url+"/p.ome.zarr/.zattrs", ""); r.StatusCode != http.StatusNoContent {
		t.Errorf("preflight: status %d", r.StatusCode)
	}
	if strings.Contains(logb.String(), "s3cret") {
		t.Errorf("the token is in the log: %q", logb.String())
	}
}

// TestOnlyNamedKeys: paths outside the images, traversals, unknown keys,
// chunks beyond the grid and non-canonical numbers are 404; the index at
// / lists the names only.
func TestOnlyNamedKeys(t *testing.T) {
	url, _ := serveImages(t, []serve.Image{{Name: "p", Src: newPlane()}}, serve.Options{})
	for _, p := range []string{
		"/../etc/passwd", "/%2e%2e/", "/%2e%2e/etc/passwd", "/p.ome.zarr/../../etc/passwd",
		"/p.ome.zarr/..%2f..%2fetc%2fpasswd", "/P.ome.zarr/.zattrs", "/p.ome.zarr", "/p.ome.zarr/",
		"/p.ome.zarr/0", "/p.ome.zarr/0/2/0", "/p.ome.zarr/0/0/2", "/p.ome.zarr/0/0", "/p.ome.zarr/0/0/0/0",
		"/p.ome.zarr/0/00/0", "/p.ome.zarr/0/-1/0", "/p.ome.zarr/0/+1/0", "/p.ome.zarr/0.0.0",
		"/p.ome.zarr/1/0/0", "/p.ome.zarr/.zattrs/", "/p.ome.zarr//.zattrs", "/etc/passwd", "/p",
	} {
		req, err := http.NewRequest("GET", url, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.URL.Opaque = p // sent as is, not cleaned by the client
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: status %d, want 404", p, resp.StatusCode)
		}
	}
	for _, p := range []string{"/p.ome.zarr/.zgroup", "/p.ome.zarr/.zattrs", "/p.ome.zarr/0/.zarray", "/p.ome.zarr/.zmetadata", "/p.ome.zarr/0/1/1"} {
		if r, _ := get(t, "GET", url+p, ""); r.StatusCode != 200 {
			t.Errorf("%s: status %d", p, r.StatusCode)
		}
	}
	r, body := get(t, "GET", url+"/", "")
	var idx struct {
		Images []struct{ Name, Path string }
	}
	if err := json.Unmarshal([]byte(body), &idx); err != nil || r.StatusCode != 200 {
		t.Fatalf("index: %d %v %q", r.StatusCode, err, body)
	}
	if len(idx.Images) != 1 || idx.Images[0].Name != "p" || idx.Images[0].Path != "/p.ome.zarr/" {
		t.Fatalf("index %q", body)
	}
}

// TestReadOnly: methods that would change anything get 405 with Allow;
// GET and HEAD of a chunk give its full size, the edge chunk padded.
func TestReadOnly(t *testing.T) {
	src := newPlane()
	url, _ := serveImages(t, []serve.Image{{Name: "p", Src: src}}, serve.Options{})
	for _, m := range []string{"PUT", "POST", "DELETE", "PATCH"} {
		r, _ := get(t, m, url+"/p.ome.zarr/.zattrs", "")
		if r.StatusCode != http.StatusMethodNotAllowed || r.Header.Get("Allow") != "GET, HEAD, OPTIONS" {
			t.Errorf("%s: status %d, Allow %q", m, r.StatusCode, r.Header.Get("Allow"))
		}
	}
	r, body := get(t, "GET", url+"/p.ome.zarr/0/1/1", "")
	want := make([]byte, 64*64*2)
	src.ReadChunk(context.Background(), 0, []int{1, 1}, want)
	if r.StatusCode != 200 || body != string(want) {
		t.Fatalf("edge chunk: status %d, %d bytes, want the source's %d", r.StatusCode, len(body), len(want))
	}
	if r, _ := get(t, "HEAD", url+"/p.ome.zarr/0/1/1", ""); r.StatusCode != 200 || r.ContentLength != int64(len(want)) {
		t.Fatalf("HEAD: status %d, length %d", r.StatusCode, r.ContentLength)
	}
}

// TestCORSOnlyForNamedOrigins answers a browser's preflight as a viewer
// on a named origin (neuroglancer) needs, and marks answers readable by
// that origin only: another origin, or any origin when none is named,
// gets no CORS header, so that a page it serves cannot read the images.
func TestCORSOnlyForNamedOrigins(t *testing.T) {
	const ng = "https://neuroglancer-demo.appspot.com"
	named, _ := serveImages(t, []serve.Image{{Name: "p", Src: newPlane()}}, serve.Options{CORS: []string{ng + "/"}})
	none, _ := serveImages(t, []serve.Image{{Name: "p", Src: newPlane()}}, serve.Options{})
	ask := func(method, url, origin string) http.Header {
		t.Helper()
		req, _ := http.NewRequest(method, url+"/p.ome.zarr/0/0/0", nil)
		req.Header.Set("Origin", origin)
		if method == "OPTIONS" {
			req.Header.Set("Access-Control-Request-Method", "GET")
			req.Header.Set("Access-Control-Request-Headers", "authorization")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			t.Fatalf("%s from %s: status %d", method, origin, resp.StatusCode)
		}
		return resp.Header
	}
	h := ask("OPTIONS", named, ng)
	if h.Get("Access-Control-Allow-Origin") != ng || !strings.Contains(h.Get("Access-Control-Allow-Methods"), "GET") ||
		!strings.Contains(strings.ToLower(h.Get("Access-Control-Allow-Headers")), "authorization") {
		t.Fatalf("preflight from %s: %v", ng, h)
	}
	if h := ask("GET", named, ng); h.Get("Access-Control-Allow-Origin") != ng {
		t.Fatalf("GET from %s: %v", ng, h)
	}
	for _, c := range []struct{ url, origin string }{
		{named, "https://evil.example"}, {named, "http://neuroglancer-demo.appspot.com"},
		{none, ng}, {none, "https://evil.example"},
	} {
		for _, m := range []string{"OPTIONS", "GET"} {
			if h := ask(m, c.url, c.origin); h.Get("Access-Control-Allow-Origin") != "" || h.Get("Access-Control-Allow-Methods") != "" {
				t.Errorf("%s from %s: CORS headers %v", m, c.origin, h)
			}
		}
	}
	if _, err := serve.New(nil, serve.Options{CORS: []string{"neuroglancer-demo.appspot.com"}}); err == nil {
		t.Error("an origin without a scheme is taken")
	}
}

// TestHostChecked: a request whose Host header names another host (a
// name an attacker's page made point at this machine) is refused, one to
// the address served, a loopback name or an allowed name is answered.
func TestHostChecked(t *testing.T) {
	url, _ := serveImages(t, []serve.Image{{Name: "p", Src: newPlane()}}, serve.Options{AllowHosts: []string{"Data.Lab:8000"}})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(url, "http://"))
	for host, want := range map[string]int{
		"evil.example": 403, "evil.example:" + port: 403, "127.0.0.1.nip.io:" + port: 403,
		"data.lab.evil.example": 403, "10.1.2.3:" + port: 403,
		"127.0.0.1:" + port: 200, "localhost:" + port: 200, "LOCALHOST": 200, "app.localhost:" + port: 200,
		"[::1]:" + port: 200, "data.lab": 200, "DATA.LAB:" + port: 200,
	} {
		req, _ := http.NewRequest("GET", url+"/p.ome.zarr/.zattrs", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %q: status %d, want %d", host, resp.StatusCode, want)
		}
		if want == 403 && strings.Contains(string(b), "multiscales") {
			t.Errorf("Host %q: the metadata was sent", host)
		}
	}
	// Served on an address of this machine that is not loopback, that
	// address is a host name it answers to.
	var ip net.IP
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
				ip = n.IP
				break
			}
		}
	}
	if ip == nil {
		t.Log("no address but loopback: the bound address is not tried")
		return
	}
	s, err := serve.New([]serve.Image{{Name: "p", Src: newPlane()}}, serve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: s}
	go hs.Serve(ln)
	defer hs.Close()
	for host, want := range map[string]int{ln.Addr().String(): 200, "evil.example": 403} {
		req, _ := http.NewRequest("GET", "http://"+ln.Addr().String()+"/p.ome.zarr/.zattrs", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("bound to %s, Host %q: status %d, want %d", ip, host, resp.StatusCode, want)
		}
	}
}

// TestChunkError: a chunk whose read fails is a 500 with one line, logged
// once however often it is asked for; a chunk not stored yet is a 404
// (Zarr's fill value).
func TestChunkError(t *testing.T) {
	src := newPlane()
	src.fail = errors.New("bad strip\nat offset 7")
	var logb bytes.Buffer
	url, _ := serveImages(t, []serve.Image{{Name: "p", Src: src}}, serve.Options{Log: &syncWriter{w: &logb}})
	for range 3 {
		r, body := get(t, "GET", url+"/p.ome.zarr/0/1/1", "")
		if r.StatusCode != 500 || strings.Count(body, "\n") != 1 {
			t.Fatalf("status %d, body %q", r.StatusCode, body)
		}
	}
	if lines := strings.Split(strings.TrimSpace(logb.String()), "\n"); len(lines) != 1 ||
		!strings.Contains(lines[0], "p.ome.zarr/0/1/1") || !strings.Contains(lines[0], "bad strip at offset 7") {
		t.Fatalf("log %q", logb.String())
	}
	src.fail = fmt.Errorf("chunk: %w", loader.ErrNotStored)
	if r, _ := get(t, "GET", url+"/p.ome.zarr/0/1/1", ""); r.StatusCode != 404 {
		t.Fatalf("not stored: status %d", r.StatusCode)
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// TestNames: base names without extensions, repeats told apart, nothing
// a URL would need escaped.
func TestNames(t *testing.T) {
	got := serve.Names([]string{"/a/stack.tif", "/b/stack.tif", "/c/stack.ome.tiff", "img.ome.zarr", "/d/frames/",
		"movie file.mp4", "x.lif#2", "../..", "https://h/p/vol.zarr/", ".hidden.tif"})
	want := []string{"stack", "stack-2", "stack-3", "img", "frames", "movie_file", "x_2", "image", "vol", "_hidden"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("Names = %q, want %q", got, want)
	}
	for _, n := range got {
		if !serve.ValidName(n) {
			t.Errorf("%q is not valid", n)
		}
	}
	if _, err := serve.New([]serve.Image{{Name: "a", Src: newPlane()}, {Name: "a", Src: newPlane()}}, serve.Options{}); err == nil {
		t.Error("a repeated name was accepted")
	}
	if _, err := serve.New([]serve.Image{{Name: "../a", Src: newPlane()}}, serve.Options{}); err == nil {
		t.Error("../a was accepted")
	}
}

// TestMovie serves an H.264 movie made by ffmpeg: one frame per chunk on
// T, C, Y, X, each frame equal to ffmpeg's own conversion of it to packed
// RGB, and T's spacing the frame interval in seconds.
func TestMovie(t *testing.T) {
	ffmpeg := testtool.Require(t, "ffmpeg")
	testtool.Require(t, "ffprobe")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	mp4 := filepath.Join(dir, "clip.mp4")
	testtool.Run(t, ffmpeg, "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=25",
		"-frames:v", "20", "-c:v", "libx264", "-pix_fmt", "yuv420p", mp4)
	url, srv := served(t, serve.Options{Codec: "zstd"}, mp4)
	out := python(t, mp4, url+"/clip.ome.zarr", `
import subprocess
a = da.from_zarr(u + '/0')
assert a.chunksize == (1, 3, 48, 64), a.chunksize
raw = subprocess.run(['ffmpeg', '-hide_banner', '-nostdin', '-loglevel', 'error', '-i', d, '-f', 'rawvideo',
    '-pix_fmt', 'rgb24', 'pipe:1'], check=True, capture_output=True).stdout
ref = np.frombuffer(raw, np.uint8).reshape(-1, 48, 64, 3).transpose(0, 3, 1, 2)
assert a.shape == ref.shape, (a.shape, ref.shape)
assert np.array_equal(a[::3].compute(), ref[::3])
g = zarr.open(fsspec.get_mapper(u), mode='r')
ms = g.attrs['multiscales'][0]
print(ms['axes'][0], ms['datasets'][0]['coordinateTransformations'][0]['scale'][0])
`)
	if out != "{'name': 't', 'type': 'time', 'unit': 'second'} 0.04\n" {
		t.Fatalf("python printed %q", out)
	}
	if n, _ := srv.Chunks(); n != 7 {
		t.Fatalf("%d chunks read for frames 0, 3, ..., 18", n)
	}
}
