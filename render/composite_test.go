package render

import (
	"math"
	"testing"

	"vastview/levels"
	"vastview/loader"
)

// additive is the composite's reference, worked out independently of the
// renderer's tables: each channel's value through its window to an entry
// 0..255 (rounded), that entry along the ramp to the channel's colour,
// the colours summed and clamped at 255.
func additive(vals []float64, chans []Channel) [4]uint8 {
	var sum [3]int
	for i, ch := range chans {
		c, _ := ParseColor(ch.Colormap)
		f := (vals[i] - ch.Lo) * 255 / (ch.Hi - ch.Lo)
		e := int(math.Max(0, math.Min(255, f)) + 0.5)
		for j := range sum {
			sum[j] += (int(c[j])*e + 127) / 255
		}
	}
	return [4]uint8{uint8(min(255, sum[0])), uint8(min(255, sum[1])), uint8(min(255, sum[2])), 255}
}

// TestCompositeAddsChannels checks a composite view: every pixel is the
// clamped sum of its channels' colours, each through its own window, for
// 8- and 16-bit samples and floats, for two to five channels (past the
// four added at once), drawn from chunks in memory at full resolution and
// from a computed level, allocation-free once drawn; PlaneComposite draws
// the same.
func TestCompositeAddsChannels(t *testing.T) {
	colours := []string{"#00ff00", "#ff00ff", "#00ffff", "#ffff00", "#ff8000"}
	for _, dt := range []loader.DType{loader.Uint8, loader.Uint16, loader.Float32} {
		for _, n := range []int{1, 2, 3, 4, 5} {
			shape := []int{n, 300, 520}
			val := func(p []int) float64 { return float64((p[0]*71 + p[1]*13 + p[2]*7) % 251) }
			m := loader.NewMeta("mem", "CYX", shape, dt, []int{1, 128, 256}, nil, nil)
			p := openPyramid(t, &memSource{meta: m, arrays: [][]byte{makeArray(shape, dt, val)}}, levels.Options{})
			var chans []Channel
			for c := 0; c < n; c++ {
				chans = append(chans, Channel{C: c, Lo: float64(10 * c), Hi: float64(150 + 20*c), Colormap: colours[c]})
			}
			v := View{Zoom: 1, Center: Point{65, 45}, Width: 130, Height: 90, Channels: chans}
			var r Renderer
			img, info := renderComplete(t, &r, v, p, 1)
			if info.Level != 0 {
				t.Fatalf("%v ×%d: level %d", dt, n, info.Level)
			}
			vals := make([]float64, n)
			var planes [][]byte
			for c := 0; c < n; c++ {
				planes = append(planes, makeArray([]int{90, 130}, dt, func(q []int) float64 { return val([]int{c, q[0], q[1]}) }))
			}
			ref := PlaneComposite(planes, dt, 130, 90, chans)
			for y := 0; y < 90; y++ {
				for x := 0; x < 130; x++ {
					for c := range vals {
						vals[c] = val([]int{c, y, x})
					}
					want := additive(vals, chans)
					if got := pixel(img, x, y); got != want {
						t.Fatalf("%v ×%d: pixel (%d,%d) = %v, want %v", dt, n, x, y, got, want)
					}
					if got := pixel(ref, x, y); got != want {
						t.Fatalf("%v ×%d: PlaneComposite (%d,%d) = %v, want %v", dt, n, x, y, got, want)
					}
				}
			}
			// Zoomed out: level 1, each channel's sample the mean of its block.
			v.Zoom, v.Width, v.Height = 0.5, 65, 45
			img, info = renderComplete(t, &r, v, p, 2)
			if info.Level != 1 {
				t.Fatalf("zoomed out: level %d", info.Level)
			}
			for _, q := range [][2]int{{0, 0}, {20, 33}, {44, 64}} {
				y, x := q[0], q[1]
				for c := range vals {
					s := 0.0
					for _, d := range [][2]int{{0, 0}, {0, 1}, {1, 0}, {1, 1}} {
						s += val([]int{c, 2*y + d[0], 2*x + d[1]})
					}
					vals[c] = s / 4
					if !dt.Float() {
						vals[c] = float64(int(s+2) / 4)
					}
				}
				if got, want := pixel(img, x, y), additive(vals, chans); got != want {
					t.Errorf("%v ×%d: level-1 pixel (%d,%d) = %v, want %v", dt, n, x, y, got, want)
				}
			}
			if a := testing.AllocsPerRun(10, func() { r.Render(v, p, 2) }); a != 0 {
				t.Errorf("%v ×%d: %v allocations per composite frame", dt, n, a)
			}
		}
	}
}

// TestCompositeDrawsMissingChannelsCoarser checks a composite of which
// one channel's full-resolution chunks are not in memory: that channel is
// drawn from its coarser level and added to the others, the frame is
// incomplete, and its missing chunks, the only ones asked for, come
// nearest the centre first.
func TestCompositeDrawsMissingChannelsCoarser(t *testing.T) {
	shape := []int{2, 64, 64}
	m := loader.NewMeta("mem", "CYX", shape, loader.Uint8, []int{1, 16, 16}, nil, nil)
	m.Levels = append(m.Levels, loader.Level{Shape: []int{2, 32, 32}, Chunk: []int{1, 16, 16},
		Scale: []float64{1, 2, 2}, Translation: []float64{0, 0.5, 0.5}})
	f := newFake(m)
	val := func(p []int) float64 { return float64(40 + p[0]*100) } // flat: channel 0 is 40, channel 1 is 140
	src := &memSource{meta: m, arrays: [][]byte{makeArray(shape, loader.Uint8, val), makeArray([]int{2, 32, 32}, loader.Uint8, val)}}
	f.load(t, src, 1)
	f.loadWhere(t, src, 0, func(idx []int) bool { return idx[0] == 0 })
	chans := []Channel{{C: 0, Lo: 0, Hi: 255, Colormap: "#ff0000"}, {C: 1, Lo: 0, Hi: 255, Colormap: "#00ff00"}}
	v := View{Zoom: 1, Center: Point{32, 32}, Width: 64, Height: 64, Channels: chans}
	var r Renderer
	img, info := r.Render(v, f, 1)
	if info.Complete || info.Missing != 16 || info.Unfilled != 0 {
		t.Fatalf("info %+v, want 16 missing, nothing unfilled", info)
	}
	if got, want := pixel(img, 10, 50), [4]uint8{40, 140, 0, 255}; got != want {
		t.Errorf("pixel = %v, want %v", got, want)
	}
	reqs := f.requested()
	if len(reqs) != 16 {
		t.Fatalf("%d chunks asked for, want 16", len(reqs))
	}
	for _, q := range reqs {
		if q.level != 0 || q.idx[0] != 1 {
			t.Fatalf("asked for %v of level %d", q.idx, q.level)
		}
	}
	if c := reqs[0].idx; !(c[1] == 1 || c[1] == 2) || !(c[2] == 1 || c[2] == 2) {
		t.Errorf("first chunk asked for is %v, not one of the centre's", c)
	}
}
