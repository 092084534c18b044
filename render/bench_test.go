package render

import (
	"encoding/binary"
	"image"
	"math"
	"testing"
	"time"

	"vastview/levels"
	"vastview/loader"
)

func BenchmarkPlaneUint16(b *testing.B) {
	buf := make([]byte, 2048*2048*2)
	cm, _ := ColormapNamed("gray")
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		Plane(buf, loader.Uint16, 2048, 2048, 0, 1000, cm)
	}
}

// benchPyramid is a 2048×2048 plane of dt in 256×256 chunks, with every
// chunk the benchmarked views need in memory.
func benchPyramid(b *testing.B, dt loader.DType, views ...View) *levels.Pyramid {
	shape := []int{2048, 2048}
	m := loader.NewMeta("mem", "YX", shape, dt, []int{256, 256}, nil, nil)
	src := &memSource{meta: m, arrays: [][]byte{makeArray(shape, dt, hashByte)}}
	p := openPyramid(b, src, levels.Options{})
	var r Renderer
	for _, v := range views {
		renderComplete(b, &r, v, p, 1)
	}
	return p
}

// BenchmarkRender1024 draws a 1024×1024 viewport: at zoom 1 (level 0,
// one sample per pixel), at zoom 0.5 (level 1) and at zoom 3 (level 0
// magnified), from chunks in memory.
func BenchmarkRender1024(b *testing.B) {
	for _, c := range []struct {
		name string
		dt   loader.DType
		zoom float64
	}{
		{"uint16/zoom1", loader.Uint16, 1},
		{"uint16/zoom0.5", loader.Uint16, 0.5},
		{"uint16/zoom3", loader.Uint16, 3},
		{"uint8/zoom1", loader.Uint8, 1},
		{"float32/zoom1", loader.Float32, 1},
	} {
		b.Run(c.name, func(b *testing.B) {
			v := View{Zoom: c.zoom, Center: Point{1024, 1024}, Lo: 10, Hi: 200, Colormap: "viridis", Width: 1024, Height: 1024}
			p := benchPyramid(b, c.dt, v)
			var r Renderer
			r.Render(v, p, 1)
			b.SetBytes(1024 * 1024 * 4)
			b.ReportAllocs()
			for b.Loop() {
				if _, info := r.Render(v, p, 1); !info.Complete {
					b.Fatal("incomplete")
				}
			}
		})
	}
}

// BenchmarkCopyFrame is the yardstick for BenchmarkRender1024: copy() of
// a 1024×1024 RGBA frame.
func BenchmarkCopyFrame(b *testing.B) {
	src, dst := make([]byte, 1024*1024*4), make([]byte, 1024*1024*4)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		copy(dst, src)
	}
}

// BenchmarkComposite1024 draws a 1024×1024 viewport of a three-channel
// uint16 plane at zoom 1 as one channel and as a composite of the three,
// from chunks in memory: the composite's cost against one channel's.
func BenchmarkComposite1024(b *testing.B) {
	shape := []int{3, 2048, 2048}
	m := loader.NewMeta("mem", "CYX", shape, loader.Uint16, []int{1, 256, 256}, nil, nil)
	src := &memSource{meta: m, arrays: [][]byte{makeArray(shape, loader.Uint16, hashByte)}}
	p := openPyramid(b, src, levels.Options{})
	one := View{Zoom: 1, Center: Point{1024, 1024}, Lo: 10, Hi: 200, Colormap: "#00ff00", Width: 1024, Height: 1024}
	three := one
	three.Channels = []Channel{{0, 10, 200, "#ff00ff"}, {1, 20, 220, "#00ff00"}, {2, 5, 150, "#00ffff"}}
	for _, c := range []struct {
		name string
		v    View
	}{{"1channel", one}, {"3channels", three}} {
		b.Run(c.name, func(b *testing.B) {
			var r Renderer
			renderComplete(b, &r, c.v, p, 1)
			b.SetBytes(1024 * 1024 * 4)
			b.ReportAllocs()
			for b.Loop() {
				if _, info := r.Render(c.v, p, 1); !info.Complete {
					b.Fatal("incomplete")
				}
			}
		})
	}
}

