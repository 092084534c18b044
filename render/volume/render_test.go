package volume

import (
	"image"
	"math"
	"testing"

	"vastview/levels"
	"vastview/loader"
	"vastview/render"
	"vastview/render/oblique"
)

// planeOf is the plane of the volume's centre turned by ts, h×w samples
// of the smallest spacing.
func planeOf(m *loader.Meta, ts []oblique.Turn, h, w int, pixel float64) oblique.Plane {
	sp, n := oblique.Spacing(m), oblique.Extent(m)
	var p oblique.Plane
	p.U, p.V, _ = oblique.Basis(ts)
	for a := range p.Center {
		p.Center[a] = float64(n[a]-1) / 2 * sp[a]
	}
	p.W, p.H, p.Pixel = w, h, pixel
	return p
}

var turns = [][]oblique.Turn{
	nil,
	{{Axis: 'y', Deg: 90}},
	{{Axis: 'x', Deg: 90}},
	{{Axis: 'y', Deg: 31}, {Axis: 'x', Deg: 17}},
	{{Axis: 'z', Deg: 23}, {Axis: 'x', Deg: -64}, {Axis: 'y', Deg: 12}},
}

// Every projection equals the definition, for every interpolation and
// several turns, on anisotropic data, rendered by several workers in
// tiles.
func TestProjectionsMatchTheDefinition(t *testing.T) {
	s := newSrc(loader.Uint16, []int{19, 41, 70}, []int{5, 16, 16}, []float64{3, 1, 1.5}, hashed)
	for _, in := range []oblique.Interp{oblique.Nearest, oblique.Linear} {
		for ti, ts := range turns {
			for _, mode := range []Mode{MIP, MinIP, Mean} {
				p := planeOf(s.meta, ts, 45, 71, 1.3)
				var r Renderer
				r.Workers = 3
				dst := make([]float32, p.W*p.H)
				o := Options{Mode: mode, Interp: in, Step: 0.9}
				info := r.Render(dst, p, s, 0, o)
				r.Close()
				if !info.Complete || info.Missing != 0 {
					t.Fatalf("%v %v turn %d: %+v", in, mode, ti, info)
				}
				_, _, w := oblique.Basis(ts)
				bad := 0
				for i := 0; i < p.H; i++ {
					for j := 0; j < p.W; j++ {
						want := refRay(s, p.At(float64(i), float64(j)), w, 0.9, in, mode)
						got := float64(dst[i*p.W+j])
						if math.Abs(got-want) > 1e-3*max(1, math.Abs(want)) {
							if bad++; bad < 5 {
								t.Errorf("%v %v turn %d: ray (%d,%d) = %v, want %v", in, mode, ti, i, j, got, want)
							}
						}
					}
				}
			}
		}
	}
}

// Rendering again allocates nothing (with several workers, once each
// has met the tiles it takes).
func TestRenderAllocatesNothingAgain(t *testing.T) {
	s := newSrc(loader.Uint8, []int{20, 40, 40}, []int{8, 16, 16}, nil, hashed)
	p := planeOf(s.meta, turns[3], 40, 40, 1)
	dst := make([]float32, p.W*p.H)
	img := image.NewRGBA(image.Rect(0, 0, p.W, p.H))
	var r Renderer
	r.Workers = 1 // several take tiles in an order that changes from frame to frame
	defer r.Close()
	for _, mode := range []Mode{MIP, Mean, Alpha, Iso} {
		o := Options{Mode: mode, Window: [2]float64{0, 999}, Iso: 500}
		r.Render(dst, p, s, 0, o)
		r.RenderRGBA(img, p, s, 0, o, nil)
		if a := testing.AllocsPerRun(5, func() {
			r.Render(dst, p, s, 0, o)
			r.RenderRGBA(img, p, s, 0, o, nil)
		}); a != 0 {
			t.Errorf("%v: %v allocations per frame", mode, a)
		}
	}
	// Two workers: each allocates only the first times it meets a tile
	// that needs more room, so frames soon allocate nothing.
	r2 := Renderer{Workers: 2}
	defer r2.Close()
	o := Options{Mode: Iso, Window: [2]float64{0, 999}, Iso: 500}
	zero := 0
	for i := 0; i < 200 && zero < 3; i++ {
		if testing.AllocsPerRun(1, func() { r2.RenderRGBA(img, p, s, 0, o, nil) }) == 0 {
			zero++
		} else {
			zero = 0
		}
	}
	if zero < 3 {
		t.Error("with two workers, frames still allocate after 200")
	}
}

