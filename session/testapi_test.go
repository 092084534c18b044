package session

// What the tests ask of a session beyond its API, and the clock they drive.

import (
	"sync"
	"time"
)

// PickLabel shows only the label under viewport position (x, y) of the
// topmost visible label layer that has one there, or every label again
// when that one is shown alone already or there is none.
func (s *Session) PickLabel(x, y float64) {
	x, y = s.toPanel(x, y)
	s.pickLabel(x, y)
}

// SetLayer changes how layer i is shown: visibility, opacity, blending,
// outline and selected label (its name, path and kind stay).
func (s *Session) SetLayer(i int, set Layer) { s.EditLayer(i, func(l *Layer) { *l = set }) }

// ChannelName is the name the file gives the view's channel, or "".
func (s *Session) ChannelName() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.data == nil {
		return ""
	}
	return channelName(s.data.Pyr.Meta(), s.view.C)
}

// Scrubbing reports whether a held key is repeating.
func (s *Session) Scrubbing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scrub.active
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
