package session

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"vastview/loader"
	"vastview/render"
)

// truncatedSource is a volume whose planes from z on are missing from its
// file.
type truncatedSource struct {
	stored
	z int
}

func (s truncatedSource) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if idx[1] >= s.z {
		return fmt.Errorf("plane %d: 1000 bytes at offset 5000: %w", idx[1], loader.ErrTruncated)
	}
	return s.stored.ReadChunk(ctx, level, idx, dst)
}

// TestTruncatedFileShowsWhatItHasAndSaysWhatIsMissing steps from planes the
// file holds to one it does not: that plane's frame settles with its
// chunks marked unreadable, the status says why (not "refining"), the
// trace has one error event, and the histogram is not the previous
// plane's.
func TestTruncatedFileShowsWhatItHasAndSaysWhatIsMissing(t *testing.T) {
	h := newHarness(t, Options{})
	f := h.open(truncatedSource{small().(stored), 6}, "/data/cut.tif")
	if f.View.Z != 4 || f.Info.Failed != 0 {
		t.Fatalf("plane 4: %+v", f.Info)
	}
	h.waitUpdate(func(u Update) bool { _, ok := h.s.Histogram(); return u.Changes&HistogramChanged != 0 && ok })
	h.s.Press(KeyRight)
	h.s.Press(KeyRight) // z 6: not in the file
	f = h.waitFrame(func(f *Frame) bool { return f.View.Z == 6 && f.Info.Settled() })
	if f.Info.Complete || f.Info.Failed == 0 || !strings.Contains(fmt.Sprint(f.Info.Err), "file is truncated") {
		t.Fatalf("plane 6 frame %+v", f.Info)
	}
	st := h.s.Status()
	if strings.Contains(st.Text, "refining") || !strings.Contains(st.Text, "unreadable") || !strings.Contains(st.Text, "truncated") {
		t.Errorf("status %q", st.Text)
	}
	errs := h.eventsNamed("error")
	if len(errs) != 1 || !strings.Contains(errs[0]["message"].(string), "truncated") {
		t.Errorf("error events %v", errs)
	}
	h.waitUpdate(func(u Update) bool { return u.Changes&HistogramChanged != 0 })
	if _, ok := h.s.Histogram(); ok {
		t.Error("the histogram of an unreadable plane is shown")
	}
	h.s.Press(KeyLeft)
	h.s.Press(KeyLeft)
	h.waitFrame(func(f *Frame) bool { return f.View.Z == 4 && f.Info.Complete })
	if st := h.s.Status(); strings.Contains(st.Text, "unreadable") {
		t.Errorf("status back on a good plane: %q", st.Text)
	}
}

// TestBytesReadCountsTheViewsOfEachFile switches files: every frame's
// bytes_read is what was read for views of that file since its previous
// frame, never negative, and the first frame of the second file counts
// its own plane.
func TestBytesReadCountsTheViewsOfEachFile(t *testing.T) {
	h := newHarness(t, Options{})
	h.open(small(), "/data/a.tif")
	h.s.Press(KeyRight)
	h.waitFrame(func(f *Frame) bool { return f.View.Z == 5 && f.Info.Complete })
	h.open(small(), "/data/b.tif")
	var total float64
	for _, e := range append(h.eventsNamed("frame_shown"), h.eventsNamed("refined")...) {
		b := e["bytes_read"].(float64)
		if b < 0 {
			t.Errorf("bytes_read %v", b)
		}
		total += b
	}
	// Three planes of 64×96 uint16 were shown, each read once (its
	// neighbours prefetched, at most 3 planes ahead).
	if plane := float64(64 * 96 * 2); total < 3*plane || total > 8*plane {
		t.Errorf("%v bytes read for three planes of %v", total, plane)
	}
}

// TestHistogramRangeStaysPutAcrossPlanes steps through planes of different
// ranges: the contrast panel's value axis never narrows to a plane's own
// extremes, and holds the window.
func TestHistogramRangeStaysPutAcrossPlanes(t *testing.T) {
	h := newHarness(t, Options{})
	h.open(small(), "/data/volume.tif")
	waitHist := func() render.Histogram {
		t.Helper()
		h.waitUpdate(func(u Update) bool { _, ok := h.s.Histogram(); return u.Changes&HistogramChanged != 0 && ok })
		hist, _ := h.s.Histogram()
		return hist
	}
	first := waitHist()
	v := h.s.View()
	if first.Min > v.Lo || first.Max < v.Hi {
		t.Errorf("histogram over [%g, %g] does not hold the window [%g, %g]", first.Min, first.Max, v.Lo, v.Hi)
	}
	var n int64
	for _, c := range first.Counts {
		n += c
	}
	if n != 64*96 {
		t.Errorf("the histogram counts %d samples of a 64×96 plane", n)
	}
	prev := first
	for _, key := range []string{KeyHome, KeyEnd, KeyRightBracket} {
		h.s.Press(key)
		got := waitHist()
		if got.Min > prev.Min || got.Max < prev.Max {
			t.Errorf("after %s the range narrowed from [%g, %g] to [%g, %g]", key, prev.Min, prev.Max, got.Min, got.Max)
		}
		prev = got
	}
}
