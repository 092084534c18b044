package render

import (
	"math"

	"vastview/loader"
)

// Histogram counts samples in equal-width bins over [Min, Max]: with
// w = (Max-Min)/len(Counts), bin i holds the values in [Min+i·w,
// Min+(i+1)·w), the last bin also Max. Values below Min are counted in the
// first bin and in Below, values above Max in the last bin and in Above.
// Max > Min always.
type Histogram struct {
	Min, Max     float64
	Counts       []int64
	Below, Above int64
}

// HistogramRange is the value range a channel's histogram is drawn over:
// the channel's extremes in its coarsest level (whose means are a little
// narrower than the data), widened by a twentieth on each side, within the
// values the type can hold. Integer ranges have whole-number ends.
func HistogramRange(r Range, dt loader.DType) (lo, hi float64) {
	lo, hi = r.Min, r.Max
	if !(hi > lo) || !finite(hi-lo) {
		return lo, lo + 1
	}
	pad := (hi - lo) / 20
	lo, hi = lo-pad, hi+pad
	if !dt.Float() {
		tmin, tmax := dt.Limits()
		lo, hi = max(tmin, math.Floor(lo)), min(tmax, math.Ceil(hi))
	}
	return lo, hi
}

// PlaneHistogram counts the finite samples of buf, of type dt, in at most
// bins bins (at least one) over [lo, hi] (see Histogram for samples
// outside it). Integer data gets bins of a whole number of values each,
// starting at lo and ending past hi, so that every bin holds as many
// distinct values (one bin per value when the range is small); float data,
// and 64-bit integers over a range of 2^52 or more (where a float64 no
// longer holds every value), gets bins over [lo, hi], or [lo, lo+1] when hi
// is not above lo. It does no I/O and is safe
// for concurrent use.
func PlaneHistogram(buf []byte, dt loader.DType, lo, hi float64, bins int) Histogram {
	bins = max(1, bins)
	n := 0
	if s := dt.Size(); s > 0 {
		n = len(buf) / s
	}
	var h Histogram
	var binOf func(v float64) float64
	if dt.Float() || hi-lo >= 1<<52 {
		if !(hi > lo) || !finite(hi-lo) {
			hi = lo + 1
		}
		h = Histogram{Min: lo, Max: hi, Counts: make([]int64, bins)}
		// Halved, so that a range wider than the largest float64 still bins.
		w := (hi/2 - lo/2) / float64(bins)
		binOf = func(v float64) float64 { return (v/2 - lo/2) / w }
	} else {
		lo, hi = math.Floor(lo), math.Ceil(max(lo, hi))
		values := int64(hi-lo) + 1
		width := (values + int64(bins) - 1) / int64(bins)
		nb := (values + width - 1) / width
		h = Histogram{Min: lo, Max: lo + float64(nb*width), Counts: make([]int64, nb)}
		binOf = func(v float64) float64 { return (v - lo) / float64(width) }
	}
	last := len(h.Counts) - 1
	for i := range n {
		v := Sample(buf, dt, i)
		if !finite(v) {
			continue
		}
		f := binOf(v)
		switch {
		case v < h.Min:
			h.Below++
			f = 0
		case v > h.Max:
			h.Above++
			f = float64(last)
		}
		h.Counts[int(min(max(f, 0), float64(last)))]++
	}
	return h
}
