package video

import (
	"testing"
	"time"
)

// TestCostModel feeds the cost model timings of a decoder that takes 50
// ms to start, 1 ms per frame it decodes and drops, and 2 ms per frame it
// delivers, and checks that it reads on exactly when reading on is
// expected to cost no more than a new decoder: before calibration, up to
// 48 frames before the keyframe; after it, by the measured costs.
func TestCostModel(t *testing.T) {
	const start, decode, skip = 50 * time.Millisecond, time.Millisecond, 2 * time.Millisecond
	var m costModel
	if !m.readOn(52, 100, 100) || m.readOn(51, 100, 100) {
		t.Fatal("before calibration: want reading on from 48 frames before the keyframe")
	}
	for _, x := range []int{0, 40, 120, 200} {
		m.observeStart(x, start+time.Duration(x)*decode)
	}
	m.observeSkip(20, 20*skip)
	gotStart, gotDecode := m.fit()
	if d := gotStart - start.Seconds(); d > 1e-9 || d < -1e-9 {
		t.Fatalf("fitted start-up %v s, want %v", gotStart, start.Seconds())
	}
	if d := gotDecode - decode.Seconds(); d > 1e-9 || d < -1e-9 {
		t.Fatalf("fitted decoding %v s per frame, want %v", gotDecode, decode.Seconds())
	}
	for _, c := range []struct{ next, t, k int }{
		{90, 100, 100}, {70, 100, 100}, {0, 100, 100}, {0, 200, 0}, {150, 200, 0}, {120, 220, 200},
	} {
		newCost := start + time.Duration(c.t-c.k)*decode
		want := time.Duration(c.t-c.next)*skip <= newCost
		if got := m.readOn(c.next, c.t, c.k); got != want {
			t.Errorf("readOn(%d, %d, keyframe %d) = %v, want %v (read on %v, new decoder %v)",
				c.next, c.t, c.k, got, want, time.Duration(c.t-c.next)*skip, newCost)
		}
	}
}
