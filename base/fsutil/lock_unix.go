//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package fsutil

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// canLock says that locks exclude each other here.
const canLock = true

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
			if !held.IsDir() {
				f.Close()
				return nil, &os.PathError{Op: "lock", Path: dir, Err: syscall.ENOTDIR}
			}
			return &Lock{f}, nil
		}
		f.Close()
		if err2 != nil {
			return nil, err2
		}
	}
	return nil, fmt.Errorf("%s: replaced again and again while being locked", dir)
}

// flock takes the lock on the open folder f.
func flock(f *os.File, kind LockKind, wait bool) error {
	how := syscall.LOCK_SH
	if kind == Exclusive {
		how = syscall.LOCK_EX
	}
	if !wait {
		how |= syscall.LOCK_NB
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		switch err {
		case nil:
			return nil
		case syscall.EINTR:
			continue
		case syscall.EWOULDBLOCK:
			return ErrLocked
		}
		return err
	}
}
