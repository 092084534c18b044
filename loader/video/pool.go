package video

import (
	"context"
	"time"
)

// The pool of running decoders (cursors). Every cursor is in s.live; an
// idle one is also in s.idle, a busy one is used by one read, which moves
// it from pos to target. Reads that wait for a busy cursor count in
// s.waiting; a busy read that passes a frame someone waits for keeps it in
// the frame cache for them. s.changed is closed (and replaced) whenever a
// cursor is released or a waited-for frame is kept. All of this is
// guarded by s.mu.

// acquire returns a cursor that will reach frame t, or nil with dst
// filled when another read delivered t meanwhile. The cursor is an idle
// one at or a little before t; or, once it is released, one that another
// read of a frame a little before t uses or waits for (concurrent reads
// of the frames ahead, as a prefetch makes them, take turns on one ffmpeg,
// the lowest frame first; a read passing t keeps it for this one); or a
// new ffmpeg started at a keyframe before t. The frames from..t-1 that the
// cursor passes are to be kept for a backward walk (from == t: none).
func (s *Source) acquire(ctx context.Context, t int, dst []byte) (c *cursor, from int, err error) {
	s.mu.Lock()
	waiting := false
	served := false
	for {
		if s.closed {
			err = errClosed
			break
		}
		if served = s.back.getLocked(t, dst); served {
			break
		}
		var wait bool
		if c, wait = s.pick(t, s.startKeyLocked(t)); c != nil || !wait {
			break
		}
		announce := !waiting
		if !waiting {
			s.waiting[t]++
			waiting = true
		}
		changed := s.changed
		s.mu.Unlock()
		if announce {
			s.arrive(t)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			err = ctx.Err()
		}
		s.mu.Lock()
		if err != nil {
			break
		}
	}
	if waiting {
		if s.waiting[t]--; s.waiting[t] == 0 {
			delete(s.waiting, t)
		}
		s.broadcast() // t no longer claims a cursor
	}
	if c != nil || err != nil || served {
		if err == nil {
			s.last = t
		}
		s.mu.Unlock()
		if !waiting && err == nil {
			s.arrive(t)
		}
		return c, t, err
	}
	// A step back by no more than the frame cache holds: keep the frames
	// before t for the next steps.
	keep := max(1, s.back.budget/s.frameBytes)
	backward := s.last >= 0 && t < s.last && s.last-t <= keep
	s.last = t
	s.mu.Unlock()
	if backward {
		from = max(0, t-keep+1)
	} else {
		from = t
	}
	c, err = s.start(t, from)
	if !waiting && err == nil {
		s.arrive(t)
	}
	return c, from, err
}

// arrive calls options.arrived, if set, for a read of frame t.
func (s *Source) arrive(t int) {
	if s.arrived != nil {
		s.arrived(t)
	}
}

// start starts a cursor whose first frame out is from, for a read of t.
func (s *Source) start(t, from int) (*cursor, error) {
	s.mu.Lock()
	k := s.startKeyLocked(from)
	s.mu.Unlock()
	first := s.ix.firstSame(from)
	args, seek := s.decodeArgs(k, first)
	c, err := s.startCursor(args, first, k, seek)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	closed := s.closed
	if !closed {
		s.live[c] = true
		c.busy, c.pos, c.target = true, first, t
	}
	s.mu.Unlock()
	if closed {
		c.stop()
		return nil, errClosed
	}
	return c, nil
}

// pick chooses a cursor to read frame t (whose keyframe is k) from: the
// idle one closest before t, if reading on from it is expected to cost no
// more than starting anew (see costModel) and no read waiting for an
// earlier frame has a claim on it. It marks the cursor busy. Without one,
// wait tells whether a busy or claimed cursor is worth waiting for.
func (s *Source) pick(t, k int) (c *cursor, wait bool) {
	best := -1
	for i, c := range s.idle {
		switch {
		case c.next > t || !s.cost.readOn(c.next, t, k):
		case s.claimed(c.next, t):
			wait = true
		case best < 0 || c.next > s.idle[best].next:
			best = i
		}
	}
	if best >= 0 {
		c = s.idle[best]
		s.idle = append(s.idle[:best], s.idle[best+1:]...)
		c.busy, c.pos, c.target = true, c.next, t
		return c, false
	}
	for c := range s.live {
		passes := c.pos <= t && t < c.target
		after := c.target < t && s.cost.readOn(c.target+1, t, k)
		if c.busy && (passes || after) {
			wait = true
		}
	}
	return nil, wait
}

// claimed reports whether a read waits for a frame in next..t-1 that it
// would read on to from a cursor at next.
func (s *Source) claimed(next, t int) bool {
	for w := range s.waiting {
		if w >= next && w < t && s.cost.readOn(next, w, s.startKeyLocked(w)) {
			return true
		}
	}
	return false
}

// wanted reports whether a read waits for frame t.
func (s *Source) wanted(t int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waiting[t] > 0
}

// kept stores frame t, read by a busy cursor, for the reads waiting for
// it (or a backward walk) and wakes them.
func (s *Source) kept(t int, b []byte) {
	s.mu.Lock()
	s.back.putLocked(t, b)
	s.broadcast()
	s.mu.Unlock()
}

// broadcast wakes the reads waiting for a cursor.
func (s *Source) broadcast() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// release returns c to the idle pool after a read, or stops it when it
// failed, was cancelled, has nothing more to give, or the source is
// closed. The least recently used idle cursor beyond maxIdle is stopped.
func (s *Source) release(c *cursor, ok bool) {
	c.used = s.now()
	var drop []*cursor
	s.mu.Lock()
	c.busy = false
	s.broadcast()
	if !ok || s.closed || c.next >= s.ix.frames() {
		delete(s.live, c)
		drop = append(drop, c)
	} else {
		s.idle = append(s.idle, c)
		if len(s.idle) > s.maxIdle {
			drop = append(drop, s.idle[0])
			delete(s.live, s.idle[0])
			s.idle = s.idle[1:]
		}
		if s.reaper == nil {
			s.reaper = time.AfterFunc(idleTimeout, s.reap)
		}
	}
	s.mu.Unlock()
	for _, d := range drop {
		d.stop()
	}
}

// reap stops cursors idle for longer than idleTimeout.
func (s *Source) reap() {
	var drop []*cursor
	s.mu.Lock()
	s.reaper = nil
	keep := s.idle[:0]
	for _, c := range s.idle {
		if s.now().Sub(c.used) >= idleTimeout {
			drop = append(drop, c)
			delete(s.live, c)
		} else {
			keep = append(keep, c)
		}
	}
	clear(s.idle[len(keep):])
	s.idle = keep
	if len(s.idle) > 0 && !s.closed {
		s.reaper = time.AfterFunc(idleTimeout, s.reap)
	}
	s.mu.Unlock()
	for _, c := range drop {
		c.stop()
	}
}
