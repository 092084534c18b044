package session

import "sync"

// notifier is the part of the session that tells the host what changed:
// the changes and problems waiting to be taken (TakeUpdate), and the one
// OnUpdate call at most that waits for the host. It has its own lock,
// taken after the session's, never before it; the host is called with
// neither held. Safe for concurrent use.
type notifier struct {
	onUpdate func() // may be nil

	mu       sync.Mutex
	pending  Change
	problems []Problem
	notified bool // onUpdate called, take not yet
}

// note notes c for the next take; flush then tells the host.
func (n *notifier) note(c Change) {
	n.mu.Lock()
	n.pending |= c
	n.mu.Unlock()
}

// problem notes p for the next take.
func (n *notifier) problem(p Problem) {
	n.mu.Lock()
	n.problems = append(n.problems, p)
	n.mu.Unlock()
}

// flush calls onUpdate if something waits to be taken and no call is
// waiting already.
func (n *notifier) flush() {
	n.mu.Lock()
	call := !n.notified && n.onUpdate != nil && (n.pending != 0 || len(n.problems) > 0)
	if call {
		n.notified = true
	}
	n.mu.Unlock()
	if call {
		n.onUpdate()
	}
}

// take returns what waits and lets onUpdate be called again.
func (n *notifier) take() Update {
	n.mu.Lock()
	defer n.mu.Unlock()
	u := Update{Changes: n.pending, Problems: n.problems}
	n.pending, n.problems, n.notified = 0, nil, false
	return u
}
