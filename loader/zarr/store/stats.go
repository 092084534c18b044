package store

import (
	"sync"
	"sync/atomic"
	"time"
)

// Stats counts what an HTTP store did since it was made. A Stats value is a
// snapshot; HTTP.Stats is safe for concurrent use.
type Stats struct {
	Requests int64 // HTTP requests sent (every attempt)
	Retries  int64 // attempts that repeated a failed one
	// Failures counts reads that ended in an error other than ErrNotFound
	// or the caller's cancellation.
	Failures int64
	InFlight int64 // requests under way now
	Bytes    int64 // response body bytes received
	Sent     int64 // request body bytes stored (Put)
	Uploads  int64 // multipart uploads completed (Put)
	// LastError is the most recent failure, of a read or of one attempt that
	// was then retried, and LastErrorAt when it happened.
	LastError   string
	LastErrorAt time.Time
}

// counters is the live form of Stats.
type counters struct {
	requests, retries, failures, inFlight, bytes, sent, uploads atomic.Int64

	mu      sync.Mutex
	lastErr string
	lastAt  time.Time
}

func (c *counters) setError(msg string) {
	c.mu.Lock()
	c.lastErr, c.lastAt = msg, time.Now()
	c.mu.Unlock()
}

func (c *counters) snapshot() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{
		Requests:    c.requests.Load(),
		Retries:     c.retries.Load(),
		Failures:    c.failures.Load(),
		InFlight:    c.inFlight.Load(),
		Bytes:       c.bytes.Load(),
		Sent:        c.sent.Load(),
		Uploads:     c.uploads.Load(),
		LastError:   c.lastErr,
		LastErrorAt: c.lastAt,
	}
}
