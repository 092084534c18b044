package measure

import (
	"context"
	"fmt"
	"math"
	"sync"

	"vastview/base/nd"
	"vastview/levels"
	"vastview/loader"
	"vastview/render/oblique"
)

// Profile is the intensity profile along a line.
type Profile struct {
	// Values are skimage.measure.profile_line's: the line sampled at
	// ceil(length+1) points from From to To inclusive, each the mean of
	// Width points across the line, each interpolated bilinearly with 0
	// outside the data (order=1, mode="constant").
	Values []float64
	// Distance is each point's physical distance from From.
	Distance []float64
	// Length is the line's physical length, Angle its direction in
	// degrees (counter-clockwise from the columns' direction, rows
	// growing downwards, as Fiji measures it), Unit the unit of length.
	Length, Angle float64
	Unit          string
}

// Profiler samples lines and points of one source from level 0, keeping
// the chunks it read so that the next profile of a line being dragged
// reads nothing new. It is safe for concurrent use.
type Profiler struct {
	src   loader.Source
	cache Cache
	m     *loader.Meta
	limit int64

	mu    sync.Mutex
	memo  map[[5]int32][]byte
	bytes int64
}

// NewProfiler returns a Profiler over src (taking chunks from src's
// memory first when it is a Cache), keeping up to limit bytes of chunks
// it read itself (0: levels.Part(0, levels.PartLayer)).
func NewProfiler(src loader.Source, limit int64) *Profiler {
	if limit <= 0 {
		limit = levels.Part(0, levels.PartLayer)
	}
	c, _ := src.(Cache)
	return &Profiler{src: src, cache: c, m: src.Meta(), limit: limit, memo: map[[5]int32][]byte{}}
}

// ProfileLine returns the profile of channel c along l on plane pl
// (reading the level-0 chunks it needs, blocking until they are read or
// ctx ends). On a turned plane each point is interpolated trilinearly in
// the volume at its physical position, 0 outside.
func (p *Profiler) ProfileLine(ctx context.Context, pl Plane, c int, l Line) (Profile, error) {
	w := max(1, l.Width)
	dr, dc := l.To.Row-l.From.Row, l.To.Col-l.From.Col
	if math.IsNaN(dr+dc) || math.IsInf(dr+dc, 0) {
		return Profile{}, fmt.Errorf("the line's ends are not numbers")
	}
	n := int(math.Ceil(math.Hypot(dr, dc) + 1))
	if n > 1<<24 || w > 1<<16 {
		return Profile{}, fmt.Errorf("a line of %d points %d wide is too long to profile", n, w)
	}
	rows, cols := linspace(l.From.Row, l.To.Row, n), linspace(l.From.Col, l.To.Col, n)
	theta := math.Atan2(dr, dc)
	cw := float64(w-1) * math.Sin(-theta) / 2
	rw := float64(w-1) * math.Cos(theta) / 2
	s, err := p.sampler(ctx, pl, c)
	if err != nil {
		return Profile{}, err
	}
	out := Profile{Values: make([]float64, n), Distance: make([]float64, n)}
	sr, sc, _, unit := pl.Spacing(p.m)
	out.Unit = unit
	out.Length = math.Hypot(dr*sr, dc*sc)
	out.Angle = math.Atan2(-dr*sr, dc*sc) * 180 / math.Pi
	pr, pc := make([]float64, w), make([]float64, w)
	for i := range n {
		fillLinspace(pr, rows[i]-rw, rows[i]+rw)
		fillLinspace(pc, cols[i]-cw, cols[i]+cw)
		var sum float64
		for j := w - 1; j >= 0; j-- { // profile_line flips the points across
			v, err := s.linear(pr[j], pc[j])
			if err != nil {
				return Profile{}, err
			}
			sum += v
		}
		out.Values[i] = sum / float64(w)
		if n > 1 {
			out.Distance[i] = float64(i) / float64(n-1) * out.Length
		}
	}
	return out, nil
}

// Value returns the sample of channel c nearest position pt of plane pl
// (the one whose index is floor(q + 0.5) on each axis) and whether pt
// lies on the data.
func (p *Profiler) Value(ctx context.Context, pl Plane, c int, pt Pt) (float64, bool, error) {
	s, err := p.sampler(ctx, pl, c)
	if err != nil {
		return 0, false, err
	}
	q := pl.Index3(p.m, pt)
	z, y, x := int(math.Floor(q[0]+0.5)), int(math.Floor(q[1]+0.5)), int(math.Floor(q[2]+0.5))
	if !s.inside(z, y, x) {
		return 0, false, nil
	}
	v, err := s.at(z, y, x)
	return v, err == nil, err
}

// sampler reads level-0 samples of one channel and time point.
type sampler struct {
	p        *Profiler
	ctx      context.Context
	pl       Plane
	ext      [3]int // level-0 extent along Z, Y, X
	pos      [3]int // positions of Z, Y, X in the axes (−1: none)
	ix       []int  // the sample index, other axes set
	idx      []int
	key      [5]int32
	strides  []int
	last     [5]int32
	lastData []byte
}

