package bench

import (
	"context"
	"fmt"
	"image"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"vastview/levels"
	"vastview/loader"
	"vastview/render/oblique"
	"vastview/render/volume"
)

// memVolume is an oblique.Source over chunks in memory: the cached
// bricks a 3-D view draws from.
type memVolume struct {
	meta   *loader.Meta
	chunks map[[3]int][]byte
	all    []byte // every chunk, one after another
}

func (v *memVolume) Meta() *loader.Meta { return v.meta }
func (v *memVolume) Get(_ int, idx []int) []byte {
	return v.chunks[[3]int{idx[0], idx[1], idx[2]}]
}
func (v *memVolume) Request(levels.Priority, uint64, int, ...[]int) {}
func (v *memVolume) Failed(int, []int) error                        { return nil }

// newMemVolume is an n³ volume of dt in 64³ chunks, its values from
// value(z, y, x).
func newMemVolume(n int, dt loader.DType, value func(z, y, x int) float64) *memVolume {
	const c = 64
	m := loader.NewMeta("mem", "ZYX", []int{n, n, n}, dt, []int{c, c, c}, nil, nil)
	v := &memVolume{meta: m, chunks: map[[3]int][]byte{}}
	g := (n + c - 1) / c
	cb := c * c * c * dt.Size()
	v.all = make([]byte, g*g*g*cb)
	at := 0
	for cz := 0; cz < g; cz++ {
		for cy := 0; cy < g; cy++ {
			for cx := 0; cx < g; cx++ {
				d := v.all[at : at+cb : at+cb]
				at += cb
				i := 0
				for z := cz * c; z < cz*c+c; z++ {
					for y := cy * c; y < cy*c+c; y++ {
						for x := cx * c; x < cx*c+c; x++ {
							dt.Put(d, i, value(z, y, x))
							i++
						}
					}
				}
				v.chunks[[3]int{cz, cy, cx}] = d
			}
		}
	}
	return v
}

// benchRender measures the 3-D renderer on volumes whose chunks are all
// in memory: the samples per second of CPU time of one core (the
// thread's own CPU time, which other work on the machine inflates less
// than the elapsed time) for nearest and linear MIP over uint8 and uint16
// bricks, each beside a copy() of the same bytes timed the same way; the
// frame time with every worker; and what empty-space skipping saves on a
// mostly empty volume. The machine's load average is printed first.
func benchRender(_ context.Context, env *benchEnv) error {
	env.report("render.load_average_1min", loadAverage(), "")
	const n = 256
	turn := []oblique.Turn{{Axis: 'y', Deg: 25}, {Axis: 'x', Deg: 15}}
	r := rand.New(rand.NewPCG(3, 4))
	for _, dt := range []loader.DType{loader.Uint8, loader.Uint16} {
		env.progress("rendering a %d³ %v volume", n, dt)
		top := float64(uint64(1)<<(8*dt.Size()) - 1)
		v := newMemVolume(n, dt, func(z, y, x int) float64 { return float64(r.IntN(int(top) + 1)) })
		copyRate := env.copyRate(v.all, dt.Size())
		env.report("render.copy."+dt.String()+".msamples_per_core_s", copyRate/1e6, "M/s")
		for _, in := range []oblique.Interp{oblique.Nearest, oblique.Linear} {
			rate, err := env.castRate(v, turn, in)
			if err != nil {
				return err
			}
			name := "render.mip_" + in.String() + "." + dt.String()
			env.report(name+".msamples_per_core_s", rate/1e6, "M/s")
			env.report(name+".ratio_to_copy", rate/copyRate, "x")
		}
		if dt == loader.Uint16 {
			ms, err := env.frameMS(v, turn, volume.Options{Mode: volume.MIP}, false)
			if err != nil {
				return err
			}
			env.report(fmt.Sprintf("render.mip_nearest.uint16.frame_256x256.workers_%d.ms", runtime.GOMAXPROCS(0)), ms, "ms")
		}
	}
	env.progress("rendering a mostly empty volume")
	sparse := newMemVolume(n, loader.Uint16, func(z, y, x int) float64 {
		for _, c := range [][3]int{{60, 80, 100}, {180, 150, 60}, {120, 200, 190}} {
			if abs(z-c[0]) < 12 && abs(y-c[1]) < 20 && abs(x-c[2]) < 16 {
				return float64(2000 + (z*7+y*3+x)%1500)
			}
		}
		return float64((z*13 + y*7 + x) % 40)
	})
	for _, o := range []volume.Options{{Mode: volume.MIP}, {Mode: volume.Alpha, Window: [2]float64{100, 3500}, Opacity: 0.1}} {
		name := "render.sparse_" + o.Mode.String() + ".uint16.frame_256x256"
		with, err := env.frameMS(sparse, turn, o, false)
		if err != nil {
			return err
		}
		without, err := env.frameMS(sparse, turn, o, true)
		if err != nil {
			return err
		}
		env.report(name+".ms", with, "ms")
		env.report(name+".no_skipping.ms", without, "ms")
		env.report(name+".skipping_speedup", without/with, "x")
	}
	return nil
}

