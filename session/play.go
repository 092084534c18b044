package session

import (
	"fmt"
	"math"
	"time"

	"vastview/loader"
	"vastview/render"
)

// PlayRates are the playback rates offered, in planes or frames per second.
var PlayRates = []float64{5, 10, 30, 60, 120}

// defaultPlayRate is the rate before one is chosen, for playback along
// anything but a time axis with a rate of its own (see defaultRateLocked).
const defaultPlayRate = 30

// playAhead is how far ahead of the playhead playback reads, in seconds.
const playAhead = 0.5

// player is the playback part of the session: the playhead moves with
// the clock at the rate, from where it started; a frame whose data is not
// in memory in time is dropped (the next tick moves on), never shown with
// holes. It reads neither the view nor the data: the session hands it the
// clock's time and the positions along the step axis, under the
// session's lock (it has none of its own).
type player struct {
	on     bool
	rate   float64
	start  time.Time
	from   int // the position on the step axis at start
	timer  Timer
	serial uint64
	// drawn counts the positions shown since start: fewer than are due
	// when the data cannot be read or drawn at the rate.
	drawn int64
	// release ends the hold on the data (see levels.Pyramid.Hold;
	// nil while not playing).
	release func()
	// chosen is set when the rate was chosen for the data shown; until
	// then playback runs at the default rate (see defaultRateLocked).
	chosen bool
}

// begin starts playback at now from position from of n along the step
// axis (from the first when from is the last), at rate.
func (p *player) begin(now time.Time, from, n int, rate float64) {
	p.on, p.rate = true, rate
	p.serial++
	p.start, p.from, p.drawn = now, from, 0
	if p.from >= n-1 {
		p.from = 0 // at the end: start again
	}
}

// end stops playback and its timer.
func (p *player) end() {
	if p.timer != nil {
		p.timer.Stop()
	}
	if p.release != nil {
		p.release()
		p.release = nil
	}
	p.on, p.timer = false, nil
	p.serial++
}

// frames is how many frames' time has passed at now since playback
// started (a frame's time counts as passed at its instant).
func (p *player) frames(now time.Time) int64 {
	elapsed := now.Sub(p.start).Seconds()
	return int64(math.Floor(elapsed*p.rate + 1e-6))
}

// frameTime is when playback frame n (counted from the start) is due.
func (p *player) frameTime(n int64) time.Time {
	return p.start.Add(time.Duration(math.Ceil(float64(n) / p.rate * float64(time.Second))))
}

// position is where the playhead is at now along a step axis of n
// positions (wrapping at the end), and the frames' time passed.
func (p *player) position(now time.Time, n int) (pos int, frames int64) {
	frames = p.frames(now)
	return (p.from + int(frames%int64(n))) % n, frames
}

// ahead is how many chunk layers playback reads ahead, in the background.
func (p *player) ahead() int { return max(3, int(math.Ceil(p.rate*playAhead))) }

// shown counts a frame shown while playing that moved along the step
// axis.
func (p *player) shown(moved bool) {
	if p.on && moved {
		p.drawn++
	}
}

// status is the status of playback at now: the rate, and the frames
// drawn of those due since it started ("" when it is not playing), and
// whether it keeps up (draws at least nine in ten).
func (p *player) status(now time.Time) (text string, due, drawn int64) {
	if !p.on {
		return "", 0, 0
	}
	due, drawn = p.frames(now), p.drawn
	text = fmt.Sprintf("playing %s: %d of %d frames drawn", RateName(p.rate), drawn, due)
	if due >= 10 && drawn*10 < due*9 {
		text += " (cannot keep up)"
	}
	return text, due, drawn
}

// TogglePlay starts or stops playback along the axis the step keys move.
func (s *Session) TogglePlay() {
	s.mu.Lock()
	if s.play.on {
		s.stopPlayLocked()
	} else if s.data != nil {
		s.startPlayLocked()
	}
	s.unlockNotify(PlayChanged)
}

// Playing reports whether playback runs, and its rate.
func (s *Session) Playing() (on bool, rate float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.play.on && !s.play.chosen && s.data != nil {
		return false, s.defaultRateLocked()
	}
	return s.play.on, s.play.rate
}

// SetPlayRate sets the playback rate in frames per second.
func (s *Session) SetPlayRate(fps float64) {
	if !(fps > 0) || math.IsInf(fps, 0) {
		return
	}
	s.mu.Lock()
	s.play.rate, s.play.chosen = fps, true
	if s.play.on { // go on from here at the new rate
		s.stopPlayLocked()
		s.startPlayLocked()
	}
	s.unlockNotify(PlayChanged)
}

// FileRate is the data's own frame rate (from the spacing of a time axis in
// seconds), if it has one.
func (s *Session) FileRate() (float64, bool) {
	m := s.Meta()
	if m == nil {
		return 0, false
	}
	return fileRate(m)
}

// fileRate is m's own frame rate: one over the spacing of its time axis,
// when that axis has more than one point and a unit of time.
func fileRate(m *loader.Meta) (float64, bool) {
	i := m.AxisIndex('T')
	if i < 0 || m.Shape[i] <= 1 {
		return 0, false
	}
	dt := secondsPer(m.Spacing[i], m.Units[i])
	if !(dt > 0) {
		return 0, false
	}
	return 1 / dt, true
}

