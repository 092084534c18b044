package cli

import (
	"bytes"
	"context"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"vastview/base/testtool"
	"vastview/levels/omezarr"
	"vastview/loader"
)

// volSource is a ZYX uint16 volume stored as whole planes, with a level
// computed above it: 16 planes of 300x280.
type volSource struct{ meta *loader.Meta }

func newVolSource() volSource {
	return volSource{loader.NewMeta("vol", "ZYX", []int{16, 300, 280}, loader.Uint16, []int{1, 300, 280},
		[]float64{1, 0.5, 0.5}, []string{"micrometer", "micrometer", "micrometer"})}
}

func (s volSource) Meta() *loader.Meta { return s.meta }
func (s volSource) Close() error       { return nil }
func (s volSource) ReadChunk(_ context.Context, _ int, idx []int, dst []byte) error {
	for i := 0; i < len(dst); i += 2 {
		v := uint16(idx[0]*7919 + i*31 + i/560*13)
		dst[i], dst[i+1] = byte(v), byte(v>>8)
	}
	return nil
}

// files returns every file under dir, by slash path, with its bytes.
func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPyramidPartKilledRerunFinish runs `vastview pyramid --part 1/2` in a
// child process over an OME-Zarr served by HTTP whose planes from the
// fifth on are held, kills it with SIGKILL while it waits for one, and
// checks that --finish, after part 2/2, names part 1/2 as not finished;
// that after part 1/2 is run again, --finish succeeds; and that the
// output equals one plain run's, file for file and byte for byte.
func TestPyramidPartKilledRerunFinish(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "src.ome.zarr")
	if err := omezarr.Write(context.Background(), store, newVolSource(), omezarr.Options{}); err != nil {
		t.Fatal(err)
	}
	var hold atomic.Bool
	hold.Store(true)
	arrived := make(chan struct{}, 1)
	files0 := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rest, ok := strings.CutPrefix(r.URL.Path, "/src.ome.zarr/0/"); ok && hold.Load() {
			z, _, _ := strings.Cut(rest, "/")
			if n, err := strconv.Atoi(z); err == nil && n >= 4 {
				select {
				case arrived <- struct{}{}:
				default:
				}
				<-r.Context().Done()
				return
			}
		}
		files0.ServeHTTP(w, r)
	}))
	defer srv.Close()
	src := srv.URL + "/src.ome.zarr"
	cache := filepath.Join(dir, "cache")
	t.Setenv("XDG_CACHE_HOME", cache)
	out := filepath.Join(dir, "parts", "img.ome.zarr")

	cmd := exec.Command(os.Args[0], "-test.run=^TestPyramidPartKilledRerunFinish$")
	cmd.Env = childEnviron(testtool.CLIEnv+"="+strings.Join([]string{"pyramid", src, out, "--part", "1/2"}, "\n"),
		"XDG_CACHE_HOME="+cache)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-arrived:
	case err := <-done:
		t.Fatalf("part 1/2 ended before it was killed: %v: %s", err, stderr.String())
	}
	cmd.Process.Kill()
	<-done
	hold.Store(false)

	// Off a terminal, a part says when each level is done and how fast.
	code, _, errs := vv("pyramid", src, out, "--part", "2/2")
	if code != 0 || !strings.Contains(errs, "vastview: part 2/2: level 0 done: 8 chunks, 1.3 MB in ") ||
		!strings.Contains(errs, "vastview: part 2/2: level 1 done: ") || strings.Count(errs, " MB/s\n") != 2 ||
		!strings.HasSuffix(errs, "vastview: part 2/2: read 1.3 MB of the source\n") {
		t.Errorf("part 2/2: exit %d, stderr %q", code, errs)
	}
	code, _, errs = vv("pyramid", src, out, "--finish")
	if code != 1 || !strings.Contains(errs, "part 1/2 not finished") || strings.Count(errs, "\n") != 1 {
		t.Errorf("--finish without part 1/2: exit %d, stderr %q", code, errs)
	}
	mustRun(t, "pyramid", src, out, "--part", "1/2")
	if code, _, errs := vv("pyramid", src, out, "--finish"); code != 0 || errs != "" {
		t.Fatalf("--finish: exit %d, stderr %q", code, errs)
	}
	plain := filepath.Join(dir, "plain", "img.ome.zarr")
	os.MkdirAll(filepath.Dir(plain), 0o755)
	mustRun(t, "pyramid", src, plain)
	want, got := files(t, plain), files(t, out)
	if len(want) < 3 {
		t.Fatalf("the plain run wrote %d files", len(want))
	}
	for k, v := range want {
		if !bytes.Equal(got[k], v) {
			t.Errorf("%s differs from one plain run's", k)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s is not in one plain run's output", k)
		}
	}
}

// TestPyramidPartArguments checks the usage errors of --part and --finish,
// and that a URL other than an object store's as OUT is refused in one
// line.
func TestPyramidPartArguments(t *testing.T) {
	for _, args := range [][]string{
		{"--part", "0/2"}, {"--part", "3/2"}, {"--part", "x"}, {"--part", "1/2", "--finish"},
	} {
		code, _, errs := vv(append([]string{"pyramid", "a.tif", "b.ome.zarr"}, args...)...)
		if code != 1 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "--") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
	// Other URLs are refused, not taken for a folder named "http:".
	dir := t.TempDir()
	t.Chdir(dir)
	for _, out := range []string{"http://host/img.ome.zarr", "https://host/img.ome.zarr"} {
		code, _, errs := vv("pyramid", "a.tif", out, "--part", "1/2")
		if code != 1 || !strings.HasPrefix(errs, "vastview: "+out+": writing to a URL is not supported") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q", out, code, errs)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d entries written into the working folder", len(ents))
	}
}
