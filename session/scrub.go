package session

import "time"

// Holding a navigation key scrubs: after scrubDelay the session repeats
// the key itself, one step for each frame shown with data everywhere and
// at most one per display refresh, instead of at the keyboard's repeat
// rate. The keyboard's repeats are then ignored, unless no frame has come
// for scrubStall (a plane that cannot be read), when they step as usual.
const (
	scrubDelay = 300 * time.Millisecond
	scrubEvery = time.Second / 60
	scrubStall = 250 * time.Millisecond
)

// scrubber is the held-key part of the session: which key is held,
// whether the session repeats it, when it last stepped and the timer of
// the next step. It reads neither the view nor the data: the session
// hands it the clock's time and steps the view itself, under the
// session's lock (it has none of its own).
type scrubber struct {
	key    string
	active bool      // repeating
	last   time.Time // the last step
	timer  Timer     // the start, or the next step
	wait   bool      // a step is scheduled
	serial uint64    // tells this scrub's timers from an earlier one's
}

// begin ends the scrub before and holds key; it returns the new scrub's
// serial, which its timers check.
func (sc *scrubber) begin(key string) uint64 {
	sc.end()
	*sc = scrubber{key: key, serial: sc.serial}
	return sc.serial
}

// end stops the scrub and its timer.
func (sc *scrubber) end() {
	if sc.timer != nil {
		sc.timer.Stop()
	}
	*sc = scrubber{serial: sc.serial + 1}
}

// repeated reports whether key typed at now is the keyboard repeating the
// key the session repeats itself, to be ignored (unless no step came for
// scrubStall).
func (sc *scrubber) repeated(key string, now time.Time) bool {
	return sc.active && sc.key == key && now.Sub(sc.last) < scrubStall
}

func (s *Session) startScrubLocked(key string) {
	serial := s.scrub.begin(key)
	s.signalIdleLocked()
	s.scrub.timer = s.clock.AfterFunc(scrubDelay, func() {
		s.mu.Lock()
		if s.scrub.serial == serial && s.scrub.key == key && !s.scrub.active && s.data != nil {
			s.scrub.active = true
			s.scrubStepLocked()
		}
		s.mu.Unlock()
		s.flush()
	})
}

func (s *Session) endScrubLocked() {
	s.scrub.end()
	s.signalIdleLocked()
}

// repeatedLocked reports whether a typed key is the keyboard repeating the
// key being scrubbed, to be ignored.
func (s *Session) repeatedLocked(key string) bool {
	return s.scrub.repeated(key, s.clock.Now())
}

// scrubStepLocked steps once for the held key, unless that goes nowhere
// (the end of the data).
func (s *Session) scrubStepLocked() {
	nv, _, _ := s.navigateLocked(s.scrub.key, s.mods)
	if nv.T == s.view.T && nv.Z == s.view.Z && nv.Y == s.view.Y && nv.X == s.view.X &&
		(!nv.turned || nv.at == s.ortho.position(s.view)) {
		return
	}
	s.scrub.last = s.clock.Now()
	s.stepLocked(s.scrub.key, s.mods, s.scrub.last)
}

// scrubNextLocked follows a frame shown: when it is the held key's last
// step with data everywhere, the next step comes one display refresh after
// the last at the earliest.
func (s *Session) scrubNextLocked(f *Frame) {
	sc := &s.scrub
	if !sc.active || sc.wait || f.gen != s.gen || f.Info.Unfilled > 0 {
		return
	}
	wait := scrubEvery - s.clock.Now().Sub(sc.last)
	if wait <= 0 {
		s.scrubStepLocked()
		return
	}
	sc.wait = true
	serial, gen := sc.serial, s.gen
	sc.timer = s.clock.AfterFunc(wait, func() {
		s.mu.Lock()
		if s.scrub.serial == serial {
			s.scrub.wait = false
			if s.scrub.active && s.gen == gen && s.data != nil {
				s.scrubStepLocked()
			}
		}
		s.mu.Unlock()
		s.flush()
	})
}
