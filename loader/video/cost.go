package video

import "time"

// costModel learns, from past reads of one video, whether reading on from
// a running decoder beats starting a new one at the wanted frame's
// keyframe. Reading on costs, per frame, decoding, conversion and the
// transfer of the frame (skip); a new ffmpeg costs its start-up (start)
// and decoding from the keyframe (decode per frame: frames before the
// wanted one are dropped before conversion). start and decode are fitted
// by least squares, forgetting old observations, over the time a new
// ffmpeg took to its first frame against the frames it decoded first.
// Its methods are called under the source's lock.
type costModel struct {
	skip float64 // seconds per frame read on; 0 until measured
	// Weighted sums over (x = frames decoded before the first output,
	// y = seconds to the first output) of new decoders.
	n, sx, sy, sxx, sxy float64
}

const (
	defaultReach = 48   // frames read on before calibration
	costWeight   = 0.25 // weight of a new skip observation
	costForget   = 0.9  // weight kept by old start-up observations
)

// readOn reports whether reading on from frame next to frame t is
// expected to cost no more than a new decoder from keyframe k.
func (m *costModel) readOn(next, t, k int) bool {
	if m.skip <= 0 || m.n < 1 {
		return next >= k-defaultReach
	}
	start, decode := m.fit()
	return float64(t-next)*m.skip <= start+float64(t-k)*decode
}

// fit returns the start-up time and per-frame decoding time.
func (m *costModel) fit() (start, decode float64) {
	mx, my := m.sx/m.n, m.sy/m.n
	decode = m.skip / 2 // until there are distinct x values
	if v := m.sxx/m.n - mx*mx; v > 1 {
		decode = (m.sxy/m.n - mx*my) / v
	}
	decode = min(max(decode, 0), m.skip)
	return max(my-decode*mx, 0), decode
}

// observeSkip records that n frames were read on in d.
func (m *costModel) observeSkip(n int, d time.Duration) {
	if n < 4 {
		return // a few frames may have been decoded ahead: not a measure
	}
	v := d.Seconds() / float64(n)
	if m.skip <= 0 {
		m.skip = v
	} else {
		m.skip += costWeight * (v - m.skip)
	}
}

// observeStart records that a new decoder gave its first frame after d,
// having decoded about decoded frames that it dropped.
func (m *costModel) observeStart(decoded int, d time.Duration) {
	x, y := float64(decoded), d.Seconds()
	m.n = m.n*costForget + 1
	m.sx = m.sx*costForget + x
	m.sy = m.sy*costForget + y
	m.sxx = m.sxx*costForget + x*x
	m.sxy = m.sxy*costForget + x*y
}
