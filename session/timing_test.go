package session

import (
	"context"
	"strings"
	"testing"
	"time"

	"vastview/loader/demo"
)

// TestHeldKeyScrubsOneStepPerFrameAtMostOnePerRefresh holds "." on a
// manual clock: nothing repeats before scrubDelay; then each step waits for
// the frame of the one before (with data everywhere) and for a display
// refresh since the last step; the keyboard's own repeats are ignored
// meanwhile; releasing the key stops it.
func TestHeldKeyScrubsOneStepPerFrameAtMostOnePerRefresh(t *testing.T) {
	clock := NewManualClock()
	h := newHarness(t, Options{Clock: clock})
	z0 := h.open(stored{demo.NewSized(1, 2000, 32, 48)}, "/data/long.tif").View.Z
	h.s.KeyDown(KeyPeriod)
	h.s.Press(KeyPeriod) // the press itself
	h.waitFrame(func(f *Frame) bool { return f.View.Z == z0+1 && f.Info.Unfilled == 0 })
	clock.Advance(scrubDelay - time.Millisecond)
	if h.s.Scrubbing() || h.s.View().Z != z0+1 {
		t.Fatalf("repeating before %v", scrubDelay)
	}
	clock.Advance(time.Millisecond) // the scrub starts: one step at once
	if !h.s.Scrubbing() || h.s.View().Z != z0+2 {
		t.Fatalf("scrubbing %v at z %d after the delay", h.s.Scrubbing(), h.s.View().Z)
	}
	for step := 3; step <= 12; step++ {
		z := h.s.View().Z
		// The keyboard repeats: ignored.
		for range 5 {
			h.s.Press(KeyPeriod)
		}
		if got := h.s.View().Z; got != z {
			t.Fatalf("keyboard repeats stepped from %d to %d", z, got)
		}
		h.waitFrame(func(f *Frame) bool { return f.View.Z == z && f.Info.Unfilled == 0 })
		// The frame came sooner than a refresh after the step: the next
		// step waits for the refresh.
		if got := h.s.View().Z; got != z {
			t.Fatalf("stepped to %d before a display refresh had passed", got)
		}
		clock.Advance(scrubEvery)
		if got := h.s.View().Z; got != z0+step {
			t.Fatalf("step %d: at z %d, want %d", step, got, z0+step)
		}
	}
	h.s.KeyUp(KeyPeriod)
	z := h.s.View().Z
	clock.Advance(time.Second)
	if h.s.Scrubbing() || h.s.View().Z != z {
		t.Errorf("still stepping after the key was released: %d -> %d", z, h.s.View().Z)
	}
}

// stuckSource's planes from z on never arrive (a server that hangs).
type stuckSource struct {
	stored
	z int
}

func (s stuckSource) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if idx[1] >= s.z {
		<-ctx.Done()
		return ctx.Err()
	}
	return s.stored.ReadChunk(ctx, level, idx, dst)
}

// TestScrubIgnoresRepeatsOnlyWhileFramesCome holds a key up to a plane no
// data ever comes for: the scrub stops there, and after scrubStall the
// keyboard's repeats step again.
func TestScrubIgnoresRepeatsOnlyWhileFramesCome(t *testing.T) {
	clock := NewManualClock()
	h := newHarness(t, Options{Clock: clock})
	z0 := h.open(stuckSource{stored{demo.NewSized(1, 2000, 32, 48)}, 1003}, "/data/long.tif").View.Z
	if z0 != 1000 {
		t.Fatalf("opened at z %d", z0)
	}
	h.s.KeyDown(KeyPeriod)
	clock.Advance(scrubDelay) // the scrub steps to 1001
	for z := z0 + 1; z < 1003; z++ {
		h.waitFrame(func(f *Frame) bool { return f.View.Z == z && f.Info.Unfilled == 0 })
		clock.Advance(scrubEvery)
	}
	// At 1003 the frame has holes: no further step, and repeats are
	// ignored for a while.
	h.waitFrame(func(f *Frame) bool { return f.View.Z == 1003 })
	clock.Advance(scrubEvery)
	h.s.Press(KeyPeriod)
	if z := h.s.View().Z; z != 1003 {
		t.Fatalf("at z %d, want the scrub to wait at 1003", z)
	}
	clock.Advance(scrubStall)
	h.s.Press(KeyPeriod)
	if z := h.s.View().Z; z != 1004 {
		t.Errorf("after %v without data a repeat moved to %d, want 1004", scrubStall, z)
	}
}

