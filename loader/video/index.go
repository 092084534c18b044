package video

import (
	"math"
	"math/big"
	"sort"
	"strconv"
)

// index is what vastview knows of a video stream without decoding it: the
// stream parameters, and every frame's presentation timestamp (in stream
// time-base units) and keyframe flag, in presentation order.
type index struct {
	codec, pixFmt string
	colorSpace    string  // YUV matrix as ffprobe names it ("bt709", "unknown", ...)
	width, height int     // coded size
	rotation      float64 // display rotation in degrees, as ffprobe reports it
	mono          bool    // an H.264 stream coded 4:0:0 (decoded as yuv420p)
	tbNum, tbDen  int64   // stream time base

	pts  []int64 // per frame, ascending
	key  []bool  // per frame
	keys []int   // frames that are keyframes, ascending (derived)
}

// sortFrames puts packets, read in decode order, into presentation order.
// Equal timestamps keep their decode order.
func (ix *index) sortFrames() {
	if sort.SliceIsSorted(ix.pts, func(i, j int) bool { return ix.pts[i] < ix.pts[j] }) {
		return
	}
	type frame struct {
		pts int64
		key bool
	}
	fs := make([]frame, len(ix.pts))
	for i := range fs {
		fs[i] = frame{ix.pts[i], ix.key[i]}
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].pts < fs[j].pts })
	for i, f := range fs {
		ix.pts[i], ix.key[i] = f.pts, f.key
	}
}

// check validates the stream parameters and derives the keyframe list.
func (ix *index) check() error {
	if ix.width < 1 || ix.height < 1 || ix.width > maxSide || ix.height > maxSide {
		return formatError("frame size %dx%d", ix.width, ix.height)
	}
	if ix.tbNum < 1 || ix.tbDen < 1 || ix.tbNum > maxTBValue || ix.tbDen > maxTBValue {
		return formatError("time base %d/%d", ix.tbNum, ix.tbDen)
	}
	if len(ix.pts) == 0 || len(ix.pts) != len(ix.key) || len(ix.pts) > maxFrames {
		return formatError("%d frames", len(ix.pts))
	}
	ix.keys = ix.keys[:0]
	for i, k := range ix.key {
		if i > 0 && ix.pts[i] < ix.pts[i-1] {
			return formatError("frame timestamps out of order")
		}
		if k {
			ix.keys = append(ix.keys, i)
		}
	}
	return nil
}

// frames is the number of frames.
func (ix *index) frames() int { return len(ix.pts) }

// size is the frame size ffmpeg delivers: the coded size, turned by a
// display rotation of 90 or 270 degrees.
func (ix *index) size() (w, h int) {
	r := math.Mod(math.Abs(ix.rotation), 180)
	if math.Abs(r-90) < 1 {
		return ix.height, ix.width
	}
	return ix.width, ix.height
}

// seconds converts a timestamp to seconds.
func (ix *index) seconds(ts int64) float64 {
	return float64(ts) * float64(ix.tbNum) / float64(ix.tbDen)
}

// meanDuration is the mean frame duration in seconds (1 for one frame).
func (ix *index) meanDuration() float64 {
	n := len(ix.pts)
	if n < 2 || ix.pts[n-1] <= ix.pts[0] {
		return 1
	}
	return ix.seconds(ix.pts[n-1]-ix.pts[0]) / float64(n-1)
}

// keyBefore returns the last keyframe at or before frame t in presentation
// order (0 when there is none): decoding from it yields frame t, as long as
// the keyframe's group of pictures does not reach back before it.
func (ix *index) keyBefore(t int) int {
	i := sort.SearchInts(ix.keys, t+1)
	if i == 0 {
		return 0
	}
	return ix.keys[i-1]
}

// firstSame returns the first frame with frame t's timestamp: a decoder
// started at that timestamp gives that frame first.
func (ix *index) firstSame(t int) int {
	p := ix.pts[t]
	return sort.Search(t, func(i int) bool { return ix.pts[i] >= p })
}

// seekTime formats, in seconds, a position at or just after (by less than
// a microsecond) keyframe k's timestamp, for ffmpeg's -ss with
// -seek_timestamp. ok is false for the first frames, which need no seek.
func (ix *index) seekTime(k int) (s string, ok bool) {
	if k <= 0 || ix.pts[k] <= ix.pts[0] {
		return "", false
	}
	// ceil(pts * num * 1e6 / den) microseconds, exactly.
	us := new(big.Int).Mul(big.NewInt(ix.pts[k]), big.NewInt(ix.tbNum))
	us.Mul(us, big.NewInt(1e6))
	den := big.NewInt(ix.tbDen)
	q, m := new(big.Int).DivMod(us, den, new(big.Int)) // floor, m >= 0
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	neg := q.Sign() < 0
	q.Abs(q)
	sec, frac := new(big.Int).DivMod(q, big.NewInt(1e6), new(big.Int))
	f := strconv.FormatInt(frac.Int64()+1e6, 10)[1:]
	s = sec.String() + "." + f
	if neg {
		s = "-" + s
	}
	return s, true
}