func (p *Profiler) sampler(ctx context.Context, pl Plane, c int) (*sampler, error) {
	m := p.m
	if _, _, _, _, _, err := pl.axes(m); err != nil {
		return nil, err
	}
	s := &sampler{p: p, ctx: ctx, pl: pl, ext: oblique.Extent(m), ix: make([]int, len(m.Axes)), idx: make([]int, len(m.Axes))}
	if len(m.Axes) > 5 {
		return nil, fmt.Errorf("axes %s: more than five", m.Axes)
	}
	t := pl.T
	if pl.Oblique != nil {
		t, c = pl.Oblique.T, pl.Oblique.C
	}
	for k, a := range []byte("ZYX") {
		s.pos[k] = m.AxisIndex(a)
	}
	l0 := &m.Levels[0]
	for i := range len(m.Axes) {
		switch m.Axes[i] {
		case 'T':
			s.ix[i] = t
		case 'C':
			s.ix[i] = c
		default:
			continue
		}
		if s.ix[i] < 0 || s.ix[i] >= l0.Shape[i] {
			return nil, fmt.Errorf("%c=%d is outside 0..%d", m.Axes[i], s.ix[i], l0.Shape[i]-1)
		}
	}
	if m.AxisIndex('T') < 0 && t != 0 {
		return nil, fmt.Errorf("the data has no T axis (axes %s)", m.Axes)
	}
	if m.AxisIndex('C') < 0 && c != 0 {
		return nil, fmt.Errorf("the data has no channel %d (one channel)", c)
	}
	if pl.Oblique == nil {
		_, _, na, _, _, _ := pl.axes(m)
		if n := 1; na >= 0 && (pl.Index < 0 || pl.Index >= l0.Shape[na]) || na < 0 && pl.Index != 0 {
			if na >= 0 {
				n = l0.Shape[na]
			}
			return nil, fmt.Errorf("plane %d is outside 0..%d", pl.Index, n-1)
		}
	}
	s.strides = nd.Strides(l0.Chunk)
	s.last[0] = -1
	return s, nil
}

// inside reports whether sample (z, y, x) lies in the data.
func (s *sampler) inside(z, y, x int) bool {
	return z >= 0 && y >= 0 && x >= 0 && z < s.ext[0] && y < s.ext[1] && x < s.ext[2]
}

// at returns sample (z, y, x), which lies in the data.
func (s *sampler) at(z, y, x int) (float64, error) {
	m := s.p.m
	l0 := &m.Levels[0]
	zyx := [3]int{z, y, x}
	for k, i := range s.pos {
		if i >= 0 {
			s.ix[i] = zyx[k]
		}
	}
	off := 0
	for i, v := range s.ix {
		s.idx[i] = v / l0.Chunk[i]
		s.key[i] = int32(s.idx[i])
		off += (v - s.idx[i]*l0.Chunk[i]) * s.strides[i]
	}
	if s.key != s.last || s.lastData == nil {
		d, err := s.p.chunk(s.ctx, s.idx, s.key)
		if err != nil {
			return 0, err
		}
		s.last, s.lastData = s.key, d
	}
	return m.DType.At(s.lastData, off), nil
}

// linear interpolates at position (r, c) of the plane: bilinearly in an
// axis-aligned plane, trilinearly at the physical position in a turned
// one, samples outside the data counting as 0.
func (s *sampler) linear(r, c float64) (float64, error) {
	q := s.pl.Index3(s.p.m, Pt{r, c})
	var f [3]float64
	var b [3]int
	for k := range 3 {
		fl := math.Floor(q[k])
		b[k], f[k] = int(fl), q[k]-fl
		if s.pos[k] < 0 {
			b[k], f[k] = 0, 0
		}
	}
	var v float64
	for dz := range 2 {
		wz := 1 - f[0]
		if dz == 1 {
			wz = f[0]
		}
		if wz == 0 {
			continue
		}
		for dy := range 2 {
			wy := 1 - f[1]
			if dy == 1 {
				wy = f[1]
			}
			if wy == 0 {
				continue
			}
			for dx := range 2 {
				wx := 1 - f[2]
				if dx == 1 {
					wx = f[2]
				}
				z, y, x := b[0]+dz, b[1]+dy, b[2]+dx
				if wx == 0 || !s.inside(z, y, x) {
					continue
				}
				a, err := s.at(z, y, x)
				if err != nil {
					return 0, err
				}
				v += wz * wy * wx * a
			}
		}
	}
	return v, nil
}

// chunk returns level-0 chunk idx (key: the same as numbers), from the
// source's memory, the profiler's, or read now.
func (p *Profiler) chunk(ctx context.Context, idx []int, key [5]int32) ([]byte, error) {
	if p.cache != nil {
		if d := p.cache.Get(0, idx); d != nil {
			return d, nil
		}
	}
	p.mu.Lock()
	d := p.memo[key]
	p.mu.Unlock()
	if d != nil {
		return d, nil
	}
	d = make([]byte, p.m.Levels[0].ChunkBytes(p.m.DType))
	if err := p.src.ReadChunk(ctx, 0, idx, d); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bytes+int64(len(d)) > p.limit {
		clear(p.memo)
		p.bytes = 0
	}
	p.memo[key] = d
	p.bytes += int64(len(d))
	return d, nil
}

// fillLinspace fills dst with numpy.linspace(a, b, len(dst)).
func fillLinspace(dst []float64, a, b float64) {
	n := len(dst)
	if n == 1 {
		dst[0] = a
		return
	}
	step := (b - a) / float64(n-1)
	for i := range dst {
		if step == 0 {
			dst[i] = float64(i)/float64(n-1)*(b-a) + a
		} else {
			dst[i] = float64(i)*step + a
		}
	}
	dst[n-1] = b
}
