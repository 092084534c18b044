package oblique

import (
	"math"
	"slices"
	"sync"
	"unsafe"

	"vastview/levels"
	"vastview/loader"
)

// Source is the multi-resolution data a Sampler reads; a *levels.Pyramid
// is one.
type Source interface {
	// Meta describes every level, level 0 first.
	Meta() *loader.Meta
	// Get returns a chunk if it is in memory now, else nil, without
	// blocking. The bytes are not modified by anyone afterwards.
	Get(level int, idx []int) []byte
	// Request asks for chunks to be loaded in the background, without
	// blocking; requests of an older generation may be dropped.
	Request(prio levels.Priority, gen uint64, level int, idxs ...[]int)
	// Failed returns why the last load of a chunk failed, if it did
	// lately (nil otherwise): such chunks are not asked for again.
	Failed(level int, idx []int) error
}

// Interp is how a sample between the data's samples is made.
type Interp uint8

// The interpolations.
const (
	// Nearest takes the sample whose index is floor(q + 0.5) on each axis,
	// for the continuous index q; q outside [−0.5, n−0.5] on an axis is 0.
	Nearest Interp = iota
	// Linear interpolates trilinearly between the 8 samples around q; a
	// point needing a sample outside the data is 0.
	Linear
)

// String is "nearest" or "linear".
func (in Interp) String() string {
	if in == Linear {
		return "linear"
	}
	return "nearest"
}

// ParseInterp reads "nearest" or "linear".
func ParseInterp(s string) (Interp, bool) {
	switch s {
	case "nearest":
		return Nearest, true
	case "linear":
		return Linear, true
	}
	return Nearest, false
}

// The states of an output sample in Sampler.Mask.
const (
	Outside  = 0 // outside the data: the value is 0
	Sampled  = 1 // drawn from data in memory
	Unfilled = 2 // no level had its data in memory: the value is 0
)

// Info says how a plane was sampled.
type Info struct {
	// Level is the level asked for, the finest the output shows.
	Level int
	// Complete is true when every chunk of that level the plane needs was
	// in memory.
	Complete bool
	// Missing counts the chunks of that level that were not, and are
	// listed by Missing (to Request them).
	Missing int
	// Unfilled counts the output samples that no level in memory could
	// give (0 for now).
	Unfilled int
	// Failed counts the chunks of that level that could not be read, and
	// Err says why.
	Failed int
	Err    error
}

// snap moves positions that fall on a sample boundary up to rounding to
// the same side whatever the rounding of the arithmetic that led there.
const snap = 1e-9

// fixBits is the number of fraction bits of the fixed-point positions
// within a chunk that a row's samples step through (a step's rounding,
// 2^−45, stays below 1e-9 over 16384 columns); fixOne is 1 in them.
const (
	fixBits = 44
	fixOne  = 1 << fixBits
	fixMask = fixOne - 1
)

type chunkKey struct{ level, z, y, x int32 }

// slot is a chunk in memory, for Sampler.slots.
type slot struct {
	key chunkKey
	d   unsafe.Pointer
}

type missing struct {
	dist float64
	key  chunkKey
}

// Sampler samples planes of a Source. It keeps its buffers and the chunks
// of the last two calls, so that sampling the same or a similar plane
// again allocates nothing. It is not safe for concurrent use; the zero
// value is ready to use.
type Sampler struct {
	// Mask, when it holds at least W×H bytes, receives the state of each
	// output sample (Outside, Sampled or Unfilled).
	Mask []uint8
	// NoFallback leaves samples whose chunks are not in memory unfilled
	// rather than drawing them from coarser levels.
	NoFallback bool
	// FromRow and ToRow, when ToRow > FromRow, restrict sampling to the
	// rows from FromRow up to ToRow; the other rows of the output are left
	// as they are.
	FromRow, ToRow int
	// Workers, when more than 1, samples a plane of at least minBand rows
	// a worker in as many bands of rows at once, on goroutines of their
	// own (the Sampler's own one of them): the source's Get and Failed
	// must then be safe for concurrent use, as a *levels.Pyramid's are.
	Workers int

	// bands are the samplers of the bands after the first, with what each
	// is to sample (see part), and done waits for them.
	bands []*band
	done  *sync.WaitGroup
	// from and to are the rows the first pass samples.
	from, to int
	// levelTC is fixedTC of the level asked for, for the chunks noted
	// missing.
	levelTC []int

	src       Source
	meta      *loader.Meta
	t, c      int
	cur, prev map[chunkKey][]byte
	idx       []int

	g       levelGeom
	level   int
	k       int32 // the level being sampled
	strides [3]int
	base    int // byte offset of the T and C position within a chunk
	fixedTC []int
	row     [3][]float64
	col     [3][]float64
	// step is the change of each axis's continuous index from one column
	// to the next in fixed point (fixBits fraction bits), and fixed
	// whether the level's chunks are small enough for positions within
	// them in fixed point.
	step  [3]int64
	fixed bool

	// The window: the 2×2×2 chunks from (wz, wy, wx) on, with sample ranges
	// starting at lo; each entry's data, or nil if not in memory.
	win   [8]unsafe.Pointer
	winOK [8]uint8 // 0: not looked up, 1: looked up
	wc    [3]int
	lo    [3]int
	hi    [3]int // lo + 2·chunk
	first bool   // sampling the level asked for: note missing chunks
	// slots hold chunks of s.cur met in this call, at a hash of their
	// position: most look-ups as the window moves need no map.
	slots  [64]slot
	todo   []int32
	next   []int32
	missed map[chunkKey]float64
	miss   []missing
	reqs   [][]int
	reqBuf []int
	failed int
	err    error
	pi, pj int // the output sample being taken (for missing chunks' distance)
	hh, hw float64
}

// Native samples the plane at level with the nearest sample into dst (W×H
// samples of the data's type, little-endian, row-major): samples outside
// the data are 0, as are those no level in memory holds (see Info).
func (s *Sampler) Native(dst []byte, p Plane, src Source, level int) Info {
	return s.sample(dst, nil, p, src, level, Nearest)
}

// Rounded samples the plane at level by trilinear interpolation into dst
// (W×H samples of the data's type, little-endian, row-major), each value
// rounded to the nearest of the type, as BigDataViewer shows integer data
// interpolated: a picture of 8- and 16-bit data then colours through the
// table of every value of the type. Samples outside the data and those
// no level in memory holds are 0, as with Native.
func (s *Sampler) Rounded(dst []byte, p Plane, src Source, level int) Info {
	return s.sample(dst, nil, p, src, level, Linear)
}

// Float samples the plane at level into dst (W×H float32 values, row-major)
// with interpolation in.
func (s *Sampler) Float(dst []float32, p Plane, src Source, level int, in Interp) Info {
	return s.sample(nil, dst, p, src, level, in)
}

// Missing returns the chunks of the level last asked for that were not in
// memory, nearest the plane's centre first. The slices are the Sampler's,
// valid until its next call.
func (s *Sampler) Missing() (level int, idxs [][]int) {
	return s.level, s.reqs
}

