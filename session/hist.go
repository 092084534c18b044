package session

import (
	"context"
	"math"
	"time"

	"vastview/loader"
	"vastview/render"
)

// histKey names the plane a histogram is of.
type histKey struct {
	d           *Data
	orientation render.Orientation
	t, c, at    int
	level       int
}

// histState is the histogram part: the contrast panel's histogram, the
// plane it was last asked for, and the value range it is drawn over,
// which stays put per channel as planes change. Its state is the
// session's, under the session's lock; it is handed the frames shown and
// the data shown, and asks its histWorker for the histograms.
type histState struct {
	key    histKey
	asked  bool
	hist   render.Histogram
	ok     bool
	err    error
	ranges map[int][2]float64 // per channel
	built  map[int]bool       // the range came from the levels
}

// clear forgets the plane's histogram, keeping the channels' ranges.
func (h *histState) clear() { h.asked, h.ok, h.err, h.hist = false, false, nil, render.Histogram{} }

// reset forgets everything: other data is shown.
func (h *histState) reset() { *h = histState{} }

// ask notes that the histogram of key is wanted; false when it is the
// one asked for last.
func (h *histState) ask(key histKey) bool {
	if h.asked && key == h.key {
		return false
	}
	h.key, h.asked = key, true
	return true
}

// widen is the range the histogram of channel c is drawn over: the one
// it had, widened to hold [lo, hi] and v's window, or the levels' once
// they exist (fromLevels).
func (h *histState) widen(c int, lo, hi float64, v render.View, fromLevels bool) (float64, float64) {
	if h.ranges == nil {
		h.ranges, h.built = map[int][2]float64{}, map[int]bool{}
	}
	if r, ok := h.ranges[c]; ok && (h.built[c] || !fromLevels) {
		lo, hi = min(lo, r[0]), max(hi, r[1])
	}
	if v.Hi > v.Lo {
		lo, hi = min(lo, v.Lo), max(hi, v.Hi)
	}
	if !(hi > lo) {
		hi = lo + 1
	}
	h.ranges[c] = [2]float64{lo, hi}
	h.built[c] = h.built[c] || fromLevels
	return lo, hi
}

// set keeps the histogram of key's plane (err: it could not be read);
// false when that is no longer the plane wanted of shown, the data shown.
func (h *histState) set(key histKey, shown *Data, hist render.Histogram, err error) bool {
	if h.key != key || shown != key.d {
		return false
	}
	h.hist, h.ok, h.err = hist, err == nil, err
	return true
}

// get is the histogram of the plane of shown, the data shown, if there is
// one.
func (h *histState) get(shown *Data) (render.Histogram, bool) {
	if shown == nil || !h.ok || h.key.d != shown {
		return render.Histogram{}, false
	}
	return h.hist, true
}

// histRequest asks for the histogram of a plane at a level.
type histRequest struct {
	key  histKey
	view render.View
}

// histBins is the number of bars of the histogram.
const histBins = 256

// histSettle is how long the plane must stay put before its histogram is
// computed: scrubbing through planes does not redraw the panel.
const histSettle = 200 * time.Millisecond

// histWorker computes the histogram off the host's goroutine, newest
// request first, from the level the frame was drawn at (its chunks are in
// memory by then). It asks rangeOf for the range to draw it over and
// hands it to done; neither is called with a lock of its own held.
type histWorker struct {
	rangeOf func(key histKey, lo, hi float64, v render.View, fromLevels bool) (float64, float64)
	deliver func(key histKey, h render.Histogram, err error)
	want    chan histRequest // capacity 1
	quit    chan struct{}
	done    chan struct{}
}

// newHistWorker is a histogram worker handing its histograms to deliver,
// drawn over the range rangeOf says.
func newHistWorker(rangeOf func(key histKey, lo, hi float64, v render.View, fromLevels bool) (float64, float64),
	deliver func(key histKey, h render.Histogram, err error)) *histWorker {
	return &histWorker{rangeOf: rangeOf, deliver: deliver,
		want: make(chan histRequest, 1), quit: make(chan struct{}), done: make(chan struct{})}
}

// ask replaces any waiting request; it never blocks.
func (h *histWorker) ask(r histRequest) {
	for {
		select {
		case h.want <- r:
			return
		default:
			select {
			case <-h.want:
			default:
			}
		}
	}
}

func (h *histWorker) stop() {
	close(h.quit)
	<-h.done
}

