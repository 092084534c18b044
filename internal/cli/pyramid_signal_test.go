package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"vastview/levels/omezarr"
	"vastview/loader"
)

// planeSource is one 64x64 uint16 plane in one chunk: a pyramid of it has
// no computed level, so that an export of it reads the source only while
// writing.
type planeSource struct{ meta *loader.Meta }

func (s planeSource) Meta() *loader.Meta { return s.meta }
func (s planeSource) Close() error       { return nil }
func (s planeSource) ReadChunk(_ context.Context, _ int, _ []int, dst []byte) error {
	for i := range dst {
		dst[i] = byte(i*7 + 1)
	}
	return nil
}

// pyramidChildEnv makes the test binary run `vastview pyramid SRC OUT`,
// SRC and OUT given in the variable, one per line.
const pyramidChildEnv = "VASTVIEW_CLI_PYRAMID"

// TestPyramidStoppedBySignalLeavesNothing stops `vastview pyramid`, run
// in a child process, with SIGTERM, SIGHUP and SIGINT while it writes: it
// exits with one line on stderr and leaves nothing beside its output. The
// source is an OME-Zarr served over HTTP whose chunk requests are held
// until the child goes away.
func TestPyramidStoppedBySignalLeavesNothing(t *testing.T) {
	if v := os.Getenv(pyramidChildEnv); v != "" {
		src, out, _ := strings.Cut(v, "\n")
		os.Exit(Run([]string{"pyramid", src, out}, os.Stdout, os.Stderr))
	}
	dir := t.TempDir()
	store := filepath.Join(dir, "src.ome.zarr")
	meta := loader.NewMeta("plane", "YX", []int{64, 64}, loader.Uint16, []int{64, 64}, nil, nil)
	if err := omezarr.Write(context.Background(), store, planeSource{meta}, omezarr.Options{}); err != nil {
		t.Fatal(err)
	}
	arrived := make(chan struct{}, 1)
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/src.ome.zarr/0/") && !strings.HasPrefix(filepath.Base(r.URL.Path), ".") {
			select {
			case arrived <- struct{}{}:
			default:
			}
			<-r.Context().Done()
			return
		}
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()

	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			outDir := t.TempDir()
			out := filepath.Join(outDir, "out.ome.zarr")
			cmd := exec.Command(os.Args[0], "-test.run=^TestPyramidStoppedBySignalLeavesNothing$")
			cmd.Env = append(os.Environ(), pyramidChildEnv+"="+srv.URL+"/src.ome.zarr\n"+out,
				"XDG_CACHE_HOME="+filepath.Join(outDir, "cache"))
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case <-arrived:
			case err := <-exited:
				t.Fatalf("the child ended before reading a chunk: %v: %s", err, stderr.String())
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("no chunk was asked for: %s", stderr.String())
			}
			if p, _ := filepath.Glob(out + ".partial-*"); len(p) != 1 {
				t.Fatalf("writing, but temporary folders %v", p)
			}
			cmd.Process.Signal(sig)
			var err error
			select {
			case err = <-exited:
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("the child did not end after %v", sig)
			}
			if st := cmd.ProcessState; !st.Exited() || st.ExitCode() != 1 {
				t.Errorf("the child ended with %v, want exit status 1", err)
			}
			if msg := stderr.String(); strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "signal received") {
				t.Errorf("stderr %q: want one line naming the signal", msg)
			}
			ents, _ := os.ReadDir(outDir)
			for _, e := range ents {
				if e.Name() != "cache" {
					t.Errorf("%s left behind", e.Name())
				}
			}
		})
	}
}
