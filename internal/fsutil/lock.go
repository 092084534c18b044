package fsutil

import (
	"errors"
	"fmt"
	"os"
)

// LockKind is how a folder is locked: Shared locks coexist, an Exclusive
// one excludes every other.
type LockKind int

// The kinds of lock.
const (
	Shared LockKind = iota
	Exclusive
)

// ErrLocked is returned by TryLockDir when another holder has the folder
// locked in a way that conflicts.
var ErrLocked = errors.New("in use by another process")

// Lock is a lock on a folder. It lasts until Unlock, or until the process
// ends, however it ends; it is advisory: it binds only those who take it.
// Locks taken through different LockDir calls conflict even within one
// process. The lock follows the folder when it is renamed. A Lock is not
// safe for concurrent use.
type Lock struct{ f *os.File }

// LockDir locks the folder dir, waiting while a conflicting lock is held.
// If dir is renamed or removed meanwhile, it locks the folder dir names
// then, or fails with an error satisfying fs.ErrNotExist.
func LockDir(dir string, kind LockKind) (*Lock, error) { return lockDir(dir, kind, true) }

// TryLockDir is LockDir without the wait: it fails with ErrLocked (wrapped
// with dir) at once if a conflicting lock is held.
func TryLockDir(dir string, kind LockKind) (*Lock, error) { return lockDir(dir, kind, false) }

func lockDir(dir string, kind LockKind, wait bool) (*Lock, error) {
	for range 100 {
		f, err := os.Open(dir)
		if err != nil {
			return nil, err
		}
		if err := flock(f, kind, wait); err != nil {
			f.Close()
			if errors.Is(err, ErrLocked) {
				return nil, fmt.Errorf("%s: %w", dir, ErrLocked)
			}
			return nil, &os.PathError{Op: "lock", Path: dir, Err: err}
		}
		// The folder locked must still be the one dir names.
		held, err1 := f.Stat()
		now, err2 := os.Stat(dir)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return &Lock{f}, nil
		}
		f.Close()
		if err2 != nil {
			return nil, err2
		}
	}
	return nil, fmt.Errorf("%s: replaced again and again while being locked", dir)
}

// Unlock releases the lock.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
