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
	// Keyframes seeks to which do not give the frames a decode from the
	// start gives, and those found to give them up to a frame.
	badKey   map[int]bool
	verified map[int]int

	verifying chan struct{}   // holds a token while keyframes are compared
	life      context.Context // ends when the source is closed
	endLife   context.CancelFunc

	options
}

// options are what a Source is made with besides its file; the zero value
// gives the wall clock and no calls.
type options struct {
	// now is the clock that times reads for the cost model and idle
	// decoders (nil: time.Now); a clock that stands still keeps the cost
	// model at its default whatever the machine's load.
	now func() time.Time
	// arrived(t), if set, is called once a read of frame t has a decoder,
	// waits for one or was served from the frame cache; passing(f) before
	// a read passes frame f on its way.
	arrived, passing func(frame int)
}

func newSource(path, ffmpeg string, ix *index, opts options) (*Source, error) {
	l := layoutOf(ix)
	if opts.now == nil {
		opts.now = time.Now
	}
	s := &Source{path: path, ffmpeg: ffmpeg, ix: ix, layout: l, live: map[*cursor]bool{}, last: -1, maxIdle: maxIdle,
		waiting: map[int]int{}, changed: make(chan struct{}), badKey: map[int]bool{}, verified: map[int]int{},
		verifying: make(chan struct{}, 1), options: opts}
	s.life, s.endLife = context.WithCancel(context.Background())
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
	// Each restart follows a keyframe found bad or a decoder started at
	// one, so that there are at most about as many as keyframes.
	for range 2*len(s.ix.keys) + 2*s.maxIdle + 4 {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.readOnce(ctx, t, dst); err != errRestart {
			return err
		}
	}
	return formatError("frame %d: no keyframe gives it as a decode from the start does", t)
}

// readOnce reads frame t into dst with one decoder; errRestart asks for
// another.
func (s *Source) readOnce(ctx context.Context, t int, dst []byte) error {
	c, from, err := s.acquire(ctx, t, dst)
	if c == nil {
		return err // nil when t was in the frame cache
	}
	stop := context.AfterFunc(ctx, c.kill)
	err = s.advance(ctx, c, t, from, dst)
	alive := stop()
	s.release(c, err == nil && alive)
	var drift *driftError
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case s.isClosed():
		return errClosed
	case err == errRestart:
		return err
	case errors.As(err, &drift) && c.seek:
		s.markBad(c.key)
		return errRestart
	}
	return s.decodeError(c, t, err)
}

// advance moves c to frame t and reads it into dst, keeping frames from
// from on in the backward cache, and teaches the cost model (time spent
// comparing keyframes is not decoding, and is left out).
func (s *Source) advance(ctx context.Context, c *cursor, t, from int, dst []byte) error {
	start, n := s.now(), t+1-c.next
	c.paused = 0
	if err := s.read(ctx, c, t, from, dst); err != nil {
		return err
	}
	end := s.now().Add(-c.paused)
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
// the frame cache. Every frame kept or delivered is one c may deliver
// (see trust).
func (s *Source) read(ctx context.Context, c *cursor, t, from int, dst []byte) error {
	order := s.layout.planeOrder()
	from = min(from, t-keepPassed)
	for c.next < t {
		f := c.next
		if s.passing != nil {
			s.passing(f)
		}
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
		if err := s.trust(ctx, c); err != nil {
			return err
		}
		s.kept(f, buf)
	}
	if err := c.readFrame(dst, s.plane, order); err != nil {
		return err
	}
	return s.trust(ctx, c)
}

// decodeError explains a failed read of frame t from c (already stopped).
func (s *Source) decodeError(c *cursor, t int, err error) error {
	c.stop()
	msg := c.log.tail.lastLine(s.path)
	if msg != "" {
		msg = ": " + msg
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return formatError("frame %d: ffmpeg ended at frame %d of %d%s", t, c.next, s.ix.frames(), msg)
	}
	var drift *driftError
	if errors.As(err, &drift) {
		return formatError("frame %d: ffmpeg decodes a frame at %gs where frame %d (at %gs) is%s",
			t, s.ix.seconds(drift.pts), drift.frame, s.ix.seconds(s.ix.pts[drift.frame]), msg)
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
	s.endLife()
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
	for _, c := range all {
		c.stop()
	}
	return nil
}
