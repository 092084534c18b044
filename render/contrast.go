package render

import (
	"encoding/binary"
	"math"
	"slices"

	"vastview/base/nd"
	"vastview/levels"
	"vastview/loader"
)

// Auto-contrast takes the values between these quantiles.
const (
	lowQuantile  = 0.001
	highQuantile = 0.999
)

// maxContrastChunks bounds how many chunks of the coarsest level
// AutoContrast reads; a long movie's coarsest level has one per frame.
const maxContrastChunks = 64

// AutoContrast returns the 0.1 and 99.9 percentiles of the coarsest level's
// samples, across all of it (every time point and channel), as a display
// window. See ChannelRange, which it is for every channel at once.
func AutoContrast(p Source) (lo, hi float64, ok bool) {
	r, ok := ChannelRange(p, -1)
	return r.Lo, r.Hi, ok
}

// Range summarises the values of a channel: its extremes, and the 0.1 and
// 99.9 percentiles auto-contrast takes as its display window.
type Range struct{ Min, Max, Lo, Hi float64 }

// ChannelRange summarises channel c (position c on the C axis; every
// channel when c < 0 or the data has no C axis) from the coarsest level's
// samples, across all of it (every time point); samples beyond the level's
// edge in its chunks are not counted. When the level has more than 64
// chunks holding the channel (a long movie), 64 of them evenly spaced in
// grid order stand for it. It never blocks: when a chunk is not in memory
// it requests the missing ones (Background priority, which no view
// generation cancels) and returns ok=false, and the caller tries again when
// they arrive. It is safe for concurrent use if p is.
func ChannelRange(p Source, c int) (Range, bool) {
	m := p.Meta()
	k := len(m.Levels) - 1
	l := &m.Levels[k]
	ca := m.AxisIndex('C')
	if ca < 0 || c >= l.Shape[ca] {
		c = -1
	}
	// The chunks holding the channel: a grid with the C axis pinned.
	grid := l.Grid()
	if c >= 0 {
		grid[ca] = 1
	}
	total := nd.Product(grid)
	picks := min(total, maxContrastChunks)
	var missing [][]int
	var h histogram
	h.init(m.DType)
	for i := 0; i < picks; i++ {
		idx := unravel(i*total/picks, grid)
		if c >= 0 {
			idx[ca] = c / l.Chunk[ca]
		}
		data := p.Get(k, idx)
		if len(data) < l.ChunkBytes(m.DType) {
			missing = append(missing, idx)
			continue
		}
		if missing == nil {
			h.addChunk(data, l, idx, m.DType, ca, c)
		}
	}
	if missing != nil {
		p.Request(levels.Background, 0, k, missing...)
		return Range{}, false
	}
	var r Range
	r.Lo, r.Hi = h.quantiles()
	r.Min, r.Max = h.extremes()
	return r, true
}

// unravel turns a linear chunk number into a grid index (C order).
func unravel(n int, grid []int) []int {
	idx := make([]int, len(grid))
	for i := len(grid) - 1; i >= 0; i-- {
		idx[i] = n % grid[i]
		n /= grid[i]
	}
	return idx
}

// histogram counts 8- and 16-bit samples exactly, by value, and keeps
// wider ones (up to about a million, evenly spaced) to sort.
type histogram struct {
	dt     loader.DType
	counts []int64 // by raw value with the sign bit flipped: in numeric order
	vals   []float64
	stride int // keep every stride-th wide sample
	seen   int
}

func (h *histogram) init(dt loader.DType) {
	h.dt = dt
	h.stride = 1
	if dt.Size() <= 2 {
		h.counts = make([]int64, 1<<(8*dt.Size()))
	}
}

// addChunk counts the samples of a chunk that lie within level l and, when
// c >= 0, at position c of axis ca.
func (h *histogram) addChunk(data []byte, l *loader.Level, idx []int, dt loader.DType, ca, c int) {
	n := len(idx)
	es := dt.Size()
	start, box := make([]int, n), make([]int, n)
	for i := range idx {
		start[i] = idx[i] * l.Chunk[i]
		box[i] = min(l.Chunk[i], l.Shape[i]-start[i])
	}
	base := 0
	if c >= 0 {
		// Only the channel's slab of the chunk.
		base = (c - start[ca]) * nd.Strides(l.Chunk)[ca] * es
		box[ca] = 1
	}
	strides := make([]int, n)
	acc := es
	for i := n - 1; i >= 0; i-- {
		strides[i] = acc
		acc *= l.Chunk[i]
	}
	pos := make([]int, n-1) // over every axis but the last: one row each
	rowBytes := box[n-1] * es
	for {
		off := base
		for i, p := range pos {
			off += p * strides[i]
		}
		h.addRow(data[off : off+rowBytes])
		if !nd.Next(pos, box[:n-1]) {
			return
		}
	}
}

