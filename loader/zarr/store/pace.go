package store

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"
	"time"
)

// spent is what a read has used so far: the time its attempts ran and the
// waits between them (not the time waiting for a concurrency slot), and
// the body bytes that came.
type spent struct {
	time  time.Duration
	bytes int64
}

// allow is the time a read or attempt may take for n body bytes: base, and
// n bytes at MinRate.
func (h *HTTP) allow(base time.Duration, n int64) time.Duration {
	d := float64(n) / float64(h.opt.MinRate) * float64(time.Second)
	return base + time.Duration(min(d, math.MaxInt64/4))
}

// pacer cuts an attempt that is too slow: when it has run longer than
// AttemptTimeout plus its body bytes at MinRate (errAttemptSlow), or its read
// longer than ReadTimeout plus all the read's body bytes at MinRate
// (errReadSlow). The deadlines move as bytes come, so the timer checks them
// again when it fires rather than being reset on every read.
type pacer struct {
	h     *HTTP
	start time.Time
	prev  spent         // the read's, before this attempt
	got   *atomic.Int64 // this attempt's body bytes
	cut   context.CancelCauseFunc
	timer *time.Timer
	done  atomic.Bool
}

// startPacer arms a pacer for an attempt starting now.
func (h *HTTP) startPacer(prev spent, got *atomic.Int64, cut context.CancelCauseFunc) *pacer {
	p := &pacer{h: h, start: time.Now(), prev: prev, got: got, cut: cut}
	p.timer = time.AfterFunc(math.MaxInt64, p.check) // armed once p.timer is set
	p.timer.Reset(p.left())
	return p
}

// left is the time until the nearer deadline, as of now.
func (p *pacer) left() time.Duration {
	ran, g := time.Since(p.start), p.got.Load()
	read := p.h.allow(p.h.opt.ReadTimeout, p.prev.bytes+g) - p.prev.time - ran
	return min(read, p.h.allow(p.h.opt.AttemptTimeout, g)-ran)
}

// check cuts the attempt if a deadline has passed, else waits for the
// nearer one.
func (p *pacer) check() {
	if p.done.Load() {
		return
	}
	ran, g := time.Since(p.start), p.got.Load()
	switch {
	case p.h.allow(p.h.opt.ReadTimeout, p.prev.bytes+g) <= p.prev.time+ran:
		p.cut(errReadSlow)
	case p.h.allow(p.h.opt.AttemptTimeout, g) <= ran:
		p.cut(errAttemptSlow)
	default:
		p.timer.Reset(p.left())
	}
}

// stop disarms the pacer.
func (p *pacer) stop() {
	p.done.Store(true)
	p.timer.Stop()
}

// tooSlow describes the cut: of the attempt, or of the whole read.
func (p *pacer) tooSlow(read bool) error {
	ran, g := time.Since(p.start), p.got.Load()
	if read {
		ran, g = ran+p.prev.time, g+p.prev.bytes
	}
	return fmt.Errorf("the server sent %d bytes in %v: too slow", g, roughly(ran))
}

// roughly rounds d for a message: to the second from 10s, to 100ms from 1s,
// else to the millisecond.
func roughly(d time.Duration) time.Duration {
	switch {
	case d >= 10*time.Second:
		return d.Round(time.Second)
	case d >= time.Second:
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}
