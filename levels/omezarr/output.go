package omezarr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"vastview/loader"
	"vastview/loader/zarr/store"
)

// An output is where an image's values are stored: a folder, or a prefix
// of an object store. Keys are slash-separated paths below it. Methods are
// safe for concurrent use.
type output interface {
	// put stores data as key's value.
	put(ctx context.Context, key string, data []byte) error
	// putAtomic stores data as key's value so that a reader sees the old
	// value or the new one whole (a folder writes a temporary file and
	// renames it; an object store's put is atomic).
	putAtomic(ctx context.Context, key string, data []byte) error
	// get returns key's value; an error matching fs.ErrNotExist when
	// there is none.
	get(ctx context.Context, key string) ([]byte, error)
	// inner returns the inner chunk slot of the shard key holding count
	// chunks: nil when the slot or the shard is not stored.
	inner(ctx context.Context, key string, slot, count int) ([]byte, error)
	// has reports whether key has a value.
	has(ctx context.Context, key string) (bool, error)
	// remove removes key's value; a missing one is no error.
	remove(ctx context.Context, key string) error
	// list returns the names of the values directly below dir.
	list(ctx context.Context, dir string) ([]string, error)
	// removeDir removes every value below dir.
	removeDir(ctx context.Context, dir string) error
}

// IsObjectStore reports whether out names an object store prefix
// (s3://, s3+http(s)://, gs://) rather than a folder.
func IsObjectStore(out string) bool { return store.IsObjectURL(out) }

// folderOutput is a folder.
type folderOutput struct{ dir string }

func (f folderOutput) path(key string) string { return filepath.Join(f.dir, filepath.FromSlash(key)) }

func (f folderOutput) put(_ context.Context, key string, data []byte) error {
	p := f.path(key)
	err := os.MkdirAll(filepath.Dir(p), 0o755)
	if err == nil {
		err = os.WriteFile(p, data, 0o644)
	}
	if err != nil {
		return fmt.Errorf("cannot write the output: %v", loader.StripPath(err))
	}
	return nil
}

func (f folderOutput) putAtomic(_ context.Context, key string, data []byte) error {
	p := f.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("cannot write the output: %v", loader.StripPath(err))
	}
	return writeAtomic(p, data)
}

func (f folderOutput) get(_ context.Context, key string) ([]byte, error) {
	return os.ReadFile(f.path(key))
}

func (f folderOutput) inner(_ context.Context, key string, slot, count int) ([]byte, error) {
	fh, err := os.Open(f.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	return readInner(fh, st.Size(), slot, count)
}

func (f folderOutput) has(_ context.Context, key string) (bool, error) {
	_, err := os.Stat(f.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

func (f folderOutput) remove(_ context.Context, key string) error {
	if err := os.Remove(f.path(key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cannot write the output: %v", loader.StripPath(err))
	}
	return nil
}

func (f folderOutput) list(_ context.Context, dir string) ([]string, error) {
	ents, err := os.ReadDir(f.path(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the output: %v", loader.StripPath(err))
	}
	var names []string
	for _, e := range ents {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

func (f folderOutput) removeDir(_ context.Context, dir string) error {
	if err := os.RemoveAll(f.path(dir)); err != nil {
		return fmt.Errorf("cannot remove %s: %v", dir, loader.StripPath(err))
	}
	return nil
}

// objectOutput is a prefix of an object store, written with the store
// client the readers use (its credential chain, signing, retries with
// backoff, bounded requests in flight); values above
// store.DefaultPartSize go up in multipart uploads.
type objectOutput struct{ st *store.HTTP }

// objectPartSize is the size above which values go up in multipart
// uploads, and their parts' size.
var objectPartSize int64 = store.DefaultPartSize

// openObjects returns the object store output out (s3://..., gs://...).
func openObjects(out string) (*objectOutput, error) {
	opt := store.HTTPOptions{Write: true, Deadline: store.DefaultDeadline(), PartSize: objectPartSize}
	var st *store.HTTP
	var err error
	if strings.HasPrefix(strings.ToLower(out), "gs://") {
		st, err = store.NewGCS(out, opt)
	} else {
		st, err = store.NewS3(out, opt)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", loader.Redact(out), err)
	}
	return &objectOutput{st}, nil
}

func (o *objectOutput) put(ctx context.Context, key string, data []byte) error {
	return o.st.Put(ctx, key, data)
}

func (o *objectOutput) putAtomic(ctx context.Context, key string, data []byte) error {
	return o.st.Put(ctx, key, data)
}

func (o *objectOutput) get(ctx context.Context, key string) ([]byte, error) {
	b, err := o.st.Get(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fs.ErrNotExist
	}
	return b, err
}

func (o *objectOutput) inner(ctx context.Context, key string, slot, count int) ([]byte, error) {
	b, err := o.get(ctx, key)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return readInner(bytes.NewReader(b), int64(len(b)), slot, count)
}

func (o *objectOutput) has(ctx context.Context, key string) (bool, error) {
	_, err := o.st.GetRange(ctx, key, 0, 1)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func (o *objectOutput) remove(ctx context.Context, key string) error { return o.st.Delete(ctx, key) }

func (o *objectOutput) list(ctx context.Context, dir string) ([]string, error) {
	var names []string
	err := o.st.ListObjects(ctx, dir, func(name string, folder bool) error {
		if !folder {
			names = append(names, name)
		}
		return nil
	})
	return names, err
}

func (o *objectOutput) removeDir(ctx context.Context, dir string) error {
	names, err := o.list(ctx, dir)
	for _, n := range names {
		if err == nil {
			err = o.remove(ctx, dir+"/"+n)
		}
	}
	return err
}

// empty reports whether nothing is stored below the output's prefix.
func (o *objectOutput) empty(ctx context.Context) (bool, error) {
	found := false
	err := o.st.ListObjects(ctx, "", func(string, bool) error { found = true; return io.EOF })
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return !found, err
}
