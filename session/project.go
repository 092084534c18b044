package session

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"vastview/base/nd"
	"vastview/levels"
	"vastview/loader"
	"vastview/render"
	"vastview/render/oblique"
)

// projState is the projection part: the projection the view shows
// instead of a plane, and the source it is drawn from. Its state is the
// session's, under the session's lock; it is handed the data and the view
// shown.
type projState struct {
	op    loader.Projection // NoProjection: the plane
	thick int               // planes in the slab; 0: every plane
	src   *projection       // of the data shown, for the slab drawn last
}

// set makes the projection op over slabs of thick planes (0: every
// plane); changed is false when it already was, kind when op changed.
func (ps *projState) set(op loader.Projection, thick int) (changed, kind bool) {
	thick = max(0, thick)
	if ps.op == op && ps.thick == thick {
		return false, false
	}
	kind = op != ps.op
	ps.op, ps.thick = op, thick
	return true, kind
}

// get is the projection shown (NoProjection: the plane) and its slab's
// thickness.
func (ps *projState) get() (loader.Projection, int) { return ps.op, ps.thick }

// slab is the slab the projection of view v of data m covers: thick
// planes about the view's position along the axis normal to its plane,
// or every plane.
func (ps *projState) slab(m *loader.Meta, v render.View) (axis byte, a, b int) {
	_, _, axis = v.Orientation.Axes()
	n := m.Size(axis)
	if ps.thick <= 0 || ps.thick >= n {
		return axis, 0, n - 1
	}
	a = v.At(axis) - (ps.thick-1)/2
	a = max(0, min(a, n-ps.thick))
	return axis, a, a + ps.thick - 1
}

// source is the source the projection of view v of d (nil: none shown)
// is drawn from, made anew (and the previous one stopped, in the
// background) when the data, the kind, the axis or the slab changed; nil
// when the view shows a plane.
func (ps *projState) source(d *Data, v render.View) *projection {
	if ps.op == loader.NoProjection || d == nil {
		ps.drop()
		return nil
	}
	m := d.Pyr.Meta()
	axis, a, b := ps.slab(m, v)
	if m.AxisIndex(axis) < 0 {
		return nil
	}
	if p := ps.src; p != nil && p.pyr == d.Pyr && p.op == ps.op && p.ai == m.AxisIndex(axis) && p.a == a && p.b == b {
		return p
	}
	ps.drop()
	ps.src = newProjection(d.Pyr, ps.op, axis, a, b)
	return ps.src
}

// drop stops the projection being computed, in the background.
func (ps *projState) drop() {
	if p := ps.src; p != nil {
		ps.src = nil
		go p.close()
	}
}

// take hands over the projection being computed, for its owner to close.
func (ps *projState) take() *projection {
	p := ps.src
	ps.src = nil
	return p
}

// projection is a render.Source: the projection by op of a pyramid along
// one axis over a slab, level by level, each level's chunk the projection
// of the chunk column of the same level over the slab's planes there.
// Chunks are computed in the background when asked for (the coarsest
// level's all at once, so that a view shows at once) and kept in the
// pyramid's chunk cache, under its budget, by the tag naming op, axis and
// slab: a slab seen before comes back from memory.
type projection struct {
	pyr  *levels.Pyramid
	op   loader.Projection
	axis byte
	ai   int // its index
	a, b int // the slab's level-0 planes, inclusive
	meta *loader.Meta
	tag  string

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	queue   []projJob
	newest  uint64
	busy    map[string]bool // queued or being computed
	failed  map[string]error
	running int
}

// projJob is a chunk of the projection to compute.
type projJob struct {
	level int
	idx   []int
	gen   uint64
	prio  levels.Priority
}

// projWorkers is how many chunks of a projection are computed at once;
// each reads its column's chunks two at a time.
const projWorkers = 2

