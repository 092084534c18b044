package demo

import (
	"math"
	"sync"
)

// one is the fixed-point 1.0 of normalised squared distances.
const one = 1 << 20

// profBits is log2 of the profile tables' length.
const profBits = 10

// scene holds everything render needs, computed once: background tables,
// cells, rings and profile tables. It is read-only after newScene.
type scene struct {
	t, z, y, x int
	sz, sy, sx float64 // spacing

	bgZ, bgY, bgX []int32 // smooth background, separable
	cells         []cell
	rings         []ring

	// Radial profiles over s = (distance/radius)^2 in [0, 1), 0..65536.
	fill, shell [1 << profBits]int32
}

// cell is an ellipsoid, in sample units, that moves by v every time step.
type cell struct {
	cz, cy, cx float64
	vz, vy, vx float64
	rz, ry, rx float64
	amp        int32
	shell      bool
}

// ring is a torus in physical units: major radius big, tube radius r;
// its axis is Z (lying in an XY plane) or Y (lying in an XZ plane).
type ring struct {
	cz, cy, cx float64
	big, r     float64
	axisY      bool
	amp        int32
}

// rng is splitmix64: a tiny deterministic generator.
type rng uint64

func (r *rng) next() uint64 {
	*r += 0x9e3779b97f4a7c15
	z := uint64(*r)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// float returns a number in [lo, hi).
func (r *rng) float(lo, hi float64) float64 {
	return lo + (hi-lo)*float64(r.next()>>11)/(1<<53)
}

func newScene(t, z, y, x int, sz, sy, sx float64) *scene {
	s := &scene{t: t, z: z, y: y, x: x, sz: sz, sy: sy, sx: sx}
	s.bgZ = wave(z, 900, 0.8, 0.3)
	s.bgY = wave(y, 500, 1.7, 1.1)
	s.bgX = wave(x, 500, 1.3, 2.0)
	for i := range s.bgZ {
		s.bgZ[i] += 4500 - int32(1500*i/z) // dimmer with depth
	}
	for i := range s.fill {
		u := float64(i) / (1 << profBits)
		s.fill[i] = int32(65536 * (1 - u) * (1 - u))
		rim := math.Exp(-(u - 0.7) * (u - 0.7) / 0.01)
		s.shell[i] = int32(65536 * math.Min(1, 0.3*(1-u)*(1-u)+0.9*rim))
	}
	ext := math.Min(float64(z)*sz, math.Min(float64(y)*sy, float64(x)*sx))
	r := rng(20240531)
	for range 120 {
		c := cell{
			cz: r.float(0.1, 0.9) * float64(z), cy: r.float(0.1, 0.9) * float64(y), cx: r.float(0.1, 0.9) * float64(x),
			amp: int32(r.float(8000, 28000)), shell: r.next()%3 == 0,
		}
		base := r.float(0.03, 0.08) * ext
		c.rz, c.ry, c.rx = base*r.float(0.7, 1.3)/sz, base*r.float(0.7, 1.3)/sy, base*r.float(0.7, 1.3)/sx
		step := 0.03 * ext
		c.vz, c.vy, c.vx = r.float(-step, step)/sz, r.float(-step, step)/sy, r.float(-step, step)/sx
		s.cells = append(s.cells, c)
	}
	midZ, midY, midX := float64(z)*sz/2, float64(y)*sy/2, float64(x)*sx/2
	s.rings = []ring{
		{cz: midZ, cy: midY, cx: midX, big: 0.36 * ext, r: 0.012 * ext, amp: 22000},
		{cz: midZ, cy: 1.4 * midY, cx: midX, big: 0.2 * ext, r: 0.012 * ext, axisY: true, amp: 18000},
	}
	return s
}

// wave tabulates a smooth background variation of n samples.
func wave(n int, amp, cycles, phase float64) []int32 {
	t := make([]int32, n)
	for i := range t {
		t[i] = int32(amp * math.Cos(2*math.Pi*cycles*float64(i)/float64(n)+phase))
	}
	return t
}

// at returns the cell's centre at time point t.
func (c *cell) at(t int) (z, y, x float64) {
	ft := float64(t)
	return c.cz + c.vz*ft, c.cy + c.vy*ft, c.cx + c.vx*ft
}

// noiseLen is the period of the noise table; the table repeats its first
// chunkXY entries at the end so that a chunk row never wraps.
const noiseLen = 1 << 14

// noiseTable holds random texture values: an offset 0..1023 in the low 16
// bits and a signed gain -32..31 (in 256ths) in the high 16 bits. It is
// built on first use and read-only afterwards.
var noiseTable = sync.OnceValue(func() []int32 {
	t := make([]int32, noiseLen+chunkXY)
	r := rng(7)
	for i := range noiseLen {
		v := r.next()
		t[i] = int32(v&1023) | (int32(v>>10&63)-32)<<16
	}
	copy(t[noiseLen:], t)
	return t
})
