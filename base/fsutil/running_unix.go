//go:build unix

package fsutil

import "syscall"

// running reports whether a process with this PID exists.
func running(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