func (h *histWorker) run() {
	defer close(h.done)
	for {
		var r histRequest
		select {
		case <-h.quit:
			return
		case r = <-h.want:
		}
		for settled := false; !settled; {
			select {
			case <-h.quit:
				return
			case r = <-h.want:
			case <-time.After(histSettle):
				settled = true
			}
		}
		if !r.key.d.acquire() {
			continue // released meanwhile
		}
		h.compute(r)
		r.key.d.Release()
	}
}

// compute reads the plane and hands its histogram to deliver.
func (h *histWorker) compute(r histRequest) {
	pyr := r.key.d.Pyr
	m := pyr.Meta()
	row, col, _ := r.view.Orientation.Axes()
	at := map[byte]int{}
	for _, a := range []byte("TCZYX") {
		if a != row && a != col && m.AxisIndex(a) >= 0 {
			at[a] = levelIndex(m, r.key.level, a, r.view.At(a))
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-h.quit:
			cancel()
		case <-ctx.Done():
		}
	}()
	// Colour pixels drawn as one picture count their three samples.
	channels := []int{r.view.C}
	if contrastChannel(r.view) < 0 && m.AxisIndex('C') >= 0 {
		channels = []int{0, 1, 2}
	}
	var buf []byte
	for _, c := range channels {
		if _, ok := at['C']; ok {
			at['C'] = levelIndex(m, r.key.level, 'C', c)
		}
		b, _, _, err := loader.ReadPlane(ctx, pyr, r.key.level, loader.Plane{Orientation: r.view.Orientation, At: at})
		if err != nil {
			h.deliver(r.key, render.Histogram{}, err)
			return
		}
		buf = append(buf, b...)
	}
	lo, hi := planeExtremes(buf, m.DType)
	lo, hi = render.HistogramRange(render.Range{Min: lo, Max: hi}, m.DType)
	fromLevels := false
	if r.key.d.Built() {
		if cr, ok := render.ChannelRange(pyr, contrastChannel(r.view)); ok {
			lo, hi = render.HistogramRange(cr, m.DType)
			fromLevels = true
		}
	}
	lo, hi = h.rangeOf(r.key, lo, hi, r.view, fromLevels)
	h.deliver(r.key, render.PlaneHistogram(buf, m.DType, lo, hi, histBins), nil)
}

// planeExtremes returns the smallest and largest finite samples of buf
// (0, 1 when there are none).
func planeExtremes(buf []byte, dt loader.DType) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for i := range len(buf) / dt.Size() {
		if v := render.Sample(buf, dt, i); !math.IsNaN(v) && !math.IsInf(v, 0) {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if lo > hi {
		return 0, 1
	}
	return lo, hi
}

// levelIndex maps a level-0 index on axis a to level k's (levels halve
// their axes, so the index is divided by the ratio of the lengths).
func levelIndex(m *loader.Meta, k int, a byte, i int) int {
	ax := m.AxisIndex(a)
	n0, nk := m.Levels[0].Shape[ax], m.Levels[k].Shape[ax]
	return clampInt(i*nk/max(n0, 1), 0, nk-1)
}

// askHistogramLocked asks for the histogram of the plane frame f shows,
// unless it is the one asked for last.
func (s *Session) askHistogramLocked(f *Frame) {
	_, _, normal := f.View.Orientation.Axes()
	key := histKey{d: f.data, orientation: f.View.Orientation, t: f.View.T, c: f.View.C, at: f.View.At(normal), level: f.Info.Level}
	if s.hist.ask(key) {
		s.hw.ask(histRequest{key: key, view: f.View})
	}
}

// channelRange is the range the histogram of the key's channel is drawn
// over: the one it had, widened to hold [lo, hi] and the window, or the
// levels' once they exist. It stays put as planes change, so the window's
// handles do not follow every plane's extremes.
func (s *Session) channelRange(key histKey, lo, hi float64, v render.View, fromLevels bool) (float64, float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hist.widen(contrastChannel(v), lo, hi, v, fromLevels)
}

// setHistogram shows the histogram of key's plane, if that is still the
// one wanted.
func (s *Session) setHistogram(key histKey, h render.Histogram, err error) {
	s.mu.Lock()
	if !s.hist.set(key, s.data, h, err) {
		s.mu.Unlock()
		return
	}
	s.unlockNotify(HistogramChanged)
}

// Histogram returns the histogram of the plane shown and whether there is
// one (none before the plane has settled, or when it cannot be read).
func (s *Session) Histogram() (render.Histogram, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hist.get(s.data)
}
