package fsutil

import (
	"errors"
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
// process. The lock follows the folder when it is renamed. Where the
// system has no such locks (Windows), every lock is granted. A Lock is not
// safe for concurrent use.
type Lock struct{ f *os.File }

// LockDir locks the folder dir, waiting while a conflicting lock is held.
// If dir is renamed or removed meanwhile, it locks the folder dir names
// then, or fails with an error satisfying fs.ErrNotExist. Anything but a
// folder at dir is an error.
func LockDir(dir string, kind LockKind) (*Lock, error) { return lockDir(dir, kind, true) }

// TryLockDir is LockDir without the wait: it fails with ErrLocked (wrapped
// with dir) at once if a conflicting lock is held.
func TryLockDir(dir string, kind LockKind) (*Lock, error) { return lockDir(dir, kind, false) }

// Unlock releases the lock.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
