package loader

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"unsafe"

	"github.com/edsrzf/mmap-go"
)

// File is a read-only file mapped into memory, with bounds-checked access.
// It is safe for concurrent use; Close must not race with reads.
//
// Bytes in the mapping are read straight from the page cache, without a
// copy. If the file shrinks while it is mapped (another program rewrites
// it, a network share drops it), reading the pages it no longer has makes
// the operating system raise SIGBUS, which crashes a Go program. Code that
// reads mapped bytes therefore runs under a Guard, which turns such a fault
// into ErrChanged for the read it hit; ReadAt guards itself.
type File struct {
	f      *os.File
	m      mmap.MMap
	data   []byte
	lo, hi uintptr // the addresses of the mapping's pages (0 when none)
}

// OpenFile maps the file at path read-only. An empty file maps to no bytes.
func OpenFile(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, StripPath(err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("is a directory")
	}
	file := &File{f: f}
	if st.Size() > 0 {
		m, err := mmap.Map(f, mmap.RDONLY, 0)
		if err != nil {
			f.Close()
			return nil, err
		}
		file.m = m
		file.data = m
		file.lo = uintptr(unsafe.Pointer(unsafe.SliceData(file.data)))
		file.hi = (file.lo + uintptr(len(m)) + pageSize - 1) &^ (pageSize - 1)
	}
	return file, nil
}

// Size is the file's length in bytes when it was mapped.
func (f *File) Size() int64 { return int64(len(f.data)) }

// Bytes returns the n bytes at off without copying, or ErrTruncated if they
// lie (even partly) outside the file. The slice must not be modified, and
// must be read only under f's Guard: it points into the mapping, whose
// pages fault if the file shrinks.
func (f *File) Bytes(off int64, n int64) ([]byte, error) {
	if off < 0 || n < 0 || off > int64(len(f.data)) || n > int64(len(f.data))-off {
		return nil, fmt.Errorf("%d bytes at offset %d: %w", n, off, ErrTruncated)
	}
	return f.data[off : off+n : off+n], nil
}

// ReadAt implements io.ReaderAt. It copies from the mapping under a Guard:
// bytes the file no longer holds give ErrChanged.
func (f *File) ReadAt(p []byte, off int64) (n int, err error) {
	if off < 0 {
		return 0, fmt.Errorf("negative offset")
	}
	if off >= int64(len(f.data)) {
		return 0, io.EOF
	}
	defer f.Guard().Recover(&err)
	n = copy(p, f.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Shrunk reports whether the file now holds fewer bytes than when it was
// mapped. The mapping then shows zeros, not the file's bytes, from the new
// end to the end of its memory page, and faults beyond: an error parsing
// those bytes is better reported as ErrChanged. It costs a system call.
func (f *File) Shrunk() bool {
	st, err := f.f.Stat()
	return err == nil && st.Size() < int64(len(f.data))
}

// Close unmaps and closes the file.
func (f *File) Close() error {
	var err error
	if f.m != nil {
		err = f.m.Unmap()
		f.m, f.data, f.lo, f.hi = nil, nil, 0, 0
	}
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ErrChanged is the error a read under a Guard ends with when the mapped
// file no longer holds the bytes it read: the file shrank, or its storage
// failed, after it was mapped. It matches ErrTruncated.
var ErrChanged = fmt.Errorf("the file changed while it was read: %w", ErrTruncated)

// Guard is a fault guard over one mapping, set up by File.Guard for the
// calling goroutine; see there. The zero Guard guards nothing.
type Guard struct {
	lo, hi uintptr // the mapping's pages; hi == 0 for no mapping
	prev   bool    // the goroutine's debug.SetPanicOnFault setting before
}

// Guard makes a fault on f's mapping panic on the calling goroutine
// instead of crashing the program, until the Recover of the returned Guard
// runs, which turns the fault into ErrChanged. The two go together at the
// boundary where mapped bytes are consumed, in a function with a named
// error result:
//
//	func (s *source) read(...) (err error) {
//		defer s.file.Guard().Recover(&err)
//		... read from s.file.Bytes(...) ...
//	}
//
// Slices from Bytes must not outlive that function (copy out what is kept).
// It costs two flag writes and a deferred call per guarded read (tens of
// nanoseconds; see BenchmarkGuard). A nil, empty or closed File gives the
// zero Guard.
func (f *File) Guard() Guard {
	if f == nil || f.hi == 0 {
		return Guard{}
	}
	return Guard{lo: f.lo, hi: f.hi, prev: debug.SetPanicOnFault(true)}
}

var pageSize = uintptr(os.Getpagesize())

// Recover ends the guard g; it must be deferred directly by the function
// that called File.Guard. It restores the goroutine's previous
// debug.SetPanicOnFault setting and, if a fault on the guarded mapping is
// under way, stops it and sets *err to ErrChanged. Other panics go on.
func (g Guard) Recover(err *error) {
	if g.hi == 0 {
		return
	}
	debug.SetPanicOnFault(g.prev)
	r := recover()
	if r == nil {
		return
	}
	if a, ok := r.(interface{ Addr() uintptr }); ok && a.Addr() >= g.lo && a.Addr() < g.hi {
		*err = ErrChanged
		return
	}
	panic(r)
}
