package cli

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

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

// heldStore is an OME-Zarr image of one planeSource served over HTTP
// whose chunk requests, while hold is set, are held until the client goes
// away; arrived gets a value (if it has room) when one comes.
type heldStore struct {
	url     string
	hold    atomic.Bool
	arrived chan struct{}
}

func newHeldStore(t *testing.T) *heldStore {
	t.Helper()
	dir := t.TempDir()
	store := filepath.Join(dir, "src.ome.zarr")
	meta := loader.NewMeta("plane", "YX", []int{64, 64}, loader.Uint16, []int{64, 64}, nil, nil)
	if err := omezarr.Write(context.Background(), store, planeSource{meta}, omezarr.Options{}); err != nil {
		t.Fatal(err)
	}
	h := &heldStore{arrived: make(chan struct{}, 1)}
	h.hold.Store(true)
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.hold.Load() && strings.HasPrefix(r.URL.Path, "/src.ome.zarr/0/") && !strings.HasPrefix(filepath.Base(r.URL.Path), ".") {
			select {
			case h.arrived <- struct{}{}:
			default:
			}
			<-r.Context().Done()
			return
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	h.url = srv.URL + "/src.ome.zarr"
	return h
}

// childEnviron is the environment of a child vastview: the test's own,
// with a locale that Fyne (linked into every command) can parse. Under
// LANG=C.UTF-8, as containers often have, Fyne logs three lines on stderr
// as the program starts, which would spoil the count of lines there.
func childEnviron(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG":
			continue
		}
		env = append(env, kv)
	}
	return append(append(env, "LANG=en_US.UTF-8"), extra...)
}

// pyramidChild is `vastview pyramid` running in a child process.
type pyramidChild struct {
	cmd    *exec.Cmd
	stderr strings.Builder
	done   chan struct{} // closed once it has ended, with err set
	err    error
}

// wait returns once the child has ended, with what exec.Cmd.Wait said.
func (c *pyramidChild) wait() error {
	<-c.done
	return c.err
}

// startPyramid runs `vastview pyramid SRC OUT` in a child process (the
// test binary running test, which must call runPyramidChild first) with
// its disk cache under cache, and returns once the child asks h for a
// chunk.
func startPyramid(t *testing.T, test string, h *heldStore, out, cache string) *pyramidChild {
	t.Helper()
	c := &pyramidChild{done: make(chan struct{})}
	c.cmd = exec.Command(os.Args[0], "-test.run=^"+test+"$")
	c.cmd.Env = childEnviron(pyramidChildEnv+"="+h.url+"\n"+out, "XDG_CACHE_HOME="+cache)
	c.cmd.Stderr = &c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		c.err = c.cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() { c.cmd.Process.Kill(); c.wait() })
	select {
	case <-h.arrived:
	case <-c.done:
		t.Fatalf("the child ended before reading a chunk: %v: %s", c.err, c.stderr.String())
	}
	return c
}

// runPyramidChild is the child process of startPyramid, if this is one.
func runPyramidChild() {
	if v := os.Getenv(pyramidChildEnv); v != "" {
		src, out, _ := strings.Cut(v, "\n")
		os.Exit(Run([]string{"pyramid", src, out}, os.Stdout, os.Stderr))
	}
}

// TestPyramidStoppedBySignalLeavesNothing stops `vastview pyramid`, run
// in a child process, with SIGTERM, SIGHUP and SIGINT while it writes: it
// exits with status 1 and one line on stderr naming the signal, as for
// Ctrl+C, and leaves nothing beside its output. The source is an OME-Zarr
// served over HTTP whose chunk requests are held until the child goes
// away.
func TestPyramidStoppedBySignalLeavesNothing(t *testing.T) {
	runPyramidChild()
	h := newHeldStore(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			outDir := t.TempDir()
			out := filepath.Join(outDir, "out.ome.zarr")
			c := startPyramid(t, "TestPyramidStoppedBySignalLeavesNothing", h, out, filepath.Join(outDir, "cache"))
			if p, _ := filepath.Glob(out + ".partial-*"); len(p) != 1 {
				t.Fatalf("writing, but temporary folders %v", p)
			}
			c.cmd.Process.Signal(sig)
			err := c.wait()
			if st := c.cmd.ProcessState; !st.Exited() || st.ExitCode() != 1 {
				t.Errorf("the child ended with %v, want exit status 1", err)
			}
			if msg := c.stderr.String(); strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "signal received") {
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

// TestPyramidKilledIsTidiedByTheNextRun kills `vastview pyramid` (SIGKILL,
// which it cannot catch) while it writes: its unfinished output stays
// beside out until the same command runs again, which removes it, says so
// in one line and writes out; a run after that says nothing.
func TestPyramidKilledIsTidiedByTheNextRun(t *testing.T) {
	runPyramidChild()
	h := newHeldStore(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.ome.zarr")
	cache := filepath.Join(dir, "cache")
	t.Setenv("XDG_CACHE_HOME", cache)
	c := startPyramid(t, "TestPyramidKilledIsTidiedByTheNextRun", h, out, cache)
	c.cmd.Process.Kill()
	c.wait()
	partial, _ := filepath.Glob(out + ".partial-*")
	if len(partial) != 1 {
		t.Fatalf("after SIGKILL, temporary folders %v, want the killed run's", partial)
	}

	h.hold.Store(false)
	code, _, errs := vv("pyramid", h.url, out)
	want := "vastview: removed " + filepath.Base(partial[0]) + ", left by an earlier export that was killed\n"
	if code != 0 || errs != want {
		t.Errorf("the next run: exit %d, stderr %q, want %q", code, errs, want)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != "out.ome.zarr" && e.Name() != "cache" {
			t.Errorf("%s left behind", e.Name())
		}
	}
	want0 := make([]byte, 64*64*2)
	planeSource{}.ReadChunk(context.Background(), 0, nil, want0)
	if got := readLevels(t, out); len(got) != 1 || !bytes.Equal(got[0], want0) {
		t.Errorf("the output written after the killed run differs from the source")
	}
	if code, _, errs := vv("pyramid", "--overwrite", h.url, out); code != 0 || errs != "" {
		t.Errorf("a run with nothing to tidy: exit %d, stderr %q", code, errs)
	}
}
