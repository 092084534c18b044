// Package fsutil holds the one way vastview puts a file in place: written
// under a temporary name beside it, then renamed, so that a reader never
// sees half a file and a crash leaves none. Temporary names and folder
// locks say which process owns them, so that what a killed process left
// behind can be told from what a running one is writing.
package fsutil

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// TempPrefix starts the name of every temporary file WriteAtomic makes:
// ".tmp-", the writer's ProcessTag, "-" and a random suffix.
const TempPrefix = ".tmp-"

// FileMode is the mode of the files put in place: readable by everyone,
// as a program's output with the usual umask (a temporary file is
// created private).
const FileMode = 0o644

// WriteAtomic writes the parts, in order, to a temporary file beside path
// (named as TempPrefix says) and renames it to path. On error no file is
// left behind and any file at path is unchanged. Errors are those of the
// os package, naming the file. It is safe for concurrent use, also by
// several processes writing the same path: the last rename wins.
func WriteAtomic(path string, parts ...[]byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), TempPrefix+ProcessTag()+"-")
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
	if err := f.Chmod(FileMode); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
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

// StaleTemp reports whether name, the base name of a file last modified at
// mod, is a temporary file of WriteAtomic that nobody will rename: its
// writer has ended; or, where the name cannot tell a running writer from
// an ended one whose PID was taken by another process (no writer in the
// name, as from older versions, or no start time in its tag, as on systems
// other than Linux), it is older than maxAge. A file of a writer that runs
// and is known by its start time is never stale, however old. Other names
// are never stale.
func StaleTemp(name string, mod time.Time, maxAge time.Duration) bool {
	if !strings.HasPrefix(name, TempPrefix) {
		return false
	}
	tag, ok := OwnerOf(name, TempPrefix)
	if ok && !Alive(tag) {
		return true
	}
	if ok && !strings.HasSuffix(tag, "-0") {
		return false
	}
	return time.Since(mod) > maxAge
}