// BenchmarkCompositeRatio draws the views of BenchmarkComposite1024, one
// channel and the composite of three, in turn, and reports the fastest of
// each and their ratio: both measured in the same moments, by the CPU
// time of the drawing thread where it is known (on a busy machine a frame
// of several time slices is interrupted more often than a short one, so
// wall times would favour the single channel), else by wall time. It does
// so for two kinds of data: noise (every sample independent, 0..255) and
// microscope (smooth structure of a few thousand counts with Poisson-like
// noise, windowed to its range).
func BenchmarkCompositeRatio(b *testing.B) {
	shape := []int{3, 2048, 2048}
	for _, c := range []struct {
		name   string
		value  func([]int) float64
		lo, hi float64
	}{{"noise", hashByte, 10, 200}, {"microscope", microscopeValue, 300, 3500}} {
		b.Run(c.name, func(b *testing.B) {
			m := loader.NewMeta("mem", "CYX", shape, loader.Uint16, []int{1, 256, 256}, nil, nil)
			src := &memSource{meta: m, arrays: [][]byte{makeArray(shape, loader.Uint16, c.value)}}
			p := openPyramid(b, src, levels.Options{})
			one := View{Zoom: 1, Center: Point{1024, 1024}, Lo: c.lo, Hi: c.hi, Colormap: "#00ff00", Width: 1024, Height: 1024}
			three := one
			three.Channels = []Channel{{0, c.lo, c.hi, "#ff00ff"}, {1, c.lo + 10, c.hi + 20, "#00ff00"}, {2, c.lo - 5, c.hi - 50, "#00ffff"}}
			compositeRatio(b, p, one, three)
		})
	}
}

// BenchmarkCompositeColour8 is BenchmarkCompositeRatio for three 8-bit
// channels (red, green and blue, as colour pixels and video frames are
// drawn) at zoom 0.92, where the columns skip samples: one channel beside
// the three, by the drawing thread's CPU time.
func BenchmarkCompositeColour8(b *testing.B) {
	shape := []int{3, 2048, 2048}
	m := loader.NewMeta("mem", "CYX", shape, loader.Uint8, []int{1, 256, 256}, nil, nil)
	src := &memSource{meta: m, arrays: [][]byte{makeArray(shape, loader.Uint8, hashByte)}}
	p := openPyramid(b, src, levels.Options{})
	one := View{Zoom: 0.92, Center: Point{1024, 1024}, Lo: 0, Hi: 255, Colormap: "#00ff00", Width: 1024, Height: 1024}
	three := one
	three.Channels = []Channel{{0, 0, 255, "#ff0000"}, {1, 0, 255, "#00ff00"}, {2, 0, 255, "#0000ff"}}
	compositeRatio(b, p, one, three)
}

// microscopeValue is a sample like a fluorescence image's: a background
// of a few hundred counts, smooth blobs of a few thousand, each channel
// its own, and noise growing with the square root of the signal.
func microscopeValue(pos []int) float64 {
	c, y, x := float64(pos[0]), float64(pos[1]), float64(pos[2])
	s := math.Sin(x/37+c) * math.Cos(y/53-2*c)
	signal := 400 + 2600*s*s
	noise := (hashByte(pos) - 127.5) / 74 // about unit spread
	return max(0, signal+noise*math.Sqrt(signal))
}

// compositeRatio times views one and three of p, in turn, and reports the
// fastest of each and their ratio (see BenchmarkCompositeRatio).
func compositeRatio(b *testing.B, p *levels.Pyramid, one, three View) {
	var r1, r3 Renderer
	renderComplete(b, &r1, one, p, 1)
	renderComplete(b, &r3, three, p, 1)
	clock, unlock, cpu := threadCPU()
	defer unlock()
	if !cpu {
		t0 := time.Now()
		clock = func() time.Duration { return time.Since(t0) }
	}
	best := [2]time.Duration{time.Hour, time.Hour}
	for b.Loop() {
		for i, c := range []struct {
			r *Renderer
			v View
		}{{&r1, one}, {&r3, three}} {
			t0 := clock()
			if _, info := c.r.Render(c.v, p, 1); !info.Complete {
				b.Fatal("incomplete")
			}
			best[i] = min(best[i], clock()-t0)
		}
	}
	b.ReportMetric(float64(best[0].Microseconds())/1e3, "ms-1channel")
	b.ReportMetric(float64(best[1].Microseconds())/1e3, "ms-3channels")
	b.ReportMetric(float64(best[1])/float64(best[0]), "ratio")
}