// Request asks src for the chunks Missing lists, at priority prio for the
// view generation gen.
func (s *Sampler) Request(src Source, prio levels.Priority, gen uint64) {
	if len(s.reqs) > 0 {
		src.Request(prio, gen, s.level, s.reqs...)
	}
}

// Forget drops the chunks remembered from recent calls, so that the next
// one asks the source for each again.
func (s *Sampler) Forget() {
	clear(s.cur)
	clear(s.prev)
	for _, b := range s.bands {
		b.s.Forget()
	}
}

// minBand is the fewest rows a band of a plane sampled by several
// workers has: below, starting a worker costs about what it saves.
const minBand = 64

// band is a band of rows of a plane that a Sampler's worker samples: the
// arguments of part, and the function that runs it and tells done (made
// once, so that starting it allocates nothing).
type band struct {
	s        Sampler
	nat      []byte
	flt      []float32
	p        Plane
	src      Source
	level    int
	in       Interp
	mask     []uint8
	from, to int
	run      func()
}

func (s *Sampler) begin(p Plane, src Source) {
	m := src.Meta()
	if s.cur == nil {
		s.cur, s.prev, s.missed = map[chunkKey][]byte{}, map[chunkKey][]byte{}, map[chunkKey]float64{}
	}
	if m != s.meta || p.T != s.t || p.C != s.c || src != s.src {
		clear(s.cur)
		clear(s.prev)
		s.meta, s.t, s.c, s.src = m, p.T, p.C, src
	}
	s.prev, s.cur = s.cur, s.prev
	clear(s.cur)
	s.slots = [len(s.slots)]slot{}
	clear(s.missed)
	s.miss, s.reqs, s.reqBuf = s.miss[:0], s.reqs[:0], s.reqBuf[:0]
	s.failed, s.err = 0, nil
	if cap(s.idx) < len(m.Axes) {
		s.idx, s.fixedTC, s.levelTC = make([]int, len(m.Axes)), make([]int, len(m.Axes)), make([]int, len(m.Axes))
	}
	s.idx, s.fixedTC, s.levelTC = s.idx[:len(m.Axes)], s.fixedTC[:len(m.Axes)], s.levelTC[:len(m.Axes)]
	s.hh, s.hw = float64(p.H-1)/2, float64(p.W-1)/2
}

// prepare readies level k: its geometry, the per-row and per-column parts
// of each sample's continuous index, and the chunk strides.
func (s *Sampler) prepare(p *Plane, k int) {
	m := s.meta
	s.k = int32(k)
	s.g = geometry(m, k)
	l := &m.Levels[k]
	es := m.DType.Size()
	var st [5]int
	acc := es
	for i := len(l.Chunk) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= l.Chunk[i]
	}
	s.base = 0
	for a, c := range []byte("ZYX") {
		s.strides[a] = 0
		if i := m.AxisIndex(c); i >= 0 {
			s.strides[a] = st[i]
		}
	}
	for i := range s.fixedTC {
		s.fixedTC[i] = 0
		var at int
		switch m.Axes[i] {
		case 'T':
			at = p.T
		case 'C':
			at = p.C
		default:
			continue
		}
		at = max(0, min(l.Shape[i]-1, at))
		s.fixedTC[i] = at / l.Chunk[i]
		s.base += (at % l.Chunk[i]) * st[i]
	}
	for a := 0; a < 3; a++ {
		s.row[a] = grow(s.row[a], p.H)
		s.col[a] = grow(s.col[a], p.W)
		sc, off := s.g.scale[a], s.g.offset[a]
		for i := range s.row[a] {
			s.row[a][i] = (p.Center[a] + (float64(i)-s.hh)*p.Pixel*p.V[a] + off) / sc
		}
		for j := range s.col[a] {
			s.col[a][j] = (float64(j) - s.hw) * p.Pixel * p.U[a] / sc
		}
		s.step[a] = int64(math.Round(p.Pixel * p.U[a] / sc * fixOne))
	}
	s.fixed = true
	for a := range 3 {
		s.fixed = s.fixed && s.g.chunk[a] < 1<<(62-fixBits)
	}
	s.wc = [3]int{-1 << 40, -1 << 40, -1 << 40}
	s.lo, s.hi = [3]int{}, [3]int{}
}

