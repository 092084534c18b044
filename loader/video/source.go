package video

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"vastview/loader"
)

// Tuning of the cursor pool.
const (
	maxIdle     = 3                // idle ffmpeg processes kept per video (default)
	backFrames  = 64               // frames kept before a backward step, at most
	backBytes   = 64 << 20         // and at most this many bytes of them
	keepPassed  = 8                // frames kept when reading on past them
	idleTimeout = 20 * time.Second // an idle ffmpeg unused this long is stopped
)

var errClosed = errors.New("video: source is closed")

// Source is an opened video file. It is safe for concurrent use.
type Source struct {
	path, ffmpeg string
	ix           *index
	layout       sampleLayout
	meta         *loader.Meta
	plane        int // bytes per plane of a frame
	frameBytes   int
	maxIdle      int // idle cursors kept

	mu     sync.Mutex
	idle   []*cursor // least recently used first
	live   map[*cursor]bool
	closed bool
	last   int        // frame asked for last, -1 before the first
	back   frameCache // frames kept for backward walks and waiting reads
	reaper *time.Timer
	cost   costModel
	// Reads waiting for a cursor in use: how many per frame; and a
	// channel closed (and replaced) whenever a cursor is released.
	waiting map[int]int
	changed chan struct{}
}

func newSource(path, ffmpeg string, ix *index) (*Source, error) {
	l := layoutOf(ix)
	s := &Source{path: path, ffmpeg: ffmpeg, ix: ix, layout: l, live: map[*cursor]bool{}, last: -1, maxIdle: maxIdle,
		waiting: map[int]int{}, changed: make(chan struct{})}
	s.meta = metaOf(ix, l)
	if err := s.meta.Validate(); err != nil {
		return nil, formatError("%v", err)
	}
	w, h := ix.size()
	s.plane = w * h * l.sampleBytes()
	s.frameBytes = s.plane * l.channels()
	s.back.budget = min(backBytes, backFrames*s.frameBytes)
	return s, nil
}

// ReadChunk reads frame idx[0] into dst (level 0 only; every other index
// 0). It is safe for concurrent use, and returns ctx.Err() promptly when
// ctx ends, stopping the ffmpeg it was reading from.
func (s *Source) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if err := loader.CheckChunk(ctx, s.meta, level, idx, dst); err != nil {
		return err
	}
	t := idx[0]
	c, from, err := s.acquire(ctx, t, dst)
	if c == nil {
		return err // nil when t was in the frame cache
	}
	stop := context.AfterFunc(ctx, c.kill)
	err = s.advance(c, t, from, dst)
	alive := stop()
	s.release(c, err == nil && alive)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if s.isClosed() {
			return errClosed
		}
		return s.decodeError(c, t, err)
	}
	return nil
}

// advance moves c to frame t and reads it into dst, keeping frames from
// from on in the backward cache, and teaches the cost model.
func (s *Source) advance(c *cursor, t, from int, dst []byte) error {
	start, n := time.Now(), t+1-c.next
	if err := s.read(c, t, from, dst); err != nil {
		return err
	}
	end := time.Now()
	s.mu.Lock()
	if c.fresh {
		c.fresh = false
		s.cost.observeStart(c.first-c.key, c.firstOut.Sub(c.started))
		s.cost.observeSkip(c.next-1-c.first, end.Sub(c.firstOut))
	} else {
		s.cost.observeSkip(n, end.Sub(start))
	}
	s.mu.Unlock()
	return nil
}

// read moves c to frame t and reads it into dst. Frames from from on, the
// last few before t (concurrent reads of nearby frames may have come too
// late to wait for them) and those that other reads wait for are kept in
// the frame cache.
func (s *Source) read(c *cursor, t, from int, dst []byte) error {
	order := s.layout.planeOrder()
	from = min(from, t-keepPassed)
	for c.next < t {
		f := c.next
		if f < from && !s.wanted(f) {
			if err := c.skip(1, int64(s.frameBytes)); err != nil {
				return err
			}
			continue
		}
		buf := s.back.buffer(&s.mu, s.frameBytes)
		if err := c.readFrame(buf, s.plane, order); err != nil {
			return err
		}
		s.kept(f, buf)
	}
	return c.readFrame(dst, s.plane, order)
}

// decodeError explains a failed read of frame t from c (already stopped).
func (s *Source) decodeError(c *cursor, t int, err error) error {
	c.stop()
	msg := c.stderr.lastLine(s.path)
	if msg != "" {
		msg = ": " + msg
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return formatError("frame %d: ffmpeg ended at frame %d of %d%s", t, c.next, s.ix.frames(), msg)
	}
	return formatError("frame %d: %v%s", t, err, msg)
}

func (s *Source) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Close stops every ffmpeg the source started and waits for them to exit.
// Reads in progress fail; later reads return an error.
func (s *Source) Close() error {
	s.mu.Lock()
	s.closed = true
	if s.reaper != nil {
		s.reaper.Stop()
		s.reaper = nil
	}
	all := make([]*cursor, 0, len(s.live))
	for c := range s.live {
		all = append(all, c)
	}
	s.live = map[*cursor]bool{}
	s.idle = nil
	s.back.clear()
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
	for _, c := range all {
		c.stop()
	}
	return nil
}
