package levels

import (
	"context"
	"testing"
	"testing/synctest"
)

// While the data is played, a read running for the last frame finishes
// when the next frame is asked for (a video's decoder goes on to the next
// frame instead of starting again from a keyframe), and Build waits until
// playback ends.
func TestPlaybackLetsRunningReadsFinishAndHoldsTheBuild(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newHash("ZYX", []int{50, 64, 64}, []int{1, 64, 64})
		src.gate = make(chan struct{})
		p, err := Open(src, Options{CacheBytes: 64 << 20, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		events, cancel := p.Subscribe()
		defer cancel()
		end := p.Hold()
		p.Request(Visible, 1, 0, []int{0, 0, 0})
		synctest.Wait() // plane 0's read waits at the gate
		p.Request(Visible, 2, 0, []int{1, 0, 0})
		go func() {
			for range 2 {
				src.gate <- struct{}{}
			}
		}()
		var got []int
		for len(got) < 2 {
			e := <-events
			if e.Err != nil {
				t.Fatalf("plane %v: %v", e.Idx, e.Err)
			}
			got = append(got, e.Idx[0])
		}
		if got[0] != 0 || got[1] != 1 {
			t.Errorf("arrivals %v, want [0 1]: the running read of plane 0 finishes", got)
		}

		built := make(chan error, 1)
		src.gate = nil
		go func() { built <- p.Build(context.Background(), 1) }()
		synctest.Wait()
		select {
		case err := <-built:
			t.Fatalf("Build ended while played: %v", err)
		default:
		}
		for _, lp := range p.Progress() {
			if lp.Done != 0 {
				t.Errorf("level %d: %d chunks built while played", lp.Level, lp.Done)
			}
		}
		end()
		end() // a second call changes nothing
		if err := <-built; err != nil {
			t.Fatal(err)
		}
		for _, lp := range p.Progress() {
			if lp.Done != lp.Total {
				t.Errorf("level %d: %d of %d chunks built after playback", lp.Level, lp.Done, lp.Total)
			}
		}
	})
}