// newProjection starts the projection by op of pyr along axis over
// level-0 planes a..b, computing its coarsest level.
func newProjection(pyr *levels.Pyramid, op loader.Projection, axis byte, a, b int) *projection {
	m := pyr.Meta()
	ai := m.AxisIndex(axis)
	pm := *m
	pm.Levels = slices.Clone(m.Levels)
	for k := range pm.Levels {
		l := &pm.Levels[k]
		l.Shape, l.Chunk = slices.Clone(l.Shape), slices.Clone(l.Chunk)
		l.Shape[ai], l.Chunk[ai] = 1, 1
	}
	pm.Shape = pm.Levels[0].Shape
	pm.Label = false
	if op == loader.ProjectMean {
		pm.DType = loader.Float32
	}
	p := &projection{pyr: pyr, op: op, axis: axis, ai: ai, a: a, b: b, meta: &pm,
		tag:  fmt.Sprintf("project %d %c %d:%d", op, axis, a, b),
		busy: map[string]bool{}, failed: map[string]error{}}
	p.ctx, p.cancel = context.WithCancel(levels.ForBackground(context.Background()))
	// The coarsest level, whole: a view shows it while finer ones come.
	k := len(pm.Levels) - 1
	grid := pm.Levels[k].Grid()
	var all [][]int
	for idx := make([]int, len(grid)); ; {
		all = append(all, slices.Clone(idx))
		if !nd.Next(idx, grid) {
			break
		}
	}
	p.Request(levels.Background, 0, k, all...)
	return p
}

// close stops the computation (what was computed stays cached).
func (p *projection) close() {
	p.cancel()
	p.wg.Wait()
}

func (p *projection) Meta() *loader.Meta { return p.meta }
func (p *projection) Stored() int        { return 0 }
func (p *projection) Thumbnails() int    { return len(p.meta.Levels) }

func (p *projection) Get(level int, idx []int) []byte {
	return p.pyr.GetDerived(p.tag, level, idx)
}

func (p *projection) Failed(level int, idx []int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failed[levels.IdxKey(append([]int{level}, idx...))]
}

// Request queues the chunks not in memory nor on their way; the newest
// generation's come first, and visible requests of older ones are
// dropped, as the pyramid's.
func (p *projection) Request(prio levels.Priority, gen uint64, level int, idxs ...[]int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ctx.Err() != nil {
		return
	}
	if prio > levels.Background && gen > p.newest {
		p.newest = gen
		kept := p.queue[:0]
		for _, j := range p.queue {
			if j.prio == levels.Visible && j.gen < gen {
				delete(p.busy, levels.IdxKey(append([]int{j.level}, j.idx...)))
				continue
			}
			kept = append(kept, j)
		}
		p.queue = kept
	}
	for _, idx := range idxs {
		key := levels.IdxKey(append([]int{level}, idx...))
		if p.busy[key] || p.failed[key] != nil || p.pyr.GetDerived(p.tag, level, idx) != nil {
			continue
		}
		p.busy[key] = true
		p.queue = append(p.queue, projJob{level: level, idx: slices.Clone(idx), gen: gen, prio: prio})
	}
	for p.running < projWorkers && len(p.queue) > 0 {
		p.running++
		p.wg.Add(1)
		go p.work()
	}
}

// work computes queued chunks, in the order before says, until none is
// left.
func (p *projection) work() {
	defer p.wg.Done()
	for {
		p.mu.Lock()
		if len(p.queue) == 0 || p.ctx.Err() != nil {
			p.running--
			p.mu.Unlock()
			return
		}
		best := 0
		for i, j := range p.queue {
			if p.before(j, p.queue[best]) {
				best = i
			}
		}
		j := p.queue[best]
		p.queue = slices.Delete(p.queue, best, best+1)
		p.mu.Unlock()
		key := levels.IdxKey(append([]int{j.level}, j.idx...))
		data, err := p.compute(j.level, j.idx)
		p.mu.Lock()
		delete(p.busy, key)
		if err != nil && p.ctx.Err() == nil {
			p.failed[key] = err
		}
		p.mu.Unlock()
		if err == nil {
			p.pyr.PutDerived(p.tag, j.level, j.idx, data)
		}
	}
}