// TestPlaybackFollowsTheClockAndDropsFrames plays at 10 frames a second on
// a manual clock: the playhead is where the clock says, skipping the
// frames there was no time for, wraps at the end, and stops on Space.
func TestPlaybackFollowsTheClockAndDropsFrames(t *testing.T) {
	clock := NewManualClock()
	h := newHarness(t, Options{Clock: clock})
	h.open(stored{demo.NewSized(1, 50, 32, 48)}, "/data/movie.tif")
	h.s.Press(KeyHome)
	h.s.SetPlayRate(10)
	h.s.Press(KeySpace)
	if on, rate := h.s.Playing(); !on || rate != 10 {
		t.Fatalf("playing %v at %g", on, rate)
	}
	clock.Advance(100 * time.Millisecond)
	if z := h.s.View().Z; z != 1 {
		t.Errorf("after 0.1 s at z %d, want 1", z)
	}
	clock.Advance(time.Second) // ten frames' time in one go: they are dropped
	if z := h.s.View().Z; z != 11 {
		t.Errorf("after 1.1 s at z %d, want 11", z)
	}
	// The status bar says that frames were skipped.
	if st := h.s.Status().Text; !strings.Contains(st, "of 11 frames drawn (cannot keep up") {
		t.Errorf("status %q does not say that 11 frames were due and fewer drawn", st)
	}
	clock.Advance(4 * time.Second) // 51 frames: past the end, from the start
	if z := h.s.View().Z; z != 1 {
		t.Errorf("after 5.1 s at z %d, want 1 (51 mod 50)", z)
	}
	h.s.Press(KeySpace)
	clock.Advance(time.Second)
	if on, _ := h.s.Playing(); on || h.s.View().Z != 1 {
		t.Errorf("still playing after Space: z %d", h.s.View().Z)
	}
	if clock.Pending() > 1 { // the status tick
		t.Errorf("%d timers left after playback stopped", clock.Pending())
	}
}

func TestFileRateFromTheTimeAxis(t *testing.T) {
	h := newHarness(t, Options{})
	d := demo.NewSized(25, 1, 32, 48) // T spacing 1 s
	h.open(stored{d}, "/data/timelapse.tif")
	if r, ok := h.s.FileRate(); !ok || r != 1 {
		t.Errorf("file rate %g %v, want 1 fps", r, ok)
	}
	if _, r := h.s.Playing(); r != 1 {
		t.Errorf("plays at %g fps by default, want the file's 1 fps", r)
	}
	h.s.Press(KeyRight)
	if got := h.s.AxisLabel('T'); got != "t  2/25  1.000 s" {
		t.Errorf("time read-out %q", got)
	}
}

// TestVolumePlaysItsPlanesAtTheDefaultRate: a time-lapse of volumes
// plays its planes (what Space steps through in XY) at 30 frames per
// second, whatever its time interval; a rate chosen holds until other
// data is shown.
func TestVolumePlaysItsPlanesAtTheDefaultRate(t *testing.T) {
	h := newHarness(t, Options{})
	h.open(stored{demo.NewSized(3, 20, 32, 48)}, "/data/lapse.tif") // T spacing 1 s
	if _, r := h.s.Playing(); r != defaultPlayRate {
		t.Errorf("the planes play at %g fps, want %d", r, defaultPlayRate)
	}
	h.s.SetPlayRate(5)
	h.s.TogglePlay()
	if on, r := h.s.Playing(); !on || r != 5 {
		t.Errorf("playing %v at %g fps after choosing 5", on, r)
	}
	h.s.TogglePlay()
	h.open(stored{demo.NewSized(25, 1, 32, 48)}, "/data/movie.tif")
	if _, r := h.s.Playing(); r != 1 {
		t.Errorf("the next file plays at %g fps, want its own 1", r)
	}
}