// secondsPer converts a time step in unit to seconds (0 when unknown).
func secondsPer(step float64, unit string) float64 {
	switch unit { // short names some files write
	case "s":
		unit = "second"
	case "ms":
		unit = "millisecond"
	}
	if f, kind := loader.UnitScale(unit); kind == loader.Time {
		return step * f
	}
	return 0
}

// RateName writes a rate for a menu.
func RateName(fps float64) string { return fmt.Sprintf("%.4g fps", fps) }

func (s *Session) startPlayLocked() {
	m := s.data.Pyr.Meta()
	a := stepAxis(m, s.view.Orientation)
	if m.Size(a) <= 1 {
		return
	}
	rate := s.play.rate
	if !s.play.chosen {
		rate = s.defaultRateLocked()
	}
	s.play.begin(s.clock.Now(), s.view.At(a), m.Size(a), rate)
	s.play.release = s.data.Pyr.Hold()
	s.trace.Event("play", map[string]any{"rate": s.play.rate, "from": s.play.from})
	s.scheduleFrameLocked(s.play.serial, 1)
}

func (s *Session) stopPlayLocked() {
	s.play.end()
	s.signalIdleLocked()
}

// defaultRateLocked is the rate playback starts at until one is chosen
// for the data shown: the data's own when it plays through time, else 30
// (the planes of a volume have no rate of their own).
func (s *Session) defaultRateLocked() float64 {
	m := s.data.Pyr.Meta()
	if r, ok := fileRate(m); ok && stepAxis(m, s.view.Orientation) == 'T' {
		return r
	}
	return defaultPlayRate
}

// playShownLocked counts frame f, shown after prev, as drawn by playback
// when it shows another position on the step axis.
func (s *Session) playShownLocked(prev, f *Frame) {
	if !s.play.on || prev == nil {
		return
	}
	a := stepAxis(f.data.Pyr.Meta(), f.View.Orientation)
	s.play.shown(f.View.At(a) != prev.View.At(a))
}

// playStatusLocked is playback's status (see player.status).
func (s *Session) playStatusLocked() (text string, due, drawn int64) {
	return s.play.status(s.clock.Now())
}

// scheduleFrameLocked arms the timer for playback frame n, or the first
// one after it that is still to come.
func (s *Session) scheduleFrameLocked(serial uint64, n int64) {
	now := s.clock.Now()
	n = max(n, s.play.frames(now)+1)
	s.play.timer = s.clock.AfterFunc(max(s.play.frameTime(n).Sub(now), time.Nanosecond), func() { s.playTick(serial) })
}

// playTick moves the playhead to where the clock says it is (skipping the
// frames there was no time for), wrapping at the end, and arms the next
// tick.
func (s *Session) playTick(serial uint64) {
	s.mu.Lock()
	if !s.play.on || s.play.serial != serial || s.data == nil {
		s.mu.Unlock()
		return
	}
	m := s.data.Pyr.Meta()
	a := stepAxis(m, s.view.Orientation)
	pos, frames := s.play.position(s.clock.Now(), m.Size(a))
	if pos != s.view.At(a) {
		dir := 1
		s.view.SetAt(a, pos)
		s.gen++
		r := s.requestLocked(s.clock.Now(), dir)
		r.play, r.ahead = true, s.play.ahead()
		s.draw.ask(r)
		s.noteLocked(ViewChanged | HoverChanged)
	}
	s.scheduleFrameLocked(serial, frames+1)
	s.mu.Unlock()
	s.flush()
}

// AxisLabel is the read-out beside a slider: the position on axis a of
// the data shown ("t 13/100"), with the time in seconds for a time axis
// with a known frame rate, and the channel's name.
func (s *Session) AxisLabel(a byte) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.data == nil {
		return ""
	}
	m := s.data.Pyr.Meta()
	n := m.Size(a)
	i := s.view.At(a)
	text := fmt.Sprintf("%c %*d/%d", a-'A'+'a', len(fmt.Sprint(n)), i+1, n)
	if i < 0 || i >= n {
		text += "  beyond the image, in its layers"
	}
	if k := m.AxisIndex(a); a == 'T' && k >= 0 {
		if unit := secondsPer(1, m.Units[k]); unit > 0 && m.Levels[0].Scale[k] > 0 {
			l := &m.Levels[0]
			text += fmt.Sprintf("  %.3f s", (l.Translation[k]+float64(i)*l.Scale[k])*unit)
		}
	}
	if a == 'C' {
		if name := channelName(m, i); name != "" {
			text += "  " + name
		}
	}
	return text
}

// Axes lists the axes a slider moves: every axis of the data but the two
// the plane shows, of length above 1 (and not the samples of colour
// pixels drawn as one picture).
func (s *Session) Axes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.data == nil {
		return nil
	}
	m := s.data.Pyr.Meta()
	row, col, _ := s.view.Orientation.Axes()
	var out []byte
	for _, a := range []byte("TCZYX") {
		if a == row || a == col || m.Size(a) <= 1 || a == 'C' && m.RGB && s.view.Colormap == render.RGB {
			continue
		}
		out = append(out, a)
	}
	return out
}
