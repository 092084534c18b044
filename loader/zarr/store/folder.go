package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"vastview/loader"
)

// Folder is a Store over a local directory: the value of key "a/b/c" is the
// file root/a/b/c. It is safe for concurrent use.
type Folder struct {
	root   string
	within *os.Root // set: files are opened within it (NewConfinedFolder)
	closed atomic.Bool
}

// NewFolder returns a Folder rooted at root. It does not check that root
// exists: reads from a missing folder report ErrNotFound.
func NewFolder(root string) *Folder { return &Folder{root: root} }

// NewConfinedFolder returns a Folder rooted at root that reads no file
// outside it: a key whose file is a link (or lies below a link) leading
// out of root is an error matching loader.ErrOutside, as `serve` needs.
func NewConfinedFolder(root string) (*Folder, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, loader.StripPath(err)
	}
	return &Folder{root: root, within: r}, nil
}

// String returns the folder's path.
func (f *Folder) String() string { return f.root }

// Close makes later calls fail with ErrClosed. Folder holds no open files.
func (f *Folder) Close() error {
	if !f.closed.Swap(true) && f.within != nil {
		// Reads in flight keep their files; new ones see closed.
		f.within.Close()
	}
	return nil
}

// path checks the store's state and key and returns the key's file name.
func (f *Folder) path(ctx context.Context, key string) (string, error) {
	if f.closed.Load() {
		return "", ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if err := checkKey(key); err != nil {
		return "", err
	}
	return filepath.Join(f.root, filepath.FromSlash(key)), nil
}

// Has reports whether the key's file exists, without reading it.
func (f *Folder) Has(ctx context.Context, key string) (bool, error) {
	p, err := f.path(ctx, key)
	if err != nil {
		return false, err
	}
	st, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, fileError(key, err)
	}
	return st.Mode().IsRegular(), nil
}

// Get returns the content of the key's file. A missing file (or a directory
// in its place) gives an error matching ErrNotFound.
func (f *Folder) Get(ctx context.Context, key string) ([]byte, error) {
	p, err := f.path(ctx, key)
	if err != nil {
		return nil, err
	}
	if f.within != nil {
		file, _, err := f.openFile(key, p)
		if err != nil {
			return nil, err
		}
		defer file.Close()
		b, err := io.ReadAll(file)
		if err != nil {
			return nil, fileError(key, err)
		}
		return b, nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fileError(key, err)
	}
	return b, nil
}

// GetAtMost returns the content of the key's file and its size and
// modification time, if it holds at most max bytes; a larger file is an
// error matching ErrTooLarge, found from its size before it is read.
func (f *Folder) GetAtMost(ctx context.Context, key string, max int64) ([]byte, Info, error) {
	p, err := f.path(ctx, key)
	if err != nil {
		return nil, Info{}, err
	}
	file, st, err := f.openFile(key, p)
	if err != nil {
		return nil, Info{}, err
	}
	defer file.Close()
	if st.Size() > max {
		return nil, Info{}, fmt.Errorf("%s: %w", key, overLimit(st.Size(), max))
	}
	// Read one byte more than allowed, for a file that grew since.
	b, err := io.ReadAll(io.LimitReader(file, max+1))
	if err != nil {
		return nil, Info{}, fileError(key, err)
	}
	if int64(len(b)) > max {
		return nil, Info{}, fmt.Errorf("%s: %w", key, &cause{fmt.Sprintf("value is over the %d-byte limit", max), ErrTooLarge})
	}
	return b, Info{Size: int64(len(b)), Modified: st.ModTime()}, nil
}

// openFile opens the file p of key (within the root, if confined); a
// directory is ErrNotFound.
func (f *Folder) openFile(key, p string) (*os.File, fs.FileInfo, error) {
	var file *os.File
	var err error
	if f.within != nil {
		file, err = f.within.Open(filepath.FromSlash(key))
		if err != nil && !errors.Is(err, fs.ErrNotExist) && strings.Contains(err.Error(), "escapes") {
			// os.Root's refusal of a link that leads out of the folder.
			return nil, nil, fmt.Errorf("%s: %w", key, &loader.OutsideError{What: "a link"})
		}
	} else {
		file, err = os.Open(p)
	}
	if err != nil {
		return nil, nil, fileError(key, err)
	}
	st, err := file.Stat()
	if err != nil {
		file.Close()
		return nil, nil, fileError(key, err)
	}
	if st.IsDir() {
		file.Close()
		return nil, nil, fmt.Errorf("%s: %w", key, ErrNotFound)
	}
	return file, st, nil
}

// GetRange returns n bytes of the key's file at off, or its last -off bytes
// when off < 0. It checks the range against the file size before it
// allocates.
func (f *Folder) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	if err := badRange(off, n); err != nil {
		return nil, err
	}
	p, err := f.path(ctx, key)
	if err != nil {
		return nil, err
	}
	if off >= 0 && n == 0 {
		return []byte{}, nil
	}
	file, st, err := f.openFile(key, p)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	size := st.Size()
	if off < 0 {
		off, n = size+off, -off
	}
	if off < 0 || off > size || n > size-off {
		return nil, fmt.Errorf("%s: bytes %d-%d of %d: %w", key, off, off+n-1, size, ErrOutOfRange)
	}
	b := make([]byte, n)
	if _, err := file.ReadAt(b, off); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: file shrank while read: %w", key, ErrOutOfRange)
		}
		return nil, fileError(key, err)
	}
	return b, nil
}

// fileError names the key and maps a missing file to ErrNotFound. It drops
// the full path: callers name the store.
func fileError(key string, err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EISDIR) {
		return fmt.Errorf("%s: %w", key, ErrNotFound)
	}
	return fmt.Errorf("%s: %w", key, loader.StripPath(err))
}

// List calls fn with the name of each file or folder directly under the
// folder dir ("" for the root; else a key), and whether it is a folder, in
// no particular order. A missing dir lists nothing. Names are read in
// batches: a folder of millions of entries takes little memory. It ends at
// fn's first error, or when ctx ends.
func (f *Folder) List(ctx context.Context, dir string, fn func(name string, folder bool) error) error {
	p := f.root
	if dir != "" {
		var err error
		if p, err = f.path(ctx, dir); err != nil {
			return err
		}
	} else if f.closed.Load() {
		return ErrClosed
	}
	d, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil
	}
	if err != nil {
		return err
	}
	defer d.Close()
	for {
		ents, err := d.ReadDir(4096)
		for _, e := range ents {
			if err := fn(e.Name(), e.IsDir()); err != nil {
				return err
			}
		}
		if err == io.EOF || (err == nil && len(ents) == 0) {
			return nil
		}
		if err != nil {
			if errors.Is(err, syscall.ENOTDIR) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}