// before reports whether job j goes before job o: the coarsest level's
// first (it is cheap, and a view shows it everywhere at once), then the
// more urgent, then the newer.
func (p *projection) before(j, o projJob) bool {
	top := len(p.meta.Levels) - 1
	if (j.level == top) != (o.level == top) {
		return j.level == top
	}
	if j.prio != o.prio {
		return j.prio > o.prio
	}
	return j.gen > o.gen
}

// compute projects chunk idx of level k over the slab's planes there.
func (p *projection) compute(k int, idx []int) ([]byte, error) {
	m := p.pyr.Meta()
	l0, l := m.Levels[0], m.Levels[k]
	f := 1
	if s0 := l0.Scale[p.ai]; s0 > 0 {
		f = max(1, int(math.Round(l.Scale[p.ai]/s0)))
	}
	n := l.Shape[p.ai]
	a, b := min(p.a/f, n-1), min(p.b/f, n-1)
	data, _, err := levels.ProjectChunk(p.ctx, p.pyr, k, idx, p.ai, p.op, a, b, 2)
	return data, err
}

// Projection is what the view shows along the axis normal to its plane:
// NoProjection (the plane), or the max, min or mean over a slab of thick
// planes centred on the plane (0: every plane).
func (s *Session) Projection() (op loader.Projection, thick int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proj.get()
}

// SetProjection shows the projection op (NoProjection: the plane) over a
// slab of thick planes about the view's position (0: every plane). Going
// to or from a projection, every window is chosen again by auto-contrast
// (from the complete projection): a projection is brighter (max) or
// darker (min) than its planes.
func (s *Session) SetProjection(op loader.Projection, thick int) {
	s.mu.Lock()
	if s.data == nil {
		s.mu.Unlock()
		return
	}
	changed, kind := s.proj.set(op, thick)
	if !changed {
		s.mu.Unlock()
		return
	}
	if kind { // every window is chosen again, from what is shown now
		s.chans.forget()
		s.view.Lo, s.view.Hi = 0, 0
	}
	s.askLocked(s.clock.Now(), 0)
	s.unlockNotify(ViewChanged | HistogramChanged | StatusChanged)
}

// CycleProjection steps the view through plane, max, min and mean.
func (s *Session) CycleProjection() {
	op, thick := s.Projection()
	s.SetProjection((op+1)%(loader.ProjectMean+1), thick)
}

// SlabPlanes is the most planes the projection's slab takes, its
// slider's end (every plane): the data's planes along the axis normal to
// the plane, or for a turned plane its extent along the plane's normal w
// in steps of SlabStep.
func (s *Session) SlabPlanes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.data == nil {
		return 1
	}
	m := s.data.Pyr.Meta()
	if !Oblique(s.view) {
		_, _, normal := s.view.Orientation.Axes()
		return max(1, m.Size(normal))
	}
	pl := ObliquePlane(m, s.view)
	w := pl.U.Cross(pl.V)
	sp, n := oblique.Spacing(m), oblique.Extent(m)
	e := 0.0
	for a := range w {
		e += float64(n[a]) * sp[a] * math.Abs(w[a])
	}
	return max(1, int(math.Ceil(e/SlabStep(m)-1e-9)))
}

// SlabLabel describes the projection's slab for its slider: "z 40–49"
// (level-0 planes, inclusive), or "z all" for every plane.
func (s *Session) SlabLabel() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.data == nil {
		return ""
	}
	m := s.data.Pyr.Meta()
	if Oblique(s.view) { // along the turned plane's normal, in steps of the smallest spacing
		if _, thick := s.proj.get(); thick > 0 {
			sl := (&obliqueSlab{thick: thick}).of(m, oblique.Plane{})
			return fmt.Sprintf("w %d–%d", sl.A, sl.B)
		}
		return "w all"
	}
	axis, a, b := s.proj.slab(m, s.view)
	name := string(axis + 'a' - 'A')
	if a == 0 && b == m.Size(axis)-1 {
		return name + " all"
	}
	return fmt.Sprintf("%s %d–%d", name, a, b)
}
