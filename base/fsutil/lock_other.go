//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package fsutil

import (
	"errors"
	"os"
)

// canLock says whether locks exclude each other: not here.
const canLock = false

// lockDir cannot lock here: every lock is granted, and nothing is held
// open (an open folder could not be renamed on some systems).
func lockDir(dir string, _ LockKind, _ bool) (*Lock, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, &os.PathError{Op: "lock", Path: dir, Err: errors.New("not a folder")}
	}
	return &Lock{}, nil
}
