package render

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"vastview/loader"
)

func le16(vals ...int) []byte {
	b := make([]byte, 2*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
	}
	return b
}

func le32f(vals ...float32) []byte {
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

// dataHistogram is the histogram of buf over its own finite extremes.
func dataHistogram(buf []byte, dt loader.DType, bins int) Histogram {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range len(buf) / dt.Size() {
		if v := Sample(buf, dt, i); finite(v) {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if lo > hi {
		lo, hi = 0, 1
	}
	return PlaneHistogram(buf, dt, lo, hi, bins)
}

func checkHistogram(t *testing.T, h Histogram, lo, hi float64, counts []int64) {
	t.Helper()
	if h.Min != lo || h.Max != hi || !slices.Equal(h.Counts, counts) {
		t.Errorf("histogram [%g, %g] %v, want [%g, %g] %v", h.Min, h.Max, h.Counts, lo, hi, counts)
	}
}

func TestContrastHistogramUint8(t *testing.T) {
	// 0..255 in 256 bins: one bin per value.
	buf := []byte{0, 0, 1, 2, 2, 2, 255}
	want := make([]int64, 256)
	for _, v := range buf {
		want[v]++
	}
	checkHistogram(t, dataHistogram(buf, loader.Uint8, 256), 0, 256, want)
	// Values 10..13 in up to 256 bins: four bins, one per value.
	checkHistogram(t, dataHistogram([]byte{10, 13, 13, 11}, loader.Uint8, 256), 10, 14, []int64{1, 1, 0, 2})
	// Values 0..9 in 4 bins of 3 values: [0,3) [3,6) [6,9) [9,12).
	checkHistogram(t, dataHistogram([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, loader.Uint8, 4), 0, 12, []int64{3, 3, 3, 1})
}

func TestContrastHistogramUint16(t *testing.T) {
	// 0..4095 once each in 256 bins of 16 values.
	vals := make([]int, 4096)
	for i := range vals {
		vals[i] = i
	}
	want := make([]int64, 256)
	for i := range want {
		want[i] = 16
	}
	checkHistogram(t, dataHistogram(le16(vals...), loader.Uint16, 256), 0, 4096, want)
	// A constant image: one bin, and a range of width 1.
	checkHistogram(t, dataHistogram(le16(7, 7, 7), loader.Uint16, 256), 7, 8, []int64{3})
}

func TestContrastHistogramInt16(t *testing.T) {
	// -300..299 once each: 600 values in bins of 3 (the fewest values per
	// bin that needs at most 256 bins).
	vals := make([]int, 0, 600)
	for v := -300; v < 300; v++ {
		vals = append(vals, v)
	}
	want := make([]int64, 200)
	for i := range want {
		want[i] = 3
	}
	checkHistogram(t, dataHistogram(le16(vals...), loader.Int16, 256), -300, 300, want)
}

func TestContrastHistogramFloat32(t *testing.T) {
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	// Bins of 0.25 over [0, 1]; 1 falls in the last; NaN and ±Inf are not counted.
	buf := le32f(0, 0.25, 0.5, 0.75, 1, nan, inf, -inf, 0.1)
	checkHistogram(t, dataHistogram(buf, loader.Float32, 4), 0, 1, []int64{2, 1, 1, 2})
	// Constant: one non-empty bin.
	h := dataHistogram(le32f(3.5, 3.5, nan, 3.5), loader.Float32, 8)
	if !(h.Max > h.Min) || h.Min > 3.5 || h.Max < 3.5 {
		t.Errorf("constant 3.5: range [%g, %g]", h.Min, h.Max)
	}
	var nonEmpty int
	var total int64
	for _, n := range h.Counts {
		if n > 0 {
			nonEmpty++
		}
		total += n
	}
	if nonEmpty != 1 || total != 3 {
		t.Errorf("constant 3.5: counts %v, want 3 in one bin", h.Counts)
	}
	// Nothing finite: an empty histogram over a usable range.
	h = dataHistogram(le32f(nan, inf), loader.Float32, 8)
	if !(h.Max > h.Min) || slices.ContainsFunc(h.Counts, func(n int64) bool { return n != 0 }) {
		t.Errorf("no finite sample: %+v", h)
	}
	h = dataHistogram(nil, loader.Float32, 8)
	if !(h.Max > h.Min) || len(h.Counts) != 8 {
		t.Errorf("no sample: %+v", h)
	}
}

// Random data: every sample lies in the range, and each bin counts the
// samples between its edges.
func TestContrastHistogramRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vals := make([]int, 5000)
	for i := range vals {
		vals[i] = r.IntN(40000) - 20000
	}
	h := dataHistogram(le16(vals...), loader.Int16, 100)
	if len(h.Counts) > 100 {
		t.Fatalf("%d bins, asked for at most 100", len(h.Counts))
	}
	w := (h.Max - h.Min) / float64(len(h.Counts))
	if w != math.Trunc(w) {
		t.Errorf("integer data in bins %g wide", w)
	}
	for i, n := range h.Counts {
		var want int64
		for _, v := range vals {
			if f := float64(v); f >= h.Min+float64(i)*w && f < h.Min+float64(i+1)*w {
				want++
			}
		}
		if n != want {
			t.Errorf("bin %d counts %d, want %d", i, n, want)
		}
	}
	if h.Min != float64(slices.Min(vals)) || h.Max <= float64(slices.Max(vals)) {
		t.Errorf("range [%g, %g] for data in [%d, %d]", h.Min, h.Max, slices.Min(vals), slices.Max(vals))
	}
}

// TestPlaneHistogramOverAFixedRange bins samples outside the range into
// the end bins and counts them apart.
func TestPlaneHistogramOverAFixedRange(t *testing.T) {
	h := PlaneHistogram(le16(5, 10, 10, 20, 30, 99), loader.Uint16, 10, 29, 4)
	// 20 values in bins of 5: [10,15) [15,20) [20,25) [25,30).
	checkHistogram(t, h, 10, 30, []int64{3, 0, 1, 2})
	if h.Below != 1 || h.Above != 1 { // 30 is Max: the last bin
		t.Errorf("below %d above %d, want 1 and 1", h.Below, h.Above)
	}
	f := PlaneHistogram(le32f(-1, 0.5, 2), loader.Float32, 0, 1, 2)
	checkHistogram(t, f, 0, 1, []int64{1, 2})
	if f.Below != 1 || f.Above != 1 {
		t.Errorf("float below %d above %d", f.Below, f.Above)
	}
}

func TestHistogramRangeWidensWithinTheType(t *testing.T) {
	if lo, hi := HistogramRange(Range{Min: 10, Max: 250}, loader.Uint8); lo != 0 || hi != 255 {
		t.Errorf("uint8 [10, 250] widened to [%g, %g], want [0, 255]", lo, hi)
	}
	if lo, hi := HistogramRange(Range{Min: 1000, Max: 3000}, loader.Uint16); lo != 900 || hi != 3100 {
		t.Errorf("uint16 [1000, 3000] widened to [%g, %g], want [900, 3100]", lo, hi)
	}
	if lo, hi := HistogramRange(Range{Min: 7, Max: 7}, loader.Int16); lo != 7 || hi != 8 {
		t.Errorf("constant 7: [%g, %g]", lo, hi)
	}
	if lo, hi := HistogramRange(Range{Min: -1, Max: 1}, loader.Float32); lo != -1.1 || hi != 1.1 {
		t.Errorf("float [-1, 1] widened to [%g, %g]", lo, hi)
	}
}
