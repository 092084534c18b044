//go:build unix

package loader

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestOpenRefusesSpecialFiles opens a named pipe (no program writes to
// it: reading would wait forever), a device and a socket: each is refused
// at once, in one line saying what it is, and a folder is not refused as
// such.
func TestOpenRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "stack.tif")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock.nrrd")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for path, want := range map[string]string{
		fifo:        "a named pipe, not a regular file or folder",
		"/dev/zero": "a character device, not a regular file or folder",
		sock:        "a socket, not a regular file or folder",
	} {
		done := make(chan error, 1)
		go func() {
			_, err := Open(context.Background(), path)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) || err.Error() != want {
				t.Errorf("%s: error %q, want %q", path, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: Open has not returned after 10 s", path)
		}
	}
	if _, err := Open(context.Background(), dir); errors.Is(err, ErrNotRegular) {
		t.Errorf("a folder: %v", err)
	}
}
