package session

import (
	"sync"
	"time"
)

// Clock is the time the session's timers run on: held-key repeats,
// playback, the settling of the histogram, the spacing of refinement
// redraws, how long a failure stays in the status. The real clock is the
// default; tests drive a ManualClock.
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

// ManualClock is a Clock that moves only when told to: Advance runs the
// calls that fall due, in order. It is safe for concurrent use.
type ManualClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*manualTimer
}

// NewManualClock starts a clock at a fixed instant.
func NewManualClock() *ManualClock {
	return &ManualClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

type manualTimer struct {
	c    *ManualClock
	at   time.Time
	f    func()
	done bool
}

// Now is the clock's time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc schedules f for d from now.
func (c *ManualClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &manualTimer{c: c, at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return t
}

// Stop implements Timer.
func (t *manualTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.done
	t.done = true
	return was
}

// Advance moves the clock on by d, running each call that falls due on
// the calling goroutine, at its own time, earliest first; calls scheduled
// by those calls run too if they fall within d.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		var next *manualTimer
		for _, t := range c.timers {
			if !t.done && !t.at.After(end) && (next == nil || t.at.Before(next.at)) {
				next = t
			}
		}
		if next == nil {
			c.now = end
			c.timers = pending(c.timers)
			c.mu.Unlock()
			return
		}
		next.done = true
		if next.at.After(c.now) {
			c.now = next.at
		}
		c.mu.Unlock()
		next.f()
	}
}

// Pending is the number of calls scheduled and not yet run or stopped.
func (c *ManualClock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(pending(c.timers))
}

func pending(ts []*manualTimer) []*manualTimer {
	out := ts[:0]
	for _, t := range ts {
		if !t.done {
			out = append(out, t)
		}
	}
	return out
}