func abs(a int) int { return max(a, -a) }

// castRate is the samples per second of thread CPU time of nearest or
// linear MIP, one worker, every slice sampled: the median of env.repeat
// frames of 256² rays.
func (env *benchEnv) castRate(v *memVolume, turn []oblique.Turn, in oblique.Interp) (float64, error) {
	p := centredPlane(v.meta, turn, 256)
	dst := make([]float32, p.W*p.H)
	rd := volume.Renderer{Workers: 1, NoSkip: true}
	defer rd.Close()
	o := volume.Options{Mode: volume.MIP, Interp: in}
	clock, unlock := threadClock()
	defer unlock()
	rd.Render(dst, p, v, 0, o) // buffers
	var rates []float64
	for range max(3, env.repeat) {
		t0 := clock()
		info := rd.Render(dst, p, v, 0, o)
		d := clock() - t0
		if !info.Complete {
			return 0, fmt.Errorf("a frame of chunks in memory is incomplete")
		}
		rates = append(rates, float64(info.Samples)/d.Seconds())
	}
	slices.Sort(rates)
	return rates[len(rates)/2], nil
}

// copyRate is the samples per second of thread CPU time of copy() of b
// (samples of size bytes): the median of a few copies.
func (env *benchEnv) copyRate(b []byte, size int) float64 {
	dst := make([]byte, len(b))
	clock, unlock := threadClock()
	defer unlock()
	copy(dst, b)
	var rates []float64
	for range max(5, env.repeat) {
		t0 := clock()
		copy(dst, b)
		rates = append(rates, float64(len(b)/size)/(clock()-t0).Seconds())
	}
	slices.Sort(rates)
	return rates[len(rates)/2]
}

// frameMS is the median elapsed time of a frame of 256² rays with every
// worker, with or without empty-space skipping.
func (env *benchEnv) frameMS(v *memVolume, turn []oblique.Turn, o volume.Options, noSkip bool) (float64, error) {
	p := centredPlane(v.meta, turn, 256)
	dst := make([]float32, p.W*p.H)
	rd := volume.Renderer{NoSkip: noSkip}
	defer rd.Close()
	img := image.NewRGBA(image.Rect(0, 0, p.W, p.H))
	draw := func() error {
		var info volume.Info
		if o.Mode.Projects() {
			info = rd.Render(dst, p, v, 0, o)
		} else {
			info = rd.RenderRGBA(img, p, v, 0, o, nil)
		}
		if !info.Complete {
			return fmt.Errorf("a frame of chunks in memory is incomplete")
		}
		return nil
	}
	if err := draw(); err != nil {
		return 0, err
	}
	return env.median(draw)
}

// centredPlane is the plane through the centre of the volume of m,
// turned by ts, w×w samples of one unit.
func centredPlane(m *loader.Meta, ts []oblique.Turn, w int) oblique.Plane {
	n := oblique.Extent(m)
	p := oblique.Plane{W: w, H: w, Pixel: 1}
	p.U, p.V, _ = oblique.Basis(ts)
	for a := range p.Center {
		p.Center[a] = float64(n[a]-1) / 2
	}
	return p
}

// loadAverage is the machine's load average over the last minute (0
// where it is not known).
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}
