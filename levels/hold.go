package levels

import (
	"context"
	"sync"
)

// hold pauses Build between chunks while someone holds it; the zero
// value is released. It is safe for concurrent use.
type hold struct {
	mu      sync.Mutex
	n       int           // holders
	release chan struct{} // closed when n drops to 0; nil while released
}

// take adds a holder and returns the function that removes it (safe to
// call more than once).
func (h *hold) take() func() {
	h.mu.Lock()
	h.n++
	if h.release == nil {
		h.release = make(chan struct{})
	}
	h.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			if h.n--; h.n == 0 {
				close(h.release)
				h.release = nil
			}
		})
	}
}

// wait returns once no one holds h, or with ctx's error when it ends
// first.
func (h *hold) wait(ctx context.Context) error {
	h.mu.Lock()
	c := h.release
	h.mu.Unlock()
	if c == nil {
		return nil
	}
	select {
	case <-c:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Hold marks the pyramid as drawn frame after frame at a steady rate (a
// movie played, a plane dragged) until the returned function is called:
// Build pauses before its next chunk (chunks already started finish), so
// that the frames due get the machine rather than levels computed for
// later, and loads running for an older view finish rather than being
// stopped when the view moves on (the next frame of a video continues
// the decoder the last one used: stopping it would start the next one
// again from a keyframe). Calls nest; it is safe for concurrent use.
func (p *Pyramid) Hold() (end func()) { return p.held.take() }

// held reports whether anyone holds h.
func (h *hold) held() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n > 0
}

// paused waits while Build is held when ctx is Build's (other work that
// shares its code, an export, goes on), and returns ctx's error if it
// ends first.
func (p *Pyramid) paused(ctx context.Context) error {
	if !isBuild(ctx) {
		return nil
	}
	return p.held.wait(ctx)
}