func grow(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

// move sets the window to the chunks from the one holding sample (z, y, x).
func (s *Sampler) move(z, y, x int) {
	for a, v := range [3]int{z, y, x} {
		c := s.g.chunk[a]
		s.wc[a] = v / c
		s.lo[a] = s.wc[a] * c
		s.hi[a] = s.lo[a] + 2*c
	}
	s.winOK = [8]uint8{}
}

// entry returns the data of window entry e, looking it up if needed.
func (s *Sampler) entry(e int) unsafe.Pointer {
	if s.winOK[e] != 0 {
		return s.win[e]
	}
	s.winOK[e] = 1
	key := chunkKey{s.k, int32(s.wc[0] + e>>2), int32(s.wc[1] + e>>1&1), int32(s.wc[2] + e&1)}
	sl := &s.slots[(key.z*7+key.y*3+key.x)&int32(len(s.slots)-1)]
	if sl.d != nil && sl.key == key {
		s.win[e] = sl.d
		return sl.d
	}
	d, ok := s.cur[key]
	if !ok {
		if d, ok = s.prev[key]; ok {
			s.cur[key] = d
		}
	}
	if !ok {
		s.chunkIdx(key)
		d = s.src.Get(int(key.level), s.idx)
		if len(d) < s.meta.Levels[key.level].ChunkBytes(s.meta.DType) {
			d = nil
		}
		if d != nil {
			s.cur[key] = d
		} else if s.first {
			if err := s.src.Failed(int(key.level), s.idx); err != nil {
				if _, seen := s.missed[key]; !seen {
					s.missed[key] = -1
					s.failed++
					s.err = err
				}
			}
		}
	}
	if d == nil {
		if s.first {
			dist := (float64(s.pi)-s.hh)*(float64(s.pi)-s.hh) + (float64(s.pj)-s.hw)*(float64(s.pj)-s.hw)
			if old, seen := s.missed[key]; !seen || (old >= 0 && dist < old) {
				s.missed[key] = dist
			}
		}
		s.win[e] = nil
		return nil
	}
	s.win[e] = unsafe.Pointer(unsafe.SliceData(d))
	*sl = slot{key, s.win[e]}
	return s.win[e]
}

// chunkIdx sets s.idx to the full chunk index of key.
func (s *Sampler) chunkIdx(key chunkKey) { s.chunkIdxAt(key, s.fixedTC) }

// chunkIdxAt sets s.idx to the full chunk index of key, with tc the
// chunk indices on the T and C axes.
func (s *Sampler) chunkIdxAt(key chunkKey, tc []int) {
	m := s.meta
	copy(s.idx, tc)
	for a, c := range []byte("ZYX") {
		if i := m.AxisIndex(c); i >= 0 {
			s.idx[i] = int([3]int32{key.z, key.y, key.x}[a])
		}
	}
}

func (s *Sampler) sample(nat []byte, flt []float32, p Plane, src Source, level int, in Interp) Info {
	s.begin(p, src)
	m := s.meta
	level = max(0, min(len(m.Levels)-1, level))
	s.level = level
	n := p.W * p.H
	if p.W <= 0 || p.H <= 0 {
		return Info{Level: level, Complete: true}
	}
	mask := s.Mask
	if len(mask) < n {
		mask = nil
	} else {
		mask = mask[:n]
	}
	from, to := 0, p.H
	if s.ToRow > s.FromRow {
		from, to = max(0, s.FromRow), min(to, s.ToRow)
	}
	// The bands after the first go to workers of their own.
	k := max(1, min(s.Workers, (to-from)/minBand))
	bs := s.workers(k - 1)
	for b, bd := range bs {
		bd.nat, bd.flt, bd.p, bd.src, bd.level, bd.in, bd.mask = nat, flt, p, src, level, in, mask
		bd.from, bd.to = from+(to-from)*(b+1)/k, from+(to-from)*(b+2)/k
		bd.s.NoFallback = s.NoFallback
		s.done.Add(1)
		go bd.run()
	}
	s.from, s.to = from, from+(to-from)/k
	s.part(nat, flt, p, level, in, mask)
	unfilled := len(s.todo)
	if len(bs) > 0 {
		s.done.Wait()
		for _, bd := range bs {
			unfilled += len(bd.s.todo)
			s.merge(&bd.s)
			bd.nat, bd.flt, bd.src, bd.mask = nil, nil, nil, nil
		}
	}
	s.note()
	return Info{Level: level, Complete: len(s.missed) == 0, Missing: len(s.reqs), Unfilled: unfilled,
		Failed: s.failed, Err: s.err}
}

// workers returns n band workers, making those not made yet.
func (s *Sampler) workers(n int) []*band {
	if s.done == nil {
		s.done = new(sync.WaitGroup)
	}
	for len(s.bands) < n {
		bd := &band{}
		done := s.done
		bd.run = func() {
			defer done.Done()
			bd.s.begin(bd.p, bd.src)
			bd.s.level = bd.level
			bd.s.from, bd.s.to = bd.from, bd.to
			bd.s.part(bd.nat, bd.flt, bd.p, bd.level, bd.in, bd.mask)
		}
		s.bands = append(s.bands, bd)
	}
	return s.bands[:n]
}

// part samples rows s.from up to s.to of plane p at level into nat or
// flt (s.begin called), noting the chunks of level not in memory, then
// what they miss from coarser levels.
func (s *Sampler) part(nat []byte, flt []float32, p Plane, level int, in Interp, mask []uint8) {
	s.first = true
	s.prepare(&p, level)
	copy(s.levelTC, s.fixedTC) // for the chunks noted missing
	s.todo = s.todo[:0]
	s.pass(nat, flt, mask, in, -1)
	s.first = false
	for k := level + 1; k < len(s.meta.Levels) && len(s.todo) > 0 && !s.NoFallback; k++ {
		s.prepare(&p, k)
		s.next, s.todo = s.todo, s.next[:0]
		s.pass(nat, flt, mask, in, k)
	}
}

// merge adds the chunks t noted missing or failed to s's.
func (s *Sampler) merge(t *Sampler) {
	for key, d := range t.missed {
		old, seen := s.missed[key]
		switch {
		case d < 0:
			if !seen || old >= 0 {
				s.failed++
			}
			s.missed[key] = -1
		case !seen || (old >= 0 && d < old):
			s.missed[key] = d
		}
	}
	if t.err != nil { // the last met in the order of the rows, as one sampler keeps
		s.err = t.err
	}
}

// note lists the missing chunks noted, nearest the centre first.
func (s *Sampler) note() {
	for k, d := range s.missed {
		if d >= 0 {
			s.miss = append(s.miss, missing{d, k})
		}
	}
	slices.SortFunc(s.miss, func(a, b missing) int {
		switch {
		case a.dist < b.dist:
			return -1
		case a.dist > b.dist:
			return 1
		}
		return int(a.key.z-b.key.z)*1<<20 + int(a.key.y-b.key.y)*1<<10 + int(a.key.x-b.key.x)
	})
	n := len(s.idx)
	if cap(s.reqBuf) < n*len(s.miss) {
		s.reqBuf = make([]int, 0, n*len(s.miss))
	}
	for _, ms := range s.miss {
		s.chunkIdxAt(ms.key, s.levelTC)
		at := len(s.reqBuf)
		s.reqBuf = append(s.reqBuf, s.idx...)
		s.reqs = append(s.reqs, s.reqBuf[at:at+n:at+n])
	}
}

// pass samples every output sample (level < 0: the level prepared first)
// or those listed in s.next, noting in s.todo those whose chunks are not
// in memory.
func (s *Sampler) pass(nat []byte, flt []float32, mask []uint8, in Interp, level int) {
	dt := s.meta.DType
	switch dt {
	case loader.Uint8:
		run[uint8](s, nat, flt, mask, in, level)
	case loader.Int8:
		run[int8](s, nat, flt, mask, in, level)
	case loader.Uint16:
		run[uint16](s, nat, flt, mask, in, level)
	case loader.Int16:
		run[int16](s, nat, flt, mask, in, level)
	case loader.Uint32:
		run[uint32](s, nat, flt, mask, in, level)
	case loader.Int32:
		run[int32](s, nat, flt, mask, in, level)
	case loader.Uint64:
		run[uint64](s, nat, flt, mask, in, level)
	case loader.Int64:
		run[int64](s, nat, flt, mask, in, level)
	case loader.Float32:
		run[float32](s, nat, flt, mask, in, level)
	case loader.Float64:
		run[float64](s, nat, flt, mask, in, level)
	}
}

type number interface {
	~uint8 | ~int8 | ~uint16 | ~int16 | ~uint32 | ~int32 | ~uint64 | ~int64 | ~float32 | ~float64
}

func run[T number](s *Sampler, nat []byte, flt []float32, mask []uint8, in Interp, level int) {
	if nat != nil {
		out := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(nat))), len(nat)/int(unsafe.Sizeof(T(0))))
		rows[T, T](s, out, mask, in, level)
		return
	}
	rows[T, float32](s, flt, mask, in, level)
}

func rows[T, O number](s *Sampler, out []O, mask []uint8, in Interp, level int) {
	if level < 0 {
		w := len(s.col[0])
		for i := s.from; i < s.to; i++ {
			if in == Linear {
				linearRow[T](s, out, mask, i, 0, w)
			} else {
				nearestRow[T](s, out, mask, i, 0, w)
			}
		}
		return
	}
	// The samples listed, in runs of neighbours on a row (the list is in
	// the order the rows were sampled).
	w := len(s.col[0])
	for k := 0; k < len(s.next); {
		at := int(s.next[k])
		i, j0 := at/w, at%w
		n := 1
		for k+n < len(s.next) && int(s.next[k+n]) == at+n && j0+n < w {
			n++
		}
		if in == Linear {
			linearRow[T](s, out, mask, i, j0, j0+n)
		} else {
			nearestRow[T](s, out, mask, i, j0, j0+n)
		}
		k += n
	}
}