// What is not in memory comes from the coarser level, the picture says it
// is incomplete, and the chunks missing are listed nearest the centre
// first.
func TestMissingChunksFallBackAndAreListed(t *testing.T) {
	s := newSrc(loader.Uint16, []int{16, 32, 32}, []int{8, 8, 8}, nil, func(z, y, x int) float64 { return 100 })
	s.cached = func(level int, idx []int) bool { return level == 1 || idx[2] < 2 }
	p := planeOf(s.meta, nil, 32, 32, 1)
	var r Renderer
	defer r.Close()
	dst := make([]float32, p.W*p.H)
	info := r.Render(dst, p, s, 0, Options{Mode: MIP})
	if info.Complete || info.Missing == 0 {
		t.Fatalf("info %+v: want incomplete with missing chunks", info)
	}
	for i, v := range dst {
		if v != 100 {
			t.Fatalf("ray %d = %v, want 100 from level 1 where level 0 is missing", i, v)
		}
	}
	level, idxs := r.Missing()
	if level != 0 || len(idxs) != info.Missing {
		t.Fatalf("Missing: level %d, %d chunks; want level 0, %d", level, len(idxs), info.Missing)
	}
	for _, idx := range idxs {
		if idx[2] < 2 {
			t.Errorf("chunk %v is in memory but listed", idx)
		}
	}
	// The rays run along Z: the chunks nearest the central ray (x, y ≈ 16)
	// come first.
	if idx := idxs[0]; idx[1] != 1 && idx[1] != 2 || idx[2] != 2 {
		t.Errorf("first missing chunk %v, want one next to the centre", idx)
	}
	r.Request(s, 0, 1)
	if len(s.reqs) != info.Missing {
		t.Errorf("%d requests, want %d", len(s.reqs), info.Missing)
	}
}

// The clip box keeps the samples inside it; the clip plane the side its
// normal points to.
func TestClipping(t *testing.T) {
	s := newSrc(loader.Uint8, []int{10, 20, 20}, []int{4, 8, 8}, nil, func(z, y, x int) float64 { return float64(z + 1) })
	p := planeOf(s.meta, nil, 20, 20, 1)
	var r Renderer
	defer r.Close()
	dst := make([]float32, p.W*p.H)
	r.Render(dst, p, s, 0, Options{Mode: MIP, Clip: Box{Lo: [3]int{2, 5, 0}, Hi: [3]int{6, 20, 20}}})
	for i := 0; i < p.H; i++ {
		want := float32(6)
		if i < 5 {
			want = 0
		}
		if dst[i*p.W+3] != want {
			t.Errorf("row %d: clipped MIP %v, want %v", i, dst[i*p.W+3], want)
		}
	}
	// Keep z ≤ 3 (the normal points to −z).
	cp := &ClipPlane{Point: oblique.Vec{3, 0, 0}, Normal: oblique.Vec{-1, 0, 0}}
	r.Render(dst, p, s, 0, Options{Mode: MIP, ClipPlane: cp})
	if dst[0] != 4 {
		t.Errorf("MIP behind the clip plane %v, want 4", dst[0])
	}
	r.Render(dst, p, s, 0, Options{Mode: MinIP, ClipPlane: &ClipPlane{Point: oblique.Vec{3, 0, 0}, Normal: oblique.Vec{1, 0, 0}}})
	// The first point kept, z = 3.5, is nearest sample 4.
	if dst[0] != 5 {
		t.Errorf("MinIP in front of the clip plane %v, want 5", dst[0])
	}
}

