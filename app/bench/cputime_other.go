//go:build !linux

package bench

import "time"

// threadClock returns a clock of elapsed time where the thread's CPU time
// is not known, and a function that does nothing.
func threadClock() (func() time.Duration, func()) {
	t0 := time.Now()
	return func() time.Duration { return time.Since(t0) }, func() {}
}
