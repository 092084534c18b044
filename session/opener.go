package session

import (
	"context"
	"sync"
)

// opener is the part of the session that runs the open in progress: one
// at a time, each new one cancelling the one before, all cancelled and
// waited for when the session closes. It has its own lock and knows
// nothing else of the session: what an open does comes with it. Safe for
// concurrent use.
type opener struct {
	mu     sync.Mutex
	job    *openJob
	closed bool
	wg     sync.WaitGroup
}

// openJob is an open in progress.
type openJob struct {
	path   string
	cancel context.CancelFunc
}

// start runs open off the calling goroutine as the open in progress
// (cancelling the one before), shown as path; open reports whether it is
// still the current one with current(). changed is called when the open
// in progress changes: now, and when it ends. It reports false, and does
// nothing, once the opener is closed.
func (o *opener) start(path string, open func(ctx context.Context, current func() bool), changed func()) bool {
	ctx, cancel := context.WithCancel(context.Background())
	job := &openJob{path: path, cancel: cancel}
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		cancel()
		return false
	}
	if o.job != nil {
		o.job.cancel()
	}
	o.job = job
	o.wg.Add(1)
	o.mu.Unlock()
	changed()
	go func() {
		defer o.wg.Done()
		defer cancel()
		current := func() bool {
			o.mu.Lock()
			defer o.mu.Unlock()
			return o.job == job && ctx.Err() == nil
		}
		open(ctx, current)
		o.mu.Lock()
		if o.job == job {
			o.job = nil
		}
		o.mu.Unlock()
		changed()
	}()
	return true
}

// path returns the path being opened, if any.
func (o *opener) path() (string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.job == nil {
		return "", false
	}
	return o.job.path, true
}

// cancel stops the open in progress.
func (o *opener) cancel() {
	o.mu.Lock()
	if o.job != nil {
		o.job.cancel()
	}
	o.mu.Unlock()
}

// close cancels the open in progress and refuses new ones; wait then
// waits for them to end.
func (o *opener) close() {
	o.mu.Lock()
	o.closed = true
	if o.job != nil {
		o.job.cancel()
	}
	o.mu.Unlock()
}

// wait waits for the opens started to end.
func (o *opener) wait() { o.wg.Wait() }
