package session

import (
	"fmt"
	"strings"
	"time"

	"vastview/loader"
	"vastview/render"
)

// Status is what the status bar shows.
type Status struct {
	// Text is the level shown, whether it is still refining or could not
	// be read, the loads pending, the cache's use, chunks a store did not
	// hold yet, and the last load failure.
	Text string
	// Building is true while levels are computed in the background;
	// Done and Total count their chunks.
	Building    bool
	Done, Total int64
	// Opening is the file being opened, if any.
	Opening string
}

// statusEvery is how often the status is brought up to date.
const statusEvery = 500 * time.Millisecond

// scheduleTick arms the next status update.
func (s *Session) scheduleTick() {
	s.tick = s.clock.AfterFunc(statusEvery, func() {
		st := s.Status()
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return
		}
		c := Change(0)
		if st.Text != s.status {
			s.status = st.Text
			c = StatusChanged
		}
		if st.Building {
			c |= StatusChanged
		}
		if text, due, drawn := s.playStatusLocked(); text != "" {
			s.trace.Event("playback", map[string]any{"rate": s.play.rate, "due": due, "drawn": drawn})
		}
		s.scheduleTick()
		s.unlockNotify(c)
	})
}

// Status returns the status now; a load failure not yet in the trace is
// written there. Addresses in it carry no credentials (loader.Redact).
func (s *Session) Status() Status {
	st := s.status0()
	st.Opening, st.Text = loader.Redact(st.Opening), loader.Redact(st.Text)
	return st
}

// status0 is Status before addresses are redacted.
func (s *Session) status0() (st Status) {
	s.mu.Lock()
	d, shown := s.data, s.shown
	opening, _ := s.opens.path()
	note := s.browse.note
	play, _, _ := s.playStatusLocked()
	s.mu.Unlock()
	st = Status{Opening: opening}
	defer func() {
		if note != "" {
			st.Text = strings.TrimSpace(note + "   " + st.Text)
		}
	}()
	if d == nil {
		return st
	}
	pyr := d.Pyr
	level, state := 0, ""
	if shown != nil {
		level = shown.Info.Level
		switch {
		case shown.Info.Failed > 0:
			state = fmt.Sprintf(" (%d chunks unreadable: %v)", shown.Info.Failed, shown.Info.Err)
		case !shown.Info.Complete:
			state = " (refining)"
		}
	}
	st.Text = fmt.Sprintf("level %d/%d%s   pending %d   cache %s",
		level, len(pyr.Levels())-1, state, pyr.Pending(), HumanBytes(pyr.CacheUsed()))
	if shown != nil && shown.View.Zoom > 0 && shown.Panel != panel3D { // the 3-D view's zoom is its camera's
		zoom := fmt.Sprintf("zoom %.3g×", shown.View.Zoom)
		if ps := render.PixelSize(pyr.Meta(), shown.View); ps != "" {
			zoom += " (" + ps + ")"
		}
		st.Text = zoom + "   " + st.Text
	}
	if shown != nil && shown.plane != nil {
		st.Text = obliqueStatus(shown.View) + "   " + st.Text
	}
	if shown != nil && shown.Vol != nil {
		st.Text = status3D(shown) + "   " + st.Text
	}
	if shown != nil && shown.Projection == loader.NoProjection {
		if an := anatomyNote(pyr.Meta(), shown.View); an != "" {
			st.Text = an + "   " + st.Text
		}
	}
	if play != "" {
		st.Text = play + "   " + st.Text
	}
	if shown != nil && shown.Projection != 0 && shown.plane != nil {
		st.Text = fmt.Sprintf("%s along w %d–%d × %s   ", shown.Projection, shown.Slab[0], shown.Slab[1],
			phys(SlabStep(pyr.Meta()), unitOf(pyr.Meta()))) + st.Text
	} else if shown != nil && shown.Projection != 0 {
		_, _, normal := shown.View.Orientation.Axes()
		st.Text = fmt.Sprintf("%s of %c %d–%d   ", shown.Projection, normal+'a'-'A', shown.Slab[0], shown.Slab[1]) + st.Text
	}
	// What is wrong comes first: the line is cut to the room it has, and
	// the figures after it are there every time.
	var alerts []string
	if msg, ok, fresh := d.lastFailure(s.clock.Now(), true); ok {
		alerts = append(alerts, "error: "+msg)
		if fresh {
			s.trace.Event("error", map[string]any{"message": msg})
		}
	}
	if n := pyr.MissingChunks(); n > 0 {
		alerts = append(alerts, fmt.Sprintf("%d chunks missing where the level above holds data (shown as the fill value)", n))
	}
	if n := pyr.NotStored(); n > 0 {
		alerts = append(alerts, fmt.Sprintf("%d chunks not stored yet (R reloads)", n))
	}
	if err := pyr.DiskError(); err != nil {
		alerts = append(alerts, err.Error())
	}
	done, total, ended, err := d.BuildState()
	if ended && err != nil && !d.Pyr.Meta().Synthetic {
		alerts = append(alerts, "levels: "+err.Error())
	}
	for _, n := range pyr.Meta().Notes {
		if strings.HasSuffix(n, loader.OutsideNote) {
			alerts = append(alerts, "note: "+n)
		}
	}
	if len(alerts) > 0 {
		st.Text = strings.Join(alerts, "   ") + "   " + st.Text
	}
	st.Building = !ended && total > 0 && done < total
	st.Done, st.Total = done, total
	return st
}

// HumanBytes writes a byte count with a binary unit ("1.5 GiB").
func HumanBytes(b int64) string {
	f := float64(b)
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	i := 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	return fmt.Sprintf("%.3g %s", f, units[i])
}
