package loader

import (
	"fmt"
	"io"
	"os"

	"github.com/edsrzf/mmap-go"
)

// File is a read-only file mapped into memory, with bounds-checked access.
// It is safe for concurrent use; Close must not race with reads.
type File struct {
	f    *os.File
	m    mmap.MMap
	data []byte
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
	}
	return file, nil
}

// Size is the file's length in bytes.
func (f *File) Size() int64 { return int64(len(f.data)) }

// Bytes returns the n bytes at off without copying, or ErrTruncated if they
// lie (even partly) outside the file. The slice must not be modified.
func (f *File) Bytes(off int64, n int64) ([]byte, error) {
	if off < 0 || n < 0 || off > int64(len(f.data)) || n > int64(len(f.data))-off {
		return nil, fmt.Errorf("%d bytes at offset %d: %w", n, off, ErrTruncated)
	}
	return f.data[off : off+n : off+n], nil
}

// ReadAt implements io.ReaderAt.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("negative offset")
	}
	if off >= int64(len(f.data)) {
		return 0, io.EOF
	}
	n := copy(p, f.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Close unmaps and closes the file.
func (f *File) Close() error {
	var err error
	if f.m != nil {
		err = f.m.Unmap()
		f.m, f.data = nil, nil
	}
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	return err
}