func (h *histogram) addRow(b []byte) {
	le := binary.LittleEndian
	switch h.dt {
	case loader.Uint8:
		for _, v := range b {
			h.counts[v]++
		}
	case loader.Int8:
		for _, v := range b {
			h.counts[v^0x80]++
		}
	case loader.Uint16:
		for i := 0; i+1 < len(b); i += 2 {
			h.counts[le.Uint16(b[i:])]++
		}
	case loader.Int16:
		for i := 0; i+1 < len(b); i += 2 {
			h.counts[le.Uint16(b[i:])^0x8000]++
		}
	default:
		es := h.dt.Size()
		for i := 0; i+es <= len(b); i += es {
			h.seen++
			if h.seen%h.stride != 0 {
				continue
			}
			if v := Sample(b[i:i+es], h.dt, 0); finite(v) {
				h.vals = append(h.vals, v)
			}
			if len(h.vals) >= 2<<20 { // keep about a million: drop every other
				h.vals = thin(h.vals)
				h.stride *= 2
			}
		}
	}
}

func thin(v []float64) []float64 {
	n := 0
	for i := 0; i < len(v); i += 2 {
		v[n] = v[i]
		n++
	}
	return v[:n]
}

// quantiles returns the auto-contrast window: the values at ranks
// floor(0.001*(n-1)) and ceil(0.999*(n-1)) of the n samples counted; a
// range of width 1 when it would be empty.
func (h *histogram) quantiles() (lo, hi float64) {
	if h.counts == nil {
		return quantiles(h.vals)
	}
	var n int64
	for _, c := range h.counts {
		n += c
	}
	if n == 0 {
		return 0, 1
	}
	rlo := int64(lowQuantile * float64(n-1))
	rhi := int64(math.Ceil(highQuantile * float64(n-1)))
	lo, hi = h.valueAtRank(rlo), h.valueAtRank(rhi)
	if hi <= lo {
		hi = lo + 1
	}
	return lo, hi
}

// extremes returns the smallest and largest values counted (0, 1 when
// none were).
func (h *histogram) extremes() (lo, hi float64) {
	if h.counts == nil {
		if len(h.vals) == 0 {
			return 0, 1
		}
		lo, hi = slices.Min(h.vals), slices.Max(h.vals)
		return lo, hi
	}
	var n int64
	for _, c := range h.counts {
		n += c
	}
	if n == 0 {
		return 0, 1
	}
	return h.valueAtRank(0), h.valueAtRank(n - 1)
}

// valueAtRank is the value of the sample at rank r (0 is the smallest).
func (h *histogram) valueAtRank(r int64) float64 {
	var cum int64
	for v, c := range h.counts {
		cum += c
		if cum > r {
			if h.dt.Signed() {
				return float64(v - len(h.counts)/2)
			}
			return float64(v)
		}
	}
	return 0
}

// quantiles sorts vals and returns the auto-contrast window of them.
func quantiles(vals []float64) (lo, hi float64) {
	if len(vals) == 0 {
		return 0, 1
	}
	slices.Sort(vals)
	n := len(vals)
	lo = vals[int(lowQuantile*float64(n-1))]
	hi = vals[int(math.Ceil(highQuantile*float64(n-1)))]
	if hi <= lo {
		hi = lo + 1
	}
	return lo, hi
}

// Quantiles returns the auto-contrast window of vals (which it sorts):
// their 0.1 and 99.9 percentiles, as ViewRange takes them; 0, 1 for
// none.
func Quantiles(vals []float64) (lo, hi float64) { return quantiles(vals) }

// ViewRange returns the 0.1 and 99.9 percentiles of the values view v
// shows now (from the best data in memory, as Render would draw it,
// sampling at most about 260,000 of its pixels): auto-contrast on what is
// on screen, as ImageJ's is on the current slice. ok is false when none of
// it is in memory. Of a composite it looks at channel v.C. It requests
// nothing.
func (r *Renderer) ViewRange(v View, p Source) (lo, hi float64, ok bool) {
	if len(v.Channels) > 0 {
		v.Channels = nil // a composite's channel v.C
	} else if chans := r.channelsOf(v, p.Meta()); chans != nil {
		v = ChannelView(v, chans[1]) // colour pixels: green, what the eye reads as brightness
	}
	v.Width, v.Height = max(0, min(maxViewport, v.Width)), max(0, min(maxViewport, v.Height))
	r.begin(v, p)
	r.collect = true
	defer func() { r.collect = false }()
	r.step = max(1, int(math.Ceil(math.Sqrt(float64(v.Width*v.Height)/(1<<18)))))
	r.vals = r.vals[:0]
	r.miss = r.miss[:0]
	r.fill(r.f.level, 0, v.Width, 0, v.Height)
	r.miss = r.miss[:0]
	vals := r.vals[:0]
	for _, x := range r.vals {
		if finite(x) {
			vals = append(vals, x)
		}
	}
	if len(vals) == 0 {
		return 0, 0, false
	}
	lo, hi = quantiles(vals)
	return lo, hi, true
}
