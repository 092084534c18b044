package volume

import (
	"runtime"
	"sync"
)

// pool is a set of goroutines that run a frame's tiles with the calling
// one. They live from the first frame that needs them until Close, or
// until the Renderer that owns them is garbage: they hold the frame's
// state but not the Renderer.
type pool struct {
	start []chan struct{}
	wg    sync.WaitGroup
	f     *frame
	once  sync.Once
}

// handle is referenced by the Renderer alone: when it is garbage, so is
// the Renderer, and the pool is stopped.
type handle struct{ _ byte }

func newPool(f *frame, helpers int) (*pool, *handle) {
	p := &pool{f: f, start: make([]chan struct{}, helpers)}
	for i := range p.start {
		c := make(chan struct{})
		p.start[i] = c
		go p.loop(c, i+1)
	}
	h := new(handle)
	runtime.AddCleanup(h, func(p *pool) { p.stop() }, p)
	return p, h
}

func (p *pool) loop(start chan struct{}, id int) {
	for range start {
		p.f.work(id)
		p.wg.Done()
	}
}

// run has the helpers and the caller (worker 0) work through the frame's
// tiles and waits for them.
func (p *pool) run() {
	p.wg.Add(len(p.start))
	for _, c := range p.start {
		c <- struct{}{}
	}
	p.f.work(0)
	p.wg.Wait()
}

func (p *pool) stop() {
	p.once.Do(func() {
		for _, c := range p.start {
			close(c)
		}
	})
}
