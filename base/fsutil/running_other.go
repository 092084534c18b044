//go:build !unix

package fsutil

// running cannot tell here, so every process counts as running.
func running(int) bool { return true }
