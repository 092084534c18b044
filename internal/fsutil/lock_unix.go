//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package fsutil

import (
	"os"
	"syscall"
)

// canLock says that locks exclude each other here.
const canLock = true

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
