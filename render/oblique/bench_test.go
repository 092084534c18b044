package oblique

import (
	"context"
	"image"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"vastview/levels"
	"vastview/loader"
	"vastview/render"
)

// hashSource is a loader.Source whose samples are a hash of their
// position, computed on read.
type hashSource struct{ meta *loader.Meta }

func (s *hashSource) Meta() *loader.Meta { return s.meta }
func (s *hashSource) Close() error       { return nil }

func (s *hashSource) ReadChunk(_ context.Context, level int, idx []int, dst []byte) error {
	l := &s.meta.Levels[level]
	c := l.Chunk
	i := 0
	for z := 0; z < c[0]; z++ {
		for y := 0; y < c[1]; y++ {
			for x := 0; x < c[2]; x++ {
				p := ((idx[0]*c[0]+z)*l.Shape[1]+idx[1]*c[1]+y)*l.Shape[2] + idx[2]*c[2] + x
				v := uint16(uint32(p*2654435761) >> 22)
				dst[i], dst[i+1] = byte(v), byte(v>>8)
				i += 2
			}
		}
	}
	return nil
}

// benchVolume is a 64×1280×1280 uint16 volume in 16×256×256 chunks.
func benchVolume(b *testing.B) *levels.Pyramid {
	m := loader.NewMeta("mem", "ZYX", []int{64, 1280, 1280}, loader.Uint16, []int{16, 256, 256}, nil, nil)
	p, err := levels.Open(&hashSource{m}, levels.Options{CacheBytes: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	return p
}

// untilComplete calls draw until it reports a complete picture, waiting
// for arrivals in between (draw requests what it misses).
func untilComplete(b testing.TB, p *levels.Pyramid, draw func() bool) {
	b.Helper()
	events, stop := p.Subscribe()
	defer stop()
	deadline := time.After(60 * time.Second)
	for !draw() {
		select {
		case e := <-events:
			if e.Err != nil {
				b.Fatalf("load failed: %v", e.Err)
			}
		case <-deadline:
			b.Fatal("never complete")
		}
	}
}

// loopCPU runs b's loop over frame on one thread and reports, besides
// the time per frame, the CPU time that thread spent per frame
// (cpu-ns/op): on a loaded machine the wall-clock time counts the time
// the thread waited for a core, the CPU time does not. It also reports
// the CPU time the whole process spent per frame (proc-cpu-ns/op): what
// a frame drawn by several workers costs in all.
func loopCPU(b *testing.B, frame func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0, p0 := threadCPU(), processCPU()
	n := 0
	for b.Loop() {
		frame()
		n++
	}
	if t1 := threadCPU(); t0 > 0 && n > 0 {
		b.ReportMetric(float64(t1-t0)/float64(n), "cpu-ns/op")
	}
	if p1 := processCPU(); p0 > 0 && n > 0 {
		b.ReportMetric(float64(p1-p0)/float64(n), "proc-cpu-ns/op")
	}
}

// BenchmarkView1024 draws a 1024×1024 view of a uint16 volume from chunks
// in memory, one sample per pixel: an XY plane through the axis-aligned
// renderer, and a plane turned 20° about Z and 3° about X (crossing 53
// planes) sampled and coloured as the window draws it: nearest, and
// trilinear rounded to the data's type (Rounded), both through the
// type's colour table; and trilinear in float32 coloured value by value
// (linear-float32: what data of more than 16 bits takes). The axis-aligned
// renderer draws a frame on one goroutine; the sampler on one, and with
// -2workers in two bands of rows at once, as the window samples a turned
// view on a machine of two cores or more.
func BenchmarkView1024(b *testing.B) {
	p := benchVolume(b)
	cm, _ := render.ColormapNamed("viridis")
	b.Run("axis-aligned", func(b *testing.B) {
		v := render.View{Z: 32, Zoom: 1, Center: render.Point{Col: 640, Row: 640}, Lo: 10, Hi: 900,
			Colormap: "viridis", Width: 1024, Height: 1024}
		var r render.Renderer
		untilComplete(b, p, func() bool { _, info := r.Render(v, p, 1); return info.Complete })
		b.SetBytes(1024 * 1024 * 4)
		b.ReportAllocs()
		loopCPU(b, func() {
			if _, info := r.Render(v, p, 1); !info.Complete {
				b.Fatal("incomplete")
			}
		})
	})
	u, v, _ := Basis([]Turn{{'z', 20}, {'x', 3}})
	pl := Plane{Center: Vec{32, 640, 640}, U: u, V: v, Pixel: 1, W: 1024, H: 1024}
	for _, c := range []struct {
		name    string
		in      Interp
		flt     bool
		workers int
	}{{"nearest", Nearest, false, 1}, {"linear", Linear, false, 1}, {"linear-float32", Linear, true, 1},
		{"nearest-2workers", Nearest, false, 2}, {"linear-2workers", Linear, false, 2}} {
		b.Run("oblique-"+c.name, func(b *testing.B) {
			sm := Sampler{Workers: c.workers}
			out := make([]float32, pl.W*pl.H)
			untilComplete(b, p, func() bool {
				info := sm.Float(out, pl, p, 0, c.in)
				sm.Request(p, levels.Visible, 1)
				return info.Complete
			})
			var pt render.Painter
			img := image.NewRGBA(image.Rect(0, 0, 1024, 1024))
			nat := make([]byte, 1024*1024*2)
			flt := make([]float32, 1024*1024)
			fb := unsafeBytes(flt)
			b.SetBytes(1024 * 1024 * 4)
			b.ReportAllocs()
			loopCPU(b, func() {
				var info Info
				switch {
				case c.flt:
					info = sm.Float(flt, pl, p, 0, c.in)
					pt.Paint(img.Pix, fb, loader.Float32, 10, 900, cm)
				case c.in == Linear:
					info = sm.Rounded(nat, pl, p, 0)
					pt.Paint(img.Pix, nat, loader.Uint16, 10, 900, cm)
				default:
					info = sm.Native(nat, pl, p, 0)
					pt.Paint(img.Pix, nat, loader.Uint16, 10, 900, cm)
				}
				if !info.Complete {
					b.Fatal("incomplete")
				}
			})
		})
	}
}

func unsafeBytes(f []float32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(f))), 4*len(f))
}
