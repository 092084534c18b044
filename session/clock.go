package session

import "time"

// Clock is the time the session's timers run on: held-key repeats,
// playback, the settling of the histogram, the spacing of refinement
// redraws, how long a failure stays in the status. The real clock is the
// default; tests drive one that moves when told to.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has passed.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call.
type Timer interface {
	// Stop prevents the call if it has not happened yet, and reports
	// whether it did so.
	Stop() bool
}

// realClock is the wall clock.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) Timer {
	return time.AfterFunc(d, f)
}
