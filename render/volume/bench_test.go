package volume

import (
	"fmt"
	"image"
	"testing"

	"vastview/loader"
	"vastview/render/oblique"
)

// benchVolume is a 256³ volume of dt in 64³ chunks, every chunk in memory.
func benchVolume(dt loader.DType) *memSrc {
	s := newSrc(dt, []int{256, 256, 256}, []int{64, 64, 64}, nil, func(z, y, x int) float64 {
		return float64((z*131 + y*71 + x*17) % 251)
	})
	for _, l := range []int{0} {
		g := s.meta.Levels[l].Grid()
		for z := 0; z < g[0]; z++ {
			for y := 0; y < g[1]; y++ {
				for x := 0; x < g[2]; x++ {
					s.Get(l, []int{z, y, x})
				}
			}
		}
	}
	return s
}

// BenchmarkMIP casts 256² rays through a turned 256³ volume with one
// worker: the samples per second of one core, beside copy() of the bytes
// they read.
func BenchmarkMIP(b *testing.B) {
	for _, dt := range []loader.DType{loader.Uint8, loader.Uint16} {
		s := benchVolume(dt)
		for _, in := range []oblique.Interp{oblique.Nearest, oblique.Linear} {
			b.Run(fmt.Sprintf("%v/%v", dt, in), func(b *testing.B) {
				p := planeOf(s.meta, []oblique.Turn{{Axis: 'y', Deg: 25}, {Axis: 'x', Deg: 15}}, 256, 256, 1)
				dst := make([]float32, p.W*p.H)
				r := Renderer{Workers: 1}
				defer r.Close()
				o := Options{Mode: MIP, Interp: in}
				info := r.Render(dst, p, s, 0, o)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					info = r.Render(dst, p, s, 0, o)
				}
				b.ReportMetric(float64(info.Samples)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Msamples/s")
			})
		}
		b.Run(fmt.Sprintf("%v/copy", dt), func(b *testing.B) {
			src := s.arrays[0]
			dst := make([]byte, len(src))
			b.SetBytes(int64(len(src)))
			for i := 0; i < b.N; i++ {
				copy(dst, src)
			}
			b.ReportMetric(float64(len(src)/dt.Size())*float64(b.N)/b.Elapsed().Seconds()/1e6, "Msamples/s")
		})
	}
}

// BenchmarkLabels renders a turned 256³ uint16 volume (MIP and Iso) with
// one worker, without labels and with a label volume of the same
// geometry (a few balls, mostly 0): what the labels pass costs.
func BenchmarkLabels(b *testing.B) {
	s := benchVolume(loader.Uint16)
	lab := newSrc(loader.Uint16, []int{256, 256, 256}, []int{64, 64, 64}, nil, func(z, y, x int) float64 {
		for i, c := range [][3]int{{60, 80, 100}, {150, 170, 90}, {200, 60, 200}} {
			dz, dy, dx := z-c[0], y-c[1], x-c[2]
			if dz*dz+dy*dy+dx*dx < 40*40 {
				return float64(i + 1)
			}
		}
		return 0
	})
	for _, mode := range []Mode{MIP, Iso} {
		for _, labels := range []bool{false, true} {
			b.Run(fmt.Sprintf("%v/labels=%v", mode, labels), func(b *testing.B) {
				p := planeOf(s.meta, []oblique.Turn{{Axis: 'y', Deg: 25}, {Axis: 'x', Deg: 15}}, 256, 256, 1)
				dst := image.NewRGBA(image.Rect(0, 0, p.W, p.H))
				r := Renderer{Workers: 1}
				defer r.Close()
				o := Options{Mode: mode, Window: [2]float64{0, 250}, Iso: 200}
				if labels {
					o.Labels = []Labels{{Src: lab}}
				}
				r.RenderRGBA(dst, p, s, 0, o, nil)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					r.RenderRGBA(dst, p, s, 0, o, nil)
				}
			})
		}
	}
}