// span is the samples [lo, hi) of the chunk the last sample came from
// along each axis, with that chunk's data: the fast path of a row.
type span struct {
	zl, zh, yl, yh, xl, xh int
	d                      unsafe.Pointer
}

// locate returns the window entry of the chunk holding sample (z, y, x),
// moving the window if needed, and that chunk's span.
func (s *Sampler) locate(z, y, x, i, j int) (d unsafe.Pointer, sp span) {
	if z < s.lo[0] || z >= s.hi[0] || y < s.lo[1] || y >= s.hi[1] || x < s.lo[2] || x >= s.hi[2] {
		s.move(z, y, x)
	}
	e := 0
	sp.zl, sp.yl, sp.xl = s.lo[0], s.lo[1], s.lo[2]
	if z-sp.zl >= s.g.chunk[0] {
		e, sp.zl = e+4, sp.zl+s.g.chunk[0]
	}
	if y-sp.yl >= s.g.chunk[1] {
		e, sp.yl = e+2, sp.yl+s.g.chunk[1]
	}
	if x-sp.xl >= s.g.chunk[2] {
		e, sp.xl = e+1, sp.xl+s.g.chunk[2]
	}
	sp.zh, sp.yh, sp.xh = sp.zl+s.g.chunk[0], sp.yl+s.g.chunk[1], sp.xl+s.g.chunk[2]
	if s.winOK[e] == 0 {
		s.pi, s.pj = i, j
		s.entry(e)
	}
	sp.d = s.win[e]
	return sp.d, sp
}

// nearestRow samples columns j0 up to j1 of row i by the nearest sample.
func nearestRow[T, O number](s *Sampler, out []O, mask []uint8, i, j0, j1 int) {
	rz, ry, rx := s.row[0][i], s.row[1][i], s.row[2][i]
	cz, cy, cx := s.col[0], s.col[1], s.col[2]
	nz, ny, nx := float64(s.g.n[0])+snap, float64(s.g.n[1])+snap, float64(s.g.n[2])+snap
	mz, my, mx := s.g.n[0]-1, s.g.n[1]-1, s.g.n[2]-1
	sz, sy, sx, base := s.strides[0], s.strides[1], s.strides[2], s.base
	w := len(cx)
	cz, cy, cx = cz[:w], cy[:w], cx[:w]
	row := out[i*w : i*w+w]
	var mrow []uint8
	if mask != nil {
		mrow = mask[i*w : i*w+w]
	}
	sp := span{zh: -1, yh: -1, xh: -1}
	for j := j0; j < j1; j++ {
		// t = q + 0.5 must lie in [0, n] (q in [−0.5, n−0.5]).
		tz, ty, tx := rz+cz[j]+(0.5+snap), ry+cy[j]+(0.5+snap), rx+cx[j]+(0.5+snap)
		if !(tz >= 0 && tz <= nz && ty >= 0 && ty <= ny && tx >= 0 && tx <= nx) {
			row[j] = 0
			if mrow != nil {
				mrow[j] = Outside
			}
			continue
		}
		z, y, x := min(int(tz), mz), min(int(ty), my), min(int(tx), mx)
		if z < sp.zl || z >= sp.zh || y < sp.yl || y >= sp.yh || x < sp.xl || x >= sp.xh {
			_, sp = s.locate(z, y, x, i, j)
		}
		if sp.d == nil {
			s.todo = append(s.todo, int32(i*w+j))
			row[j] = 0
			if mrow != nil {
				mrow[j] = Unfilled
			}
			continue
		}
		row[j] = O(*(*T)(unsafe.Add(sp.d, base+(z-sp.zl)*sz+(y-sp.yl)*sy+(x-sp.xl)*sx)))
		if mrow != nil {
			mrow[j] = Sampled
		}
		if j+1 >= j1 {
			continue
		}
		// The samples that follow in the same chunk and inside the data
		// need no checks: t stays in [lo, min(hi, n)) on every axis.
		k := steps(tz, cz[j+1]-cz[j], float64(sp.zl), float64(min(sp.zh, mz+1)))
		k = min(k, steps(ty, cy[j+1]-cy[j], float64(sp.yl), float64(min(sp.yh, my+1))))
		k = min(k, steps(tx, cx[j+1]-cx[j], float64(sp.xl), float64(min(sp.xh, mx+1))))
		end := min(j1, j+1+k)
		if mrow != nil {
			fill(mrow[j+1:end], Sampled)
		}
		if s.fixed && end > j+1 {
			// Step through the chunk in fixed point from the next sample's
			// position within it: no conversions per sample.
			j++
			qz := int64((rz + cz[j] + (0.5 + snap) - float64(sp.zl)) * fixOne)
			qy := int64((ry + cy[j] + (0.5 + snap) - float64(sp.yl)) * fixOne)
			qx := int64((rx + cx[j] + (0.5 + snap) - float64(sp.xl)) * fixOne)
			nearestRun[T](row[j:end], unsafe.Add(sp.d, base), qz, qy, qx, s.step, s.strides)
			j = end - 1
			continue
		}
		d, c0 := sp.d, base-sp.zl*sz-sp.yl*sy-sp.xl*sx
		for j++; j < end; j++ {
			z, y, x := int(rz+cz[j]+(0.5+snap)), int(ry+cy[j]+(0.5+snap)), int(rx+cx[j]+(0.5+snap))
			row[j] = O(*(*T)(unsafe.Add(d, c0+z*sz+y*sy+x*sx)))
		}
		j--
	}
}

