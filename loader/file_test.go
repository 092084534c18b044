//go:build unix

package loader

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"vastview/loader/internal/faulttest"
)

// shrunk maps a file of 16 pages of 7s, then cuts the file to one page.
func shrunk(t *testing.T, name string) *File {
	t.Helper()
	page := os.Getpagesize()
	path := filepath.Join(t.TempDir(), name)
	b := make([]byte, 16*page)
	for i := range b {
		b[i] = 7
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := os.Truncate(path, int64(page)); err != nil {
		t.Fatal(err)
	}
	return f
}

// sum adds up the n mapped bytes at off under f's guard.
func sum(f *File, off, n int64) (s int, err error) {
	defer f.Guard().Recover(&err)
	b, err := f.Bytes(off, n)
	if err != nil {
		return 0, err
	}
	for _, v := range b {
		s += int(v)
	}
	return s, nil
}

// TestShrunkFileReadsFail reads a mapped file that was cut short after it
// was mapped: the bytes it still holds read, the others fail with
// ErrChanged (matching ErrTruncated) instead of crashing the program, and
// the goroutine's fault setting is restored.
func TestShrunkFileReadsFail(t *testing.T) {
	faulttest.Run(t, func(t *testing.T) {
		page := int64(os.Getpagesize())
		f := shrunk(t, "cut.raw")
		if !f.Shrunk() {
			t.Error("Shrunk is false for a file cut after it was mapped")
		}
		if s, err := sum(f, 0, page); err != nil || s != 7*int(page) {
			t.Fatalf("the page the file holds: sum %d, %v", s, err)
		}
		_, err := sum(f, 8*page, page)
		if !errors.Is(err, ErrChanged) || !errors.Is(err, ErrTruncated) {
			t.Fatalf("a page the file lost: %v", err)
		}
		if err.Error() != "the file changed while it was read: file is truncated" {
			t.Errorf("message %q", err)
		}
		if debug.SetPanicOnFault(false) {
			t.Error("the guard left SetPanicOnFault on")
		}
		buf := make([]byte, page)
		if n, err := f.ReadAt(buf, 3*page); !errors.Is(err, ErrTruncated) || err == io.EOF {
			t.Errorf("ReadAt of a page the file lost: %d bytes, %v", n, err)
		}
		if n, err := f.ReadAt(buf, 0); n != len(buf) || err != nil || buf[0] != 7 {
			t.Errorf("ReadAt of the page the file holds: %d bytes, %v", n, err)
		}
	})
}

// TestGuardKeepsOtherPanics checks that a guard stops only faults on its
// own mapping: a fault on another one, and any other panic, go on.
func TestGuardKeepsOtherPanics(t *testing.T) {
	faulttest.Run(t, func(t *testing.T) {
		page := int64(os.Getpagesize())
		a, b := shrunk(t, "a.raw"), shrunk(t, "b.raw")
		lost, _ := b.Bytes(8*page, 1)
		if r := panicOf(a, func() { sink = lost[0] }); r == nil {
			t.Error("a fault on another mapping was stopped")
		}
		if r := panicOf(a, func() { panic("other") }); r != "other" {
			t.Errorf("panic %v, want \"other\"", r)
		}
	})
}

// panicOf runs fn under f's guard and returns what it panicked with.
func panicOf(f *File, fn func()) (r any) {
	defer func() { r = recover() }()
	debug.SetPanicOnFault(true) // a fault outside any guard is a panic too
	defer debug.SetPanicOnFault(false)
	func() (err error) {
		defer f.Guard().Recover(&err)
		fn()
		return nil
	}()
	return nil
}
