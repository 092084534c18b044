package volume

import (
	"math"
	"sync"

	"vastview/levels"
	"vastview/loader"
	"vastview/render/oblique"
)

// memSrc is an oblique.Source over full C-order ZYX arrays of each level,
// of which the chunks cached says are in memory (nil: all).
type memSrc struct {
	meta   *loader.Meta
	arrays [][]byte
	cached func(level int, idx []int) bool
	mu     sync.Mutex
	chunks map[ckey][]byte
	reqs   [][]int
}

type ckey struct{ level, z, y, x int }

func key(level int, idx []int) ckey { return ckey{level, idx[0], idx[1], idx[2]} }

func (s *memSrc) Meta() *loader.Meta { return s.meta }

func (s *memSrc) Get(level int, idx []int) []byte {
	if s.cached != nil && !s.cached(level, idx) {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key(level, idx)
	if d, ok := s.chunks[k]; ok {
		return d
	}
	d := s.chunk(level, idx)
	s.chunks[k] = d
	return d
}

// chunk cuts chunk idx of level out of its array, padded with zeros.
func (s *memSrc) chunk(level int, idx []int) []byte {
	l := &s.meta.Levels[level]
	es := s.meta.DType.Size()
	d := make([]byte, l.ChunkBytes(s.meta.DType))
	for z := 0; z < l.Chunk[0]; z++ {
		for y := 0; y < l.Chunk[1]; y++ {
			for x := 0; x < l.Chunk[2]; x++ {
				gz, gy, gx := idx[0]*l.Chunk[0]+z, idx[1]*l.Chunk[1]+y, idx[2]*l.Chunk[2]+x
				if gz >= l.Shape[0] || gy >= l.Shape[1] || gx >= l.Shape[2] {
					continue
				}
				o := ((z*l.Chunk[1]+y)*l.Chunk[2] + x) * es
				g := ((gz*l.Shape[1]+gy)*l.Shape[2] + gx) * es
				copy(d[o:o+es], s.arrays[level][g:g+es])
			}
		}
	}
	return d
}

func (s *memSrc) Request(_ levels.Priority, _ uint64, level int, idxs ...[]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, idx := range idxs {
		s.reqs = append(s.reqs, append([]int{level}, idx...))
	}
}

func (s *memSrc) Failed(int, []int) error { return nil }

// newSrc is a ZYX volume of dt of the given shape, chunks and spacing,
// with a level 1 halved on every axis (means of the level-0 samples it
// covers, rounded down), values from f(z, y, x).
func newSrc(dt loader.DType, shape, chunk []int, spacing []float64, f func(z, y, x int) float64) *memSrc {
	m := loader.NewMeta("mem", "ZYX", shape, dt, chunk, spacing, nil)
	l0 := m.Levels[0]
	s1 := []int{(shape[0] + 1) / 2, (shape[1] + 1) / 2, (shape[2] + 1) / 2}
	l1 := loader.Level{Shape: s1, Chunk: chunk, Scale: make([]float64, 3), Translation: make([]float64, 3)}
	for i := range l1.Scale {
		l1.Scale[i] = 2 * l0.Scale[i]
		l1.Translation[i] = l0.Translation[i] + l0.Scale[i]/2
	}
	m.Levels = append(m.Levels, l1)
	s := &memSrc{meta: m, chunks: map[ckey][]byte{}}
	a0 := make([]byte, shape[0]*shape[1]*shape[2]*dt.Size())
	for z := 0; z < shape[0]; z++ {
		for y := 0; y < shape[1]; y++ {
			for x := 0; x < shape[2]; x++ {
				dt.Put(a0, (z*shape[1]+y)*shape[2]+x, f(z, y, x))
			}
		}
	}
	a1 := make([]byte, s1[0]*s1[1]*s1[2]*dt.Size())
	for z := 0; z < s1[0]; z++ {
		for y := 0; y < s1[1]; y++ {
			for x := 0; x < s1[2]; x++ {
				var sum float64
				n := 0
				for dz := 0; dz < 2; dz++ {
					for dy := 0; dy < 2; dy++ {
						for dx := 0; dx < 2; dx++ {
							Z, Y, X := 2*z+dz, 2*y+dy, 2*x+dx
							if Z < shape[0] && Y < shape[1] && X < shape[2] {
								sum += f(Z, Y, X)
								n++
							}
						}
					}
				}
				dt.Put(a1, (z*s1[1]+y)*s1[2]+x, math.Floor(sum/float64(n)))
			}
		}
	}
	s.arrays = [][]byte{a0, a1}
	return s
}

// hashed is a value from 0 to 999 made from a position.
func hashed(z, y, x int) float64 {
	return float64((uint32(z*7919+y*104729+x*1299709) * 2654435761 >> 7) % 1000)
}

// refRay is the definition of a ray of level 0 straight from the array:
// the samples at P + k·D·w inside the volume's box (nearest: indices in
// [−0.5, n−0.5]; linear: [0, n−1]), reduced by mode.
func refRay(s *memSrc, P, w oblique.Vec, D float64, in oblique.Interp, mode Mode) float64 {
	m := s.meta
	sp := oblique.Spacing(m)
	n := oblique.Extent(m)
	at := func(z, y, x int) float64 { return m.DType.At(s.arrays[0], (z*n[1]+y)*n[2]+x) }
	var acc float64
	cnt := 0
	var diag float64
	for a := range n {
		diag += math.Pow(float64(n[a])*sp[a], 2)
	}
	kmax := int(math.Sqrt(diag)/D) + 2
	for k := -kmax; k <= kmax; k++ {
		var q [3]float64
		inside := true
		for a := range q {
			q[a] = (P[a] + float64(k)*D*w[a]) / sp[a]
			if in == oblique.Nearest {
				inside = inside && q[a] >= -0.5-1e-9 && q[a] <= float64(n[a])-0.5+1e-9
			} else {
				inside = inside && q[a] >= -1e-9 && q[a] <= float64(n[a]-1)+1e-9
			}
		}
		if !inside {
			continue
		}
		var v float64
		if in == oblique.Nearest {
			var ix [3]int
			for a := range q {
				ix[a] = max(0, min(n[a]-1, int(math.Floor(q[a]+0.5+1e-9))))
			}
			v = at(ix[0], ix[1], ix[2])
		} else {
			var i0, i1 [3]int
			var f [3]float64
			for a := range q {
				q[a] = max(0, min(float64(n[a]-1), q[a]))
				i0[a] = int(math.Floor(q[a]))
				f[a] = q[a] - float64(i0[a])
				i1[a] = min(i0[a]+1, n[a]-1)
			}
			for c := 0; c < 8; c++ {
				wt := 1.0
				var ix [3]int
				for a := 0; a < 3; a++ {
					if c>>(2-a)&1 == 1 {
						ix[a], wt = i1[a], wt*f[a]
					} else {
						ix[a], wt = i0[a], wt*(1-f[a])
					}
				}
				v += wt * at(ix[0], ix[1], ix[2])
			}
		}
		switch {
		case cnt == 0:
			acc = v
		case mode == MIP:
			acc = max(acc, v)
		case mode == MinIP:
			acc = min(acc, v)
		default:
			acc += v
		}
		cnt++
	}
	if mode == Mean && cnt > 0 {
		acc /= float64(cnt)
	}
	return acc
}