// nearestRun fills dst with the nearest samples of a chunk's data d, the
// first at fixed-point position (qz, qy, qx) within it, stepping by step;
// strides are the chunk's strides in bytes. When one axis moves by less
// than an eighth of a sample a step, the row is cut where that axis's
// sample changes and the pieces stepped along the other two only.
func nearestRun[T, O number](dst []O, d unsafe.Pointer, qz, qy, qx int64, step [3]int64, strides [3]int) {
	q := [3]int64{qz, qy, qx}
	h := 0
	for a := 1; a < 3; a++ {
		if abs64(step[a]) < abs64(step[h]) {
			h = a
		}
	}
	if abs64(step[h]) > fixOne/8 {
		nearest3[T](dst, d, q[0], q[1], q[2], step, strides)
		return
	}
	a, b := (h+1)%3, (h+2)%3
	for len(dst) > 0 {
		// The samples until the held axis's sample changes.
		n := len(dst)
		switch f := q[h] >> fixBits; {
		case step[h] > 0:
			n = int(min(int64(n), ((f+1)<<fixBits-q[h]+step[h]-1)/step[h]))
		case step[h] < 0:
			n = int(min(int64(n), (q[h]-f<<fixBits)/-step[h]+1))
		}
		switch dh, size := unsafe.Add(d, int(q[h]>>fixBits)*strides[h]), int(unsafe.Sizeof(T(0))); {
		case strides[b] == size:
			nearest2X[T](dst[:n], dh, q[a], q[b], step[a], step[b], strides[a])
		case strides[a] == size:
			nearest2X[T](dst[:n], dh, q[b], q[a], step[b], step[a], strides[b])
		default:
			nearest2[T](dst[:n], dh, q[a], q[b], step[a], step[b], strides[a], strides[b])
		}
		for c := range q {
			q[c] += int64(n) * step[c]
		}
		dst = dst[n:]
	}
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// nearest2 is nearestRun along two axes, a and b.
//
//go:noinline
func nearest2[T, O number](dst []O, d unsafe.Pointer, qa, qb, da, db int64, sa, sb int) {
	for j := range dst {
		oa := int(qa>>fixBits) * sa
		qa += da
		ob := int(qb>>fixBits) * sb
		qb += db
		dst[j] = O(*(*T)(unsafe.Add(d, oa+ob)))
	}
}

// nearest2X is nearest2 where the samples along b follow each other in
// memory (b is X, in the usual order of a chunk's samples): a
// multiplication less a sample.
//
//go:noinline
func nearest2X[T, O number](dst []O, d unsafe.Pointer, qa, qb, da, db int64, sa int) {
	for j := range dst {
		oa := int(qa>>fixBits) * sa
		qa += da
		ob := int(qb>>fixBits) * int(unsafe.Sizeof(T(0)))
		qb += db
		dst[j] = O(*(*T)(unsafe.Add(d, oa+ob)))
	}
}

// nearest3 is nearestRun along all three axes. It is not inlined so that
// the loop keeps its variables in registers.
//
//go:noinline
func nearest3[T, O number](dst []O, d unsafe.Pointer, qz, qy, qx int64, step [3]int64, strides [3]int) {
	dz, dy, dx := step[0], step[1], step[2]
	sz, sy, sx := strides[0], strides[1], strides[2]
	for j := range dst {
		oz := int(qz>>fixBits) * sz
		qz += dz
		oy := int(qy>>fixBits) * sy
		qy += dy
		ox := int(qx>>fixBits) * sx
		qx += dx
		dst[j] = O(*(*T)(unsafe.Add(d, oz+oy+ox)))
	}
}

// steps returns how many steps of d from t certainly stay within [lo, hi)
// (a margin allows for rounding), at most 1<<30.
func steps(t, d, lo, hi float64) int {
	const margin = 1e-6
	var k float64
	switch {
	case d > 0:
		k = (hi - margin - t) / d
	case d < 0:
		k = (t - lo - margin) / -d
	default:
		k = 1 << 30
	}
	if !(t >= lo && t < hi-margin && k >= 0) {
		return 0
	}
	return int(min(k, 1<<30))
}

// pairSteps is steps for the pair of samples from int(q) on, in [lo, hi),
// along an axis: q in [lo, hi−1). An axis where the second sample is not
// needed (pair unset) allows any number of steps only if q does not move.
func pairSteps(q, d float64, lo, hi int, pair bool) int {
	if !pair {
		if d == 0 {
			return 1 << 30
		}
		return 0
	}
	return steps(q, d, float64(lo), float64(hi-1))
}

// linearRow samples columns j0 up to j1 of row i by trilinear
// interpolation.
func linearRow[T, O number](s *Sampler, out []O, mask []uint8, i, j0, j1 int) {
	rz, ry, rx := s.row[0][i], s.row[1][i], s.row[2][i]
	cz, cy, cx := s.col[0], s.col[1], s.col[2]
	tz, ty, tx := float64(s.g.n[0]-1)+snap, float64(s.g.n[1]-1)+snap, float64(s.g.n[2]-1)+snap
	mz, my, mx := s.g.n[0]-1, s.g.n[1]-1, s.g.n[2]-1
	sz, sy, sx, base := s.strides[0], s.strides[1], s.strides[2], s.base
	w := len(cx)
	cz, cy, cx = cz[:w], cy[:w], cx[:w]
	row := out[i*w : i*w+w]
	var mrow []uint8
	if mask != nil {
		mrow = mask[i*w : i*w+w]
	}
	sp := span{zh: -1, yh: -1, xh: -1}
	next := span{zh: -1, yh: -1, xh: -1} // the chunk after sp along Z, when a pair straddles them
	for j := j0; j < j1; j++ {
		qz, qy, qx := rz+cz[j], ry+cy[j], rx+cx[j]
		if !(qz >= -snap && qz <= tz && qy >= -snap && qy <= ty && qx >= -snap && qx <= tx) {
			row[j] = 0
			if mrow != nil {
				mrow[j] = Outside
			}
			continue
		}
		qz, qy, qx = max(qz, 0), max(qy, 0), max(qx, 0)
		z, y, x := int(qz+snap), int(qy+snap), int(qx+snap)
		fz, fy, fx := max(0, qz-float64(z)), max(0, qy-float64(y)), max(0, qx-float64(x))
		// The second sample along an axis; at the last sample, the weight
		// is 0 and the sample itself stands in.
		dz, dy, dx := sz, sy, sx
		if z >= mz {
			z, fz, dz = mz, 0, 0
		}
		if y >= my {
			y, fy, dy = my, 0, 0
		}
		if x >= mx {
			x, fx, dx = mx, 0, 0
		}
		var v float64
		hz, hy, hx := b2i(dz != 0), b2i(dy != 0), b2i(dx != 0)
		if z < sp.zl || z >= sp.zh || y < sp.yl || y >= sp.yh || x < sp.xl || x >= sp.xh {
			// A chunk crossed: the one the first sample is in now.
			_, sp = s.locate(z, y, x, i, j)
		}
		if sp.d != nil && z+hz < sp.zh && y+hy < sp.yh && x+hx < sp.xh {
			// All 8 in the chunk of the last sample.
			p := unsafe.Add(sp.d, base+(z-sp.zl)*sz+(y-sp.yl)*sy+(x-sp.xl)*sx)
			v = trilinear[T](p, unsafe.Add(p, dz), dy, dx, fz, fy, fx)
		} else if sp.d != nil && hz == 1 && z+1 == sp.zh && y+hy < sp.yh && x+hx < sp.xh &&
			s.after(&sp, &next, z, y, x, i, j) {
			// The pair along Z straddles sp and the chunk after it (as
			// between the pages of a page stack): 4 samples from each.
			yx := (y-sp.yl)*sy + (x-sp.xl)*sx
			v = trilinear[T](unsafe.Add(sp.d, base+(z-sp.zl)*sz+yx), unsafe.Add(next.d, base+yx), dy, dx, fz, fy, fx)
		} else {
			var ok bool
			v, ok, sp = linearSlow[T](s, i, j, z, y, x, dz != 0, dy != 0, dx != 0, fz, fy, fx)
			if !ok {
				s.todo = append(s.todo, int32(i*w+j))
				row[j] = 0
				if mrow != nil {
					mrow[j] = Unfilled
				}
				continue
			}
		}
		row[j] = toOut[O](v)
		if mrow != nil {
			mrow[j] = Sampled
		}
		if j+1 >= j1 || sp.d == nil {
			continue
		}
		// The samples that follow with all 8 in the same chunk and inside
		// the data need no checks; so do those whose pair along Z
		// straddles sp and the chunk after it, while Z stays on sp's last
		// sample.
		yxIn := y >= sp.yl && y+hy < sp.yh && x >= sp.xl && x+hx < sp.xh
		straddle := !(z+hz < sp.zh) && hz == 1 && z+1 == sp.zh && yxIn && s.fixed &&
			next.zl == sp.zh && next.yl == sp.yl && next.xl == sp.xl && next.zh >= 0 && next.d != nil
		var k int
		if straddle {
			k = steps(qz, cz[j+1]-cz[j], float64(sp.zh-1), float64(sp.zh))
		} else {
			k = pairSteps(qz, cz[j+1]-cz[j], sp.zl, min(sp.zh, mz+1), dz != 0)
		}
		k = min(k, pairSteps(qy, cy[j+1]-cy[j], sp.yl, min(sp.yh, my+1), dy != 0))
		k = min(k, pairSteps(qx, cx[j+1]-cx[j], sp.xl, min(sp.xh, mx+1), dx != 0))
		end := min(j1, j+1+k)
		if mrow != nil {
			fill(mrow[j+1:end], Sampled)
		}
		if end > j+1 && straddle {
			lo := unsafe.Add(sp.d, base+(sp.zh-1-sp.zl)*sz)
			j = linearRun[T](s, row, j+1, end, lo, unsafe.Add(next.d, base), 0,
				rz+cz[j+1]-float64(sp.zh-1), ry+cy[j+1]-float64(sp.yl), rx+cx[j+1]-float64(sp.xl), 0, dy, dx)
			continue
		}
		if s.fixed && end > j+1 {
			lo := unsafe.Add(sp.d, base)
			j = linearRun[T](s, row, j+1, end, lo, unsafe.Add(lo, dz), sz,
				rz+cz[j+1]-float64(sp.zl), ry+cy[j+1]-float64(sp.yl), rx+cx[j+1]-float64(sp.xl), dz, dy, dx)
			continue
		}
		d, c0 := sp.d, base-sp.zl*sz-sp.yl*sy-sp.xl*sx
		for j++; j < end; j++ {
			qz, qy, qx := rz+cz[j], ry+cy[j], rx+cx[j]
			z, y, x := int(qz+snap), int(qy+snap), int(qx+snap)
			fz, fy, fx := max(0, qz-float64(z)), max(0, qy-float64(y)), max(0, qx-float64(x))
			p := unsafe.Add(d, c0+z*sz+y*sy+x*sx)
			row[j] = toOut[O](trilinear[T](p, unsafe.Add(p, dz), dy, dx, fz, fy, fx))
		}
		j--
	}
}

// linearRun interpolates columns j up to end of row, whose 8 samples all
// lie in memory from lo (the first 4) and from hi (those along Z), the
// first at continuous index (qz, qy, qx) relative to lo's sample,
// stepping in fixed point; sz is the stride in bytes along Z (0 when Z
// stays on one sample, hi then in the chunk after lo's), dz, dy and dx
// the distances in bytes to the second sample along each axis (0 where
// the first stands in; dz only when sz is not 0, hi then lo + dz). It
// returns end−1.
//
// When one axis moves by less than an eighth of a sample a step (planes
// near the data's axes, the common case), the run is cut where that
// axis's sample changes and the pieces interpolated with that axis's
// offset fixed: fewer values to carry from sample to sample.
func linearRun[T, O number](s *Sampler, row []O, j, end int, lo, hi unsafe.Pointer, sz int, qz, qy, qx float64, dz, dy, dx int) int {
	// Positions moved up by fixSnap: a position within that below a
	// sample is taken on it, with weight 0, as the float path does.
	q := [3]int64{int64(math.Round(qz*fixOne)) + fixSnap, int64(math.Round(qy*fixOne)) + fixSnap,
		int64(math.Round(qx*fixOne)) + fixSnap}
	step, dst := s.step, row[j:end]
	h := 0 // the axis held
	if sz != 0 {
		for a := 1; a < 3; a++ {
			if abs64(step[a]) < abs64(step[h]) {
				h = a
			}
		}
		if abs64(step[h]) > fixOne/8 {
			if unsafe.Sizeof(T(0)) <= 2 {
				smallKernel[T](dst, lo, hi, q[0], q[1], q[2], step, sz, s.strides[1], s.strides[2], dy, dx)
			} else {
				linearKernel[T](dst, lo, hi, q[0], q[1], q[2], step, sz, s.strides[1], s.strides[2], dy, dx)
			}
			return end - 1
		}
	}
	// The two axes that move: a, interpolated first, and b.
	a, b := 2, 1
	switch h {
	case 1:
		a, b = 2, 0
	case 2:
		a, b = 1, 0
	}
	strides := [3]int{sz, s.strides[1], s.strides[2]}
	second := [3]int{dz, dy, dx}
	const unit = 1.0 / fixOne
	for len(dst) > 0 {
		// The samples until the held axis's sample changes (none when it
		// stays on one sample throughout, sz 0).
		n := len(dst)
		switch f := q[h] >> fixBits; {
		case sz == 0:
		case step[h] > 0:
			n = int(min(int64(n), ((f+1)<<fixBits-q[h]+step[h]-1)/step[h]))
		case step[h] < 0:
			n = int(min(int64(n), (q[h]-f<<fixBits)/-step[h]+1))
		}
		off := int(q[h]>>fixBits) * strides[h]
		p0 := unsafe.Add(lo, off)
		p1 := unsafe.Add(p0, second[h])
		if h == 0 {
			p1 = unsafe.Add(hi, off)
		}
		w, dw := float64(q[h]&fixWeight)*unit, float64(step[h])*unit
		switch {
		case unsafe.Sizeof(T(0)) <= 2 && strides[a] == int(unsafe.Sizeof(T(0))) && second[a] == strides[a] &&
			second[b] == strides[b]:
			heldSmallX[T](dst[:n], p0, p1, q[a], q[b], step[a], step[b], strides[b], w, dw)
		case unsafe.Sizeof(T(0)) <= 2:
			heldSmall[T](dst[:n], p0, p1, q[a], q[b], step[a], step[b], strides[a], strides[b], second[a], second[b], w, dw)
		default:
			heldWide[T](dst[:n], p0, p1, q[a], q[b], step[a], step[b], strides[a], strides[b], second[a], second[b], w, dw)
		}
		for c := range q {
			q[c] += int64(n) * step[c]
		}
		dst = dst[n:]
	}
	return end - 1
}

// heldSmall is smallKernel along two axes, a and b, with the third held
// on one sample: its 4 corners from p0 and the 4 beyond it along the
// held axis from p1, at weight w + j·dw for sample j. The other
// arguments are as smallKernel's for a and b: fixed-point positions
// within the chunk, their steps, strides and distances to the second
// sample, in bytes.
//
//go:noinline
func heldSmall[T, O number](dst []O, p0, p1 unsafe.Pointer, qa, qb, da, db int64, sa, sb, ea, eb int, w, dw float64) {
	const unit = 1.0 / fixOne
	eab := ea + eb
	for j := range dst {
		off := int(qa>>fixBits)*sa + int(qb>>fixBits)*sb
		wa := qa & fixWeight
		wb := float64(qb&fixWeight) * unit
		qa, qb = qa+da, qb+db
		p := unsafe.Add(p0, off)
		v := int64(*(*T)(p))
		a0 := float64(v<<fixBits + wa*(int64(*(*T)(unsafe.Add(p, ea)))-v))
		v = int64(*(*T)(unsafe.Add(p, eb)))
		a1 := float64(v<<fixBits + wa*(int64(*(*T)(unsafe.Add(p, eab)))-v))
		b0 := a0 + wb*(a1-a0)
		p = unsafe.Add(p1, off)
		v = int64(*(*T)(p))
		a0 = float64(v<<fixBits + wa*(int64(*(*T)(unsafe.Add(p, ea)))-v))
		v = int64(*(*T)(unsafe.Add(p, eb)))
		a1 = float64(v<<fixBits + wa*(int64(*(*T)(unsafe.Add(p, eab)))-v))
		b1 := a0 + wb*(a1-a0)
		dst[j] = toOut[O]((b0 + w*(b1-b0)) * unit)
		w += dw
	}
}

// heldSmallX is heldSmall where the samples along a follow each other in
// memory (a is X, in the usual order of a chunk's samples) and the second
// samples along a and b are present (eb then sb): fewer values to carry
// from sample to sample, about a tenth faster.
//
//go:noinline
func heldSmallX[T, O number](dst []O, p0, p1 unsafe.Pointer, qa, qb, da, db int64, sb int, w, dw float64) {
	const unit = 1.0 / fixOne
	for j := range dst {
		off := int(qb>>fixBits)*sb + int(qa>>fixBits)*int(unsafe.Sizeof(T(0)))
		wa := qa & fixWeight
		wb := float64(qb&fixWeight) * unit
		qa, qb = qa+da, qb+db
		p := (*[2]T)(unsafe.Add(p0, off))
		v := int64(p[0])
		a0 := float64(v<<fixBits + wa*(int64(p[1])-v))
		p = (*[2]T)(unsafe.Add(unsafe.Pointer(p), sb))
		v = int64(p[0])
		a1 := float64(v<<fixBits + wa*(int64(p[1])-v))
		b0 := a0 + wb*(a1-a0)
		p = (*[2]T)(unsafe.Add(p1, off))
		v = int64(p[0])
		a0 = float64(v<<fixBits + wa*(int64(p[1])-v))
		p = (*[2]T)(unsafe.Add(unsafe.Pointer(p), sb))
		v = int64(p[0])
		a1 = float64(v<<fixBits + wa*(int64(p[1])-v))
		b1 := a0 + wb*(a1-a0)
		dst[j] = toOut[O]((b0 + w*(b1-b0)) * unit)
		w += dw
	}
}

// heldWide is heldSmall for wider types, in floating point.
//
//go:noinline
func heldWide[T, O number](dst []O, p0, p1 unsafe.Pointer, qa, qb, da, db int64, sa, sb, ea, eb int, w, dw float64) {
	const unit = 1.0 / fixOne
	for j := range dst {
		off := int(qa>>fixBits)*sa + int(qb>>fixBits)*sb
		wa := float64(qa&fixWeight) * unit
		wb := float64(qb&fixWeight) * unit
		qa, qb = qa+da, qb+db
		p, q := unsafe.Add(p0, off), unsafe.Add(p1, off)
		v00 := float64(*(*T)(p))
		v01 := float64(*(*T)(unsafe.Add(p, ea)))
		v10 := float64(*(*T)(unsafe.Add(p, eb)))
		v11 := float64(*(*T)(unsafe.Add(p, eb+ea)))
		u00 := float64(*(*T)(q))
		u01 := float64(*(*T)(unsafe.Add(q, ea)))
		u10 := float64(*(*T)(unsafe.Add(q, eb)))
		u11 := float64(*(*T)(unsafe.Add(q, eb+ea)))
		a0 := v00 + wa*(v01-v00)
		a1 := v10 + wa*(v11-v10)
		c0 := u00 + wa*(u01-u00)
		c1 := u10 + wa*(u11-u10)
		b0 := a0 + wb*(a1-a0)
		b1 := c0 + wb*(c1-c0)
		dst[j] = toOut[O](b0 + w*(b1-b0))
		w += dw
	}
}

// fixSnap is snap in fixed point, about 1e-9; fixWeight keeps the bits of
// a fixed-point fraction above 2·fixSnap, so that a position moved up by
// fixSnap has weight 0 when it was within fixSnap of a sample, and
// otherwise a weight 2^−29 at most below its own.
const (
	fixSnap   = 1 << 14
	fixWeight = fixMask &^ (2*fixSnap - 1)
)

// linearKernel interpolates the samples of dst trilinearly: sample j's
// first corner is at the fixed-point position (qz, qy, qx) + j·step
// within a chunk (already moved up by fixSnap), its first 4 corners read
// from lo and the 4 along Z from hi at the same offset; sz, sy, sx are the
// chunk's strides in bytes (sz 0 when Z stays on one sample), dy and dx the
// distances in bytes to the second sample along Y and X. It is not
// inlined so that the loop keeps its variables in registers.
//
//go:noinline
func linearKernel[T, O number](dst []O, lo, hi unsafe.Pointer, qz, qy, qx int64, step [3]int64, sz, sy, sx, dy, dx int) {
	ez, ey, ex := step[0], step[1], step[2]
	const unit = 1.0 / fixOne
	for j := range dst {
		off := int(qz>>fixBits)*sz + int(qy>>fixBits)*sy + int(qx>>fixBits)*sx
		wz := float64(qz&fixWeight) * unit
		wy := float64(qy&fixWeight) * unit
		wx := float64(qx&fixWeight) * unit
		qz, qy, qx = qz+ez, qy+ey, qx+ex
		p, q := unsafe.Add(lo, off), unsafe.Add(hi, off)
		v000 := float64(*(*T)(p))
		v001 := float64(*(*T)(unsafe.Add(p, dx)))
		v010 := float64(*(*T)(unsafe.Add(p, dy)))
		v011 := float64(*(*T)(unsafe.Add(p, dy+dx)))
		v100 := float64(*(*T)(q))
		v101 := float64(*(*T)(unsafe.Add(q, dx)))
		v110 := float64(*(*T)(unsafe.Add(q, dy)))
		v111 := float64(*(*T)(unsafe.Add(q, dy+dx)))
		a00 := v000 + wx*(v001-v000)
		a01 := v010 + wx*(v011-v010)
		a10 := v100 + wx*(v101-v100)
		a11 := v110 + wx*(v111-v110)
		b0 := a00 + wy*(a01-a00)
		b1 := a10 + wy*(a11-a10)
		dst[j] = toOut[O](b0 + wz*(b1-b0))
	}
}

// smallKernel is linearKernel for 8- and 16-bit integers: it
// interpolates along X in integers, each pair's value times 2^fixBits
// exactly (at most 2^61), and the rest in floating point from those, so
// that only 4 conversions are made a sample instead of 8.
//
//go:noinline
func smallKernel[T, O number](dst []O, lo, hi unsafe.Pointer, qz, qy, qx int64, step [3]int64, sz, sy, sx, dy, dx int) {
	ez, ey, ex := step[0], step[1], step[2]
	const unit = 1.0 / fixOne
	for j := range dst {
		off := int(qz>>fixBits)*sz + int(qy>>fixBits)*sy + int(qx>>fixBits)*sx
		wz := float64(qz&fixWeight) * unit
		wy := float64(qy&fixWeight) * unit
		wx := qx & fixWeight
		qz, qy, qx = qz+ez, qy+ey, qx+ex
		p, q := unsafe.Add(lo, off), unsafe.Add(hi, off)
		v000 := int64(*(*T)(p))
		v001 := int64(*(*T)(unsafe.Add(p, dx)))
		v010 := int64(*(*T)(unsafe.Add(p, dy)))
		v011 := int64(*(*T)(unsafe.Add(p, dy+dx)))
		v100 := int64(*(*T)(q))
		v101 := int64(*(*T)(unsafe.Add(q, dx)))
		v110 := int64(*(*T)(unsafe.Add(q, dy)))
		v111 := int64(*(*T)(unsafe.Add(q, dy+dx)))
		a00 := float64(v000<<fixBits + wx*(v001-v000))
		a01 := float64(v010<<fixBits + wx*(v011-v010))
		a10 := float64(v100<<fixBits + wx*(v101-v100))
		a11 := float64(v110<<fixBits + wx*(v111-v110))
		b0 := a00 + wy*(a01-a00)
		b1 := a10 + wy*(a11-a10)
		dst[j] = toOut[O]((b0 + wz*(b1-b0)) * unit)
	}
}

// toOut converts an interpolated value to the output's type: as it is to
// a floating-point type, rounded to the nearest (halves up) to an integer
// type. An interpolated value lies between two of the data's values, so
// the rounded one is within the type's range.
func toOut[O number](v float64) O {
	if one := O(1); one/2 != 0 {
		return O(v)
	}
	if unsafe.Sizeof(O(0)) <= 2 {
		// The conversion truncates, which is floor for positive values.
		return O(int(v+(1<<16+0.5)) - 1<<16)
	}
	return O(math.Floor(v + 0.5))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// linearSlow interpolates at a point whose 8 samples, from (z, y, x) on
// (the second along an axis only if its flag is set), may lie in several
// chunks: all within the window of 2×2×2 chunks once it holds (z, y, x)
// and (z+1, y+1, x+1). It returns the span of the chunk of (z, y, x) for
// the samples that follow.
func linearSlow[T number](s *Sampler, i, j, z, y, x int, hz, hy, hx bool, fz, fy, fx float64) (float64, bool, span) {
	if z < s.lo[0] || z+1 >= s.hi[0] || y < s.lo[1] || y+1 >= s.hi[1] || x < s.lo[2] || x+1 >= s.hi[2] {
		s.move(z, y, x)
	}
	_, first := s.locate(z, y, x, i, j)
	ez0, ez1, oz0, oz1 := split(z, hz, s.lo[0], s.g.chunk[0])
	ey0, ey1, oy0, oy1 := split(y, hy, s.lo[1], s.g.chunk[1])
	ex0, ex1, ox0, ox1 := split(x, hx, s.lo[2], s.g.chunk[2])
	sz, sy, sx, b := s.strides[0], s.strides[1], s.strides[2], s.base
	es := [8]int{ez0<<2 | ey0<<1 | ex0, ez0<<2 | ey0<<1 | ex1, ez0<<2 | ey1<<1 | ex0, ez0<<2 | ey1<<1 | ex1,
		ez1<<2 | ey0<<1 | ex0, ez1<<2 | ey0<<1 | ex1, ez1<<2 | ey1<<1 | ex0, ez1<<2 | ey1<<1 | ex1}
	offs := [8]int{oz0*sz + oy0*sy + ox0*sx, oz0*sz + oy0*sy + ox1*sx, oz0*sz + oy1*sy + ox0*sx, oz0*sz + oy1*sy + ox1*sx,
		oz1*sz + oy0*sy + ox0*sx, oz1*sz + oy0*sy + ox1*sx, oz1*sz + oy1*sy + ox0*sx, oz1*sz + oy1*sy + ox1*sx}
	var v [8]float64
	ok := true
	for c, e := range es {
		if s.winOK[e] == 0 {
			s.pi, s.pj = i, j
			s.entry(e)
		}
		d := s.win[e]
		if d == nil {
			ok = false
			continue
		}
		v[c] = float64(*(*T)(unsafe.Add(d, b+offs[c])))
	}
	if !ok {
		return 0, false, first
	}
	a00 := v[0] + fx*(v[1]-v[0])
	a01 := v[2] + fx*(v[3]-v[2])
	a10 := v[4] + fx*(v[5]-v[4])
	a11 := v[6] + fx*(v[7]-v[6])
	b0 := a00 + fy*(a01-a00)
	b1 := a10 + fy*(a11-a10)
	return b0 + fz*(b1-b0), true, first
}

// split returns, for sample i and the one after it (i itself unless next
// is set), their window entry bits and offsets (in samples) within their
// chunks, for a window starting at sample lo in chunks of c.
func split(i int, next bool, lo, c int) (e0, e1, o0, o1 int) {
	o0 = i - lo
	o1 = o0
	if next {
		o1++
	}
	if o0 >= c {
		o0, e0 = o0-c, 1
	}
	if o1 >= c {
		o1, e1 = o1-c, 1
	}
	return e0, e1, o0, o1
}

func fill(b []uint8, v uint8) {
	for i := range b {
		b[i] = v
	}
}

// trilinear interpolates between the 4 samples from p (at p, and the
// second along X and Y, dx and dy bytes on) and the 4 from q (the same,
// one sample on along Z), at weights fz, fy, fx.
func trilinear[T number](p, q unsafe.Pointer, dy, dx int, fz, fy, fx float64) float64 {
	v000 := float64(*(*T)(p))
	v001 := float64(*(*T)(unsafe.Add(p, dx)))
	v010 := float64(*(*T)(unsafe.Add(p, dy)))
	v011 := float64(*(*T)(unsafe.Add(p, dy+dx)))
	v100 := float64(*(*T)(q))
	v101 := float64(*(*T)(unsafe.Add(q, dx)))
	v110 := float64(*(*T)(unsafe.Add(q, dy)))
	v111 := float64(*(*T)(unsafe.Add(q, dy+dx)))
	a00 := v000 + fx*(v001-v000)
	a01 := v010 + fx*(v011-v010)
	a10 := v100 + fx*(v101-v100)
	a11 := v110 + fx*(v111-v110)
	b0 := a00 + fy*(a01-a00)
	b1 := a10 + fy*(a11-a10)
	return b0 + fz*(b1-b0)
}

// after sets next to the chunk after sp along Z (the one holding sample
// (z+1, y, x), z being sp's last), looking it up unless next is already
// that one, and reports whether it is in memory.
func (s *Sampler) after(sp, next *span, z, y, x, i, j int) bool {
	if next.zl != sp.zh || next.yl != sp.yl || next.xl != sp.xl || next.zh < 0 {
		_, *next = s.locate(z+1, y, x, i, j)
	}
	return next.d != nil
}
