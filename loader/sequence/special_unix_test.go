//go:build unix

package sequence

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"vastview/loader"
)

// TestNamedPipeFrame puts a named pipe that no program writes to among the
// frames of a folder: reading it would wait forever, so Check and reading
// that frame fail at once, naming it; opening a pipe as the first frame
// fails too.
func TestNamedPipeFrame(t *testing.T) {
	dir := mismatchFolder(t, nil)
	pipe(t, filepath.Join(dir, "frame0004.png"))
	want := "frame0004.png: not a regular file or folder"
	within(t, func() {
		src, err := Open(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		if err := src.Check(context.Background()); !errors.Is(err, loader.ErrNotRegular) || err.Error() != want {
			t.Errorf("Check: %v, want %s", err, want)
		}
		err = src.ReadChunk(context.Background(), 0, []int{3, 0, 0}, make([]byte, 48))
		if !errors.Is(err, loader.ErrNotRegular) || err.Error() != want {
			t.Errorf("reading the frame: %v, want %s", err, want)
		}
	})
	pipe(t, filepath.Join(dir, "frame0001.png"))
	within(t, func() {
		if _, err := loader.Open(context.Background(), dir); !errors.Is(err, loader.ErrNotRegular) {
			t.Errorf("a pipe as the first frame: %v", err)
		}
	})
}

// pipe replaces the file at path with a named pipe.
func pipe(t *testing.T, path string) {
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

// within runs fn, failing t if it has not returned after 10 seconds.
func within(t *testing.T, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("still waiting after 10 s")
	}
}