// Several channels are added, each in its colour.
func TestChannelsAreAdded(t *testing.T) {
	m := loader.NewMeta("mem", "CZYX", []int{2, 4, 8, 8}, loader.Uint8, []int{1, 4, 8, 8}, nil, nil)
	arr := make([]byte, 2*4*8*8)
	for i := range arr {
		arr[i] = 200
		if i >= 4*8*8 {
			arr[i] = 100
		}
	}
	src := &cSrc{m: m, a: arr}
	p := planeOf(m, nil, 8, 8, 1)
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	var r Renderer
	defer r.Close()
	chans := []render.Channel{{C: 0, Lo: 0, Hi: 200, Colormap: "red"}, {C: 1, Lo: 0, Hi: 200, Colormap: "green"}}
	info := r.RenderRGBA(img, p, src, 0, Options{Mode: MIP}, chans)
	if !info.Complete {
		t.Fatalf("info %+v", info)
	}
	if c := img.RGBAAt(3, 3); c.R != 255 || c.G < 126 || c.G > 129 || c.B != 0 {
		t.Errorf("composite pixel %v, want red 255 and green about 128", c)
	}
}

// cSrc is a one-chunk-per-channel source over a CZYX array.
type cSrc struct {
	m *loader.Meta
	a []byte
}

func (s *cSrc) Meta() *loader.Meta { return s.m }
func (s *cSrc) Get(level int, idx []int) []byte {
	n := s.m.Levels[0].ChunkSamples()
	return s.a[idx[0]*n : (idx[0]+1)*n]
}
func (s *cSrc) Request(levels.Priority, uint64, int, ...[]int) {}
func (s *cSrc) Failed(int, []int) error                        { return nil }

// blobs is 0 but in a few small boxes of bright values: mostly empty
// space.
func blobs(z, y, x int) float64 {
	for _, c := range [][3]int{{10, 20, 30}, {40, 50, 12}, {25, 70, 60}} {
		if abs(z-c[0]) < 4 && abs(y-c[1]) < 6 && abs(x-c[2]) < 5 {
			return float64(100 + (z*7+y*3+x)%150)
		}
	}
	return float64((z + y + x) % 3)
}

func abs(a int) int { return max(a, -a) }

// Skipping the slices of tiles whose chunks cannot change their rays
// changes no pixel, and skips some on mostly empty data.
func TestSkippingChangesNothing(t *testing.T) {
	s := newSrc(loader.Uint16, []int{50, 80, 72}, []int{8, 16, 16}, []float64{2, 1, 1.5}, blobs)
	for _, ts := range turns {
		p := planeOf(s.meta, ts, 60, 70, 1.2)
		for _, mode := range []Mode{MIP, MinIP, Alpha, Iso} {
			for _, in := range []oblique.Interp{oblique.Nearest, oblique.Linear} {
				o := Options{Mode: mode, Interp: in, Iso: 120, Window: [2]float64{50, 250}, Opacity: 0.3}
				var a, b Renderer
				b.NoSkip = true
				ia := image.NewRGBA(image.Rect(0, 0, p.W, p.H))
				ib := image.NewRGBA(image.Rect(0, 0, p.W, p.H))
				infoA := a.RenderRGBA(ia, p, s, 0, o, nil)
				infoB := b.RenderRGBA(ib, p, s, 0, o, nil)
				va, vb := make([]float32, p.W*p.H), make([]float32, p.W*p.H)
				a.Render(va, p, s, 0, o)
				b.Render(vb, p, s, 0, o)
				a.Close()
				b.Close()
				for i := range ia.Pix {
					if ia.Pix[i] != ib.Pix[i] {
						t.Fatalf("%v %v %v: byte %d is %d with skipping, %d without", ts, mode, in, i, ia.Pix[i], ib.Pix[i])
					}
				}
				for i := range va {
					if va[i] != vb[i] {
						t.Fatalf("%v %v %v: ray %d is %v with skipping, %v without", ts, mode, in, i, va[i], vb[i])
					}
				}
				if infoB.Skipped != 0 {
					t.Errorf("%v %v: %d skipped with NoSkip", ts, mode, infoB.Skipped)
				}
				// (A linear MIP's background rays stay below the chunks' max.)
				if mode != MinIP && !(mode == MIP && in == oblique.Linear) && infoA.Skipped == 0 {
					t.Errorf("%v %v %v: nothing skipped over mostly empty space", ts, mode, in)
				}
			}
		}
	}
}
