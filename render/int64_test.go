package render

import (
	"encoding/binary"
	"math"
	"testing"

	"vastview/loader"
)

// ids64 are 64-bit label ids: neighbours beyond 2^53 that a float64 cannot
// tell apart, ids 255 apart (one colour), the extremes.
var ids64 = []uint64{0, 1, 2, 256, 1<<60 + 1, 1<<60 + 2, 1<<60 + 1 + 255, 1<<63 + 5, math.MaxUint64}

// glasbeyOf is the colour the glasbey colormap gives id: entry
// 1 + (id-1) mod 255, black for 0.
func glasbeyOf(id uint64, signed bool) [3]uint8 {
	if id == 0 {
		return [3]uint8{}
	}
	cm, _ := ColormapNamed("glasbey")
	if signed && int64(id) < 0 {
		m := (int64(id)%255 + 255 - 1) % 255 // (id-1) mod 255 without overflow
		return cm.LUT[1+m]
	}
	return cm.LUT[1+(id-1)%255]
}

// TestLabelColours64Bit: every 64-bit id gets the colour of its own value,
// in the picture (Plane and a Renderer's rows) and in the id images label
// layers are drawn from (a key that is never 0 and has the same colour).
func TestLabelColours64Bit(t *testing.T) {
	cm, _ := ColormapNamed("glasbey")
	for _, dt := range []loader.DType{loader.Uint64, loader.Int64} {
		buf := make([]byte, 8*len(ids64))
		for i, id := range ids64 {
			binary.LittleEndian.PutUint64(buf[8*i:], id)
		}
		img := Plane(buf, dt, len(ids64), 1, 0, 1, cm)
		r := &Renderer{}
		r.f.m = &loader.Meta{DType: dt}
		r.prepareColours(dt, 0, 1, cm)
		row := make([]byte, 4*len(ids64))
		cols := make([]int, len(ids64))
		for i := range cols {
			cols[i] = 8 * i
		}
		r.drawRow(row, buf, cols)
		for i, id := range ids64 {
			want := glasbeyOf(id, dt.Signed())
			if p := pixel(img, i, 0); [3]uint8{p[0], p[1], p[2]} != want {
				t.Errorf("%s id %d: Plane colour %v, want %v", dt, id, p, want)
			}
			if p := row[4*i : 4*i+3]; [3]uint8{p[0], p[1], p[2]} != want {
				t.Errorf("%s id %d: drawn colour %v, want %v", dt, id, p, want)
			}
			key := LabelKey(buf, dt, i)
			if (key == 0) != (id == 0) || id != 0 && LabelColour(key) != want {
				t.Errorf("%s id %d: key %d, colour %v, want %v", dt, id, key, LabelColour(key), want)
			}
			if id < 1<<31 && uint64(key) != id {
				t.Errorf("%s id %d: key %d, want the id", dt, id, key)
			}
		}
		if LabelKey(buf, dt, 4) == LabelKey(buf, dt, 5) {
			t.Errorf("%s: ids 2^60+1 and 2^60+2 share a key", dt)
		}
	}
	// A key depends on the id alone: the same in every call.
	b := binary.LittleEndian.AppendUint64(nil, 1<<40+7)
	if k := LabelKey(b, loader.Uint64, 0); k != LabelKey(append([]byte(nil), b...), loader.Uint64, 0) || k < 1<<31 {
		t.Errorf("key of 2^40+7: %d", k)
	}
}

// TestHistogram64Bit: int64 samples over their whole range are counted
// without overflow, every sample in a bin.
func TestHistogram64Bit(t *testing.T) {
	vals := []int64{math.MinInt64, -1, 0, 1, math.MaxInt64}
	buf := make([]byte, 8*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint64(buf[8*i:], uint64(v))
	}
	lo, hi := HistogramRange(Range{Min: math.MinInt64, Max: math.MaxInt64}, loader.Int64)
	h := PlaneHistogram(buf, loader.Int64, lo, hi, 64)
	var n int64
	for _, c := range h.Counts {
		n += c
	}
	if n != int64(len(vals)) || len(h.Counts) != 64 || h.Counts[0] != 1 || h.Counts[63] != 1 {
		t.Errorf("histogram of %d bins counts %d samples (first %d, last %d), want 5", len(h.Counts), n,
			h.Counts[0], h.Counts[len(h.Counts)-1])
	}
	// A narrow range keeps whole-number bins: one per value.
	small := PlaneHistogram(buf[8:32], loader.Int64, -1, 1, 64)
	if len(small.Counts) != 3 || small.Counts[0] != 1 || small.Counts[1] != 1 || small.Counts[2] != 1 {
		t.Errorf("bins of -1..1: %v", small.Counts)
	}
}
