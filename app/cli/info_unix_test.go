//go:build unix

package cli

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInfoRefusesNamedPipe runs info on a named pipe no program writes to
// and on /dev/zero: each exits 1 at once with one line naming the file and
// what it is, instead of waiting for data forever.
func TestInfoRefusesNamedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "stack.tif")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		fifo:        "vastview: " + fifo + ": a named pipe, not a regular file or folder\n",
		"/dev/zero": "vastview: /dev/zero: a character device, not a regular file or folder\n",
	} {
		type result struct {
			code   int
			stderr string
		}
		done := make(chan result, 1)
		go func() {
			code, _, stderr := vv("info", path)
			done <- result{code, stderr}
		}()
		select {
		case r := <-done:
			if r.code != 1 || r.stderr != want || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("info %s: exit %d, stderr %q, want 1 and %q", path, r.code, r.stderr, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("info %s has not returned after 10 s", path)
		}
	}
}
