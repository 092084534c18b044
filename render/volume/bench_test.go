package volume

import (
	"fmt"
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