// BenchmarkLabelColouring times the colouring pass alone (OverlayLabels,
// filled, opacity 0.7) over a 1024×1024 picture of BenchmarkLabels1024
// and its ids, the fastest pass by the CPU time of the drawing thread
// where it is known, beside the fastest copy of the picture's pixels.
func BenchmarkLabelColouring(b *testing.B) {
	const w, h = 1024, 1024
	img, ids := image.NewRGBA(image.Rect(0, 0, w, h)), image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			i := 4 * (y*w + x)
			binary.LittleEndian.PutUint32(ids.Pix[i:], uint32((y/80)*30+x/80))
			g := uint8(hashByte([]int{y, x}))
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = g, g, g, 255
		}
	}
	dst := image.NewRGBA(img.Rect)
	clock, unlock, cpu := threadCPU()
	defer unlock()
	if !cpu {
		t0 := time.Now()
		clock = func() time.Duration { return time.Since(t0) }
	}
	best := [2]time.Duration{time.Hour, time.Hour}
	for b.Loop() {
		t0 := clock()
		copy(dst.Pix, img.Pix)
		t1 := clock()
		OverlayLabels(dst, ids, LabelStyle{Opacity: 0.7})
		t2 := clock()
		best[0], best[1] = min(best[0], t1-t0), min(best[1], t2-t1)
	}
	b.ReportMetric(float64(best[0].Microseconds())/1e3, "ms-copy")
	b.ReportMetric(float64(best[1].Microseconds())/1e3, "ms-colouring")
}

// BenchmarkLabels1024 draws a 1024×1024 viewport of a uint16 plane as one
// channel, and the same with a label image at half its resolution laid
// over it (ids drawn, then coloured, filled or outlined, and blended):
// the cost of a label layer against the picture's own.
func BenchmarkLabels1024(b *testing.B) {
	shape := []int{2048, 2048}
	m := loader.NewMeta("mem", "YX", shape, loader.Uint16, []int{256, 256}, nil, nil)
	p := openPyramid(b, &memSource{meta: m, arrays: [][]byte{makeArray(shape, loader.Uint16, hashByte)}}, levels.Options{})
	lshape := []int{1024, 1024}
	lm := loader.NewMeta("mem", "YX", lshape, loader.Uint16, []int{256, 256}, []float64{2, 2}, nil)
	lm.Label = true
	blobs := func(pos []int) float64 { return float64((pos[0]/40)*30 + pos[1]/40) }
	lp := openPyramid(b, &memSource{meta: lm, arrays: [][]byte{makeArray(lshape, loader.Uint16, blobs)}}, levels.Options{})
	al, err := Align(m, lm)
	if err != nil {
		b.Fatal(err)
	}
	v := View{Zoom: 1, Center: Point{1024, 1024}, Lo: 10, Hi: 200, Colormap: "#00ff00", Width: 1024, Height: 1024}
	lv, _ := al.View(v, m, 0)
	for _, c := range []struct {
		name    string
		labels  bool
		outline bool
	}{{"picture", false, false}, {"filled", true, false}, {"outlined", true, true}} {
		b.Run(c.name, func(b *testing.B) {
			var r, lr Renderer
			renderComplete(b, &r, v, p, 1)
			if c.labels {
				renderLabelsComplete(b, &lr, lv, lp, 1)
			}
			b.SetBytes(1024 * 1024 * 4)
			b.ReportAllocs()
			for b.Loop() {
				img, info := r.Render(v, p, 1)
				if !info.Complete {
					b.Fatal("incomplete")
				}
				if c.labels {
					ids, info := lr.RenderLabels(lv, lp, 1)
					if !info.Complete {
						b.Fatal("labels incomplete")
					}
					OverlayLabels(img, ids, LabelStyle{Opacity: 0.7, Outline: c.outline})
				}
			}
		})
	}
}
