//go:build !linux

package fsutil

import "errors"

// startTime is unknown here: tags hold 0 and Alive asks the system
// whether the PID runs.
func startTime(int) (string, error) { return "", errors.ErrUnsupported }
