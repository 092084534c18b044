// Package fsutil holds the one way vastview puts a file in place: written
// under a temporary name beside it, then renamed, so that a reader never
// sees half a file and a crash leaves none.
package fsutil

import (
	"os"
	"path/filepath"
)

// WriteAtomic writes the parts, in order, to a temporary file beside path
// (".tmp-" and a random suffix) and renames it to path. On error no file
// is left behind and any file at path is unchanged. Errors are those of
// the os package, naming the file.
func WriteAtomic(path string, parts ...[]byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-")
	if err != nil {
		return err
	}
	for _, data := range parts {
		if _, err := f.Write(data); err != nil {
			f.Close()
			os.Remove(f.Name())
			return err
		}
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
