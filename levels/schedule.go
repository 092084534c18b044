package levels

import (
	"container/heap"
	"context"
	"sync"
	"vastview/loader"
)

// Priority orders requests: Visible before Prefetch before Background.
type Priority int

// The request priorities.
const (
	Background Priority = iota
	Prefetch
	Visible
)

// Arrival says that a chunk is now in memory.
type Arrival struct {
	Level int
	Idx   []int
	// Derived names the derived data the chunk is of (see PutDerived),
	// "" for the pyramid's own.
	Derived string
}

// Request asks for chunks to be loaded in the background at a priority, for
// the view generation gen; it never blocks. Visible and prefetch requests of
// a generation older than the newest one seen are dropped when their turn
// comes. Arrivals are announced to subscribers.
func (p *Pyramid) Request(prio Priority, gen uint64, level int, idxs ...[]int) {
	for _, idx := range idxs {
		if loader.CheckIndex(p.meta, level, idx) != nil {
			continue
		}
		p.sched.add(job{prio: prio, gen: gen, key: Key{Level: level, Idx: IdxKey(idx)}, level: level, idx: append([]int(nil), idx...)})
	}
}

// Pending reports the number of requests waiting or running.
func (p *Pyramid) Pending() int { return p.sched.pending() }

type job struct {
	prio   Priority
	gen    uint64
	seq    uint64
	key    Key
	level  int
	idx    []int
	pos    int                // index in the heap
	ctx    context.Context    // while running
	cancel context.CancelFunc // while running
}

// jobHeap is a max-heap by priority, then generation, then first come.
type jobHeap []*job

func (h jobHeap) Len() int { return len(h) }
func (h jobHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.prio != b.prio {
		return a.prio > b.prio
	}
	if a.gen != b.gen {
		return a.gen > b.gen
	}
	return a.seq < b.seq
}
func (h jobHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i]; h[i].pos = i; h[j].pos = j }
func (h *jobHeap) Push(x any)   { j := x.(*job); j.pos = len(*h); *h = append(*h, j) }
func (h *jobHeap) Pop() any {
	old := *h
	j := old[len(old)-1]
	*h = old[:len(old)-1]
	return j
}

// scheduler runs queued loads on a fixed pool of workers.
type scheduler struct {
	p       *Pyramid
	mu      sync.Mutex
	cond    *sync.Cond
	q       jobHeap
	queued  map[Key]*job
	running map[*job]struct{}
	newest  uint64
	seq     uint64
	done    bool
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

func newScheduler(p *Pyramid, workers int) *scheduler {
	s := &scheduler{p: p, queued: map[Key]*job{}, running: map[*job]struct{}{}}
	s.cond = sync.NewCond(&s.mu)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	for range workers {
		s.wg.Add(1)
		go s.work()
	}
	return s
}

func (s *scheduler) add(j job) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return
	}
	if j.prio > Background && j.gen > s.newest {
		s.newest = j.gen
		// Visible loads running for an older view are stopped (prefetches
		// in the direction of motion may still serve the new one), unless
		// the data is being played.
		for r := range s.running {
			if s.p.held.held() {
				break
			}
			if r.prio == Visible && r.gen < s.newest && r.key != j.key {
				r.cancel()
			}
		}
	}
	if q, ok := s.queued[j.key]; ok {
		// Already waiting: raise it to the more urgent request.
		if j.prio > q.prio || j.prio == q.prio && j.gen > q.gen {
			q.prio, q.gen = j.prio, j.gen
			heap.Fix(&s.q, q.pos)
		}
		return
	}
	s.seq++
	j.seq = s.seq
	jp := &j
	s.queued[j.key] = jp
	heap.Push(&s.q, jp)
	s.cond.Signal()
}

func (s *scheduler) next() *job {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		for len(s.q) == 0 && !s.done {
			s.cond.Wait()
		}
		if s.done {
			return nil
		}
		j := heap.Pop(&s.q).(*job)
		delete(s.queued, j.key)
		if j.prio > Background && j.gen < s.newest {
			continue // the view has moved on
		}
		var ctx context.Context
		ctx, j.cancel = context.WithCancel(s.ctx)
		if j.prio == Background {
			ctx = ForBackground(ctx)
		}
		s.running[j] = struct{}{}
		j.ctx = ctx
		return j
	}
}

func (s *scheduler) work() {
	defer s.wg.Done()
	for {
		j := s.next()
		if j == nil {
			return
		}
		_, err := s.p.load(j.ctx, j.level, j.idx)
		if err != nil && j.ctx.Err() == nil {
			s.p.subs.fail(Arrival{Level: j.level, Idx: j.idx}, err)
		}
		j.cancel()
		s.mu.Lock()
		delete(s.running, j)
		s.mu.Unlock()
	}
}

func (s *scheduler) pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.q) + len(s.running)
}

func (s *scheduler) stop() {
	s.mu.Lock()
	s.done = true
	s.q, s.queued = nil, map[Key]*job{}
	s.cond.Broadcast()
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
}

// Event is what a subscriber receives: a chunk that arrived, or a load
// that failed (Err set).
type Event struct {
	Arrival
	Err error
}

// subscribers fan arrival events out to channels without blocking: a
// subscriber that does not keep up misses events, and should re-check what
// it needs with Get.
type subscribers struct {
	mu   sync.Mutex
	subs map[chan Event]struct{}
}

// Subscribe returns a channel of arrivals and a function that ends the
// subscription.
func (p *Pyramid) Subscribe() (<-chan Event, func()) {
	ch := make(chan Event, 256)
	p.subs.mu.Lock()
	if p.subs.subs == nil {
		p.subs.subs = map[chan Event]struct{}{}
	}
	p.subs.subs[ch] = struct{}{}
	p.subs.mu.Unlock()
	return ch, func() {
		p.subs.mu.Lock()
		defer p.subs.mu.Unlock()
		if _, ok := p.subs.subs[ch]; ok {
			delete(p.subs.subs, ch)
			close(ch)
		}
	}
}

func (s *subscribers) notify(a Arrival) { s.send(Event{Arrival: a}) }

func (s *subscribers) fail(a Arrival, err error) { s.send(Event{Arrival: a, Err: err}) }

func (s *subscribers) send(e Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ch := range s.subs {
		select {
		case ch <- e:
		default:
		}
	}
}

func (s *subscribers) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ch := range s.subs {
		close(ch)
	}
	s.subs = nil
}
