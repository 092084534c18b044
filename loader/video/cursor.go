package video

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// decoderStarts counts ffmpeg decoder starts, so that tests can tell a
// read that continued a running decoder from one that started a new one.
var decoderStarts atomic.Int64

// cursor is a running ffmpeg that writes raw frames, in presentation
// order, to a pipe; next is the frame its next read returns. Its log
// tells the timestamp of every frame it decodes, so that each frame read
// is known to be the frame of the index it stands for. A cursor is used
// by one reader at a time; stop may be called from anywhere.
type cursor struct {
	cmd      *exec.Cmd
	out      io.ReadCloser
	log      *frameLog
	ix       *index
	now      func() time.Time // the source's clock
	next     int
	key      int           // the keyframe ffmpeg started decoding at
	seek     bool          // whether it seeked to key (else it decodes from the start)
	first    int           // the first frame it outputs
	fresh    bool          // not yet measured by the cost model
	started  time.Time     // when it was started
	firstOut time.Time     // when its first frame had been read
	used     time.Time     // last read, for least-recently-used eviction
	paused   time.Duration // time its reader spent checking it, not reading

	// Frames identified in the log: the frame the next decoded one is
	// (frames before first are decoded and dropped); whether one has
	// been; the problems the decoder reported so far, and the frame
	// decoded after the last of them (-1 before any).
	decoded   int
	matched   bool
	problems  int
	problemAt int

	// Guarded by the source's lock: whether a read uses the cursor, the
	// frame it started at and the frame it reads (next, moved by that
	// read, is not guarded).
	busy        bool
	pos, target int

	stopOnce sync.Once
	killOnce sync.Once
}

// inputArgs are ffmpeg's arguments up to its input: path, from a seek to
// keyframe k, or from the start (seek false) for the first frames.
func (s *Source) inputArgs(loglevel string, k int) (a []string, seek bool) {
	a = []string{"-hide_banner", "-nostdin", "-nostats", "-loglevel", loglevel, "-copyts"}
	ss, seek := s.ix.seekTime(k)
	if seek {
		a = append(a, "-noaccurate_seek", "-seek_timestamp", "1", "-ss", ss)
	}
	return append(a, "-i", s.path, "-map", "0:V:0", "-an", "-sn", "-dn", "-fps_mode", "passthrough"), seek
}

// selectFrom is the filter that lets through frames from frame f's
// timestamp on.
func (s *Source) selectFrom(f int) string {
	return "select=gte(pts\\," + strconv.FormatInt(s.ix.pts[f], 10) + ")"
}

// decodeArgs are ffmpeg's arguments to decode path from keyframe k and
// write frames from first on (first shares no timestamp with an earlier
// frame) as raw planar samples, logging every decoded frame.
func (s *Source) decodeArgs(k, first int) (args []string, seek bool) {
	a, seek := s.inputArgs("repeat+level+info", k)
	vf := frameFilters + "," + s.selectFrom(first) + "," + s.layout.filter(s.ix.size())
	return append(a, "-vf", vf, "-f", "rawvideo", "-pix_fmt", s.layout.outPixFmt(), "pipe:1"), seek
}

// startCursor starts ffmpeg with args, decoding from keyframe key (after
// a seek to it, or from the start); its first frame out is frame first.
func (s *Source) startCursor(args []string, first, key int, seek bool) (*cursor, error) {
	decoderStarts.Add(1)
	c := &cursor{ix: s.ix, now: s.now, next: first, key: key, seek: seek, first: first, fresh: true, problemAt: -1}
	if seek {
		c.decoded = key
	}
	c.cmd = exec.Command(s.ffmpeg, args...)
	c.cmd.WaitDelay = time.Second
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c.out = out
	logR, logW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	c.cmd.Stderr = logW
	err = c.cmd.Start()
	logW.Close()
	if err != nil {
		logR.Close()
		return nil, formatError("ffmpeg: %v", err)
	}
	c.log = newFrameLog()
	logReaders.Add(1)
	go c.log.read(logR)
	c.started = c.now()
	return c, nil
}

// driftError tells that the decoder's frame is not the index's frame
// there: it dropped, added or reordered frames.
type driftError struct {
	frame int   // the index's frame
	pts   int64 // the timestamp of the frame decoded in its place
}

func (e *driftError) Error() string {
	return fmt.Sprintf("ffmpeg decodes a frame at timestamp %d where frame %d is", e.pts, e.frame)
}

// identify takes from the log the frames decoded up to frame c.next, the
// one just read, and checks that they are the index's frames, in order,
// from where decoding started (frames before it that a seek gives too,
// such as the leading pictures of an open GOP, are passed over). It notes
// where the decoder reported problems.
func (c *cursor) identify() error {
	for c.decoded <= c.next {
		ev, ok := c.log.next()
		if !ok {
			return io.ErrUnexpectedEOF
		}
		if ev.problems > c.problems {
			c.problems, c.problemAt = ev.problems, c.decoded
		}
		switch want := c.ix.pts[c.decoded]; {
		case ev.pts == want:
			c.decoded++
			c.matched = true
		case c.matched || ev.pts > want:
			return &driftError{frame: c.decoded, pts: ev.pts}
		}
	}
	return nil
}

// readFrame reads one frame into dst: the i-th plane ffmpeg writes, of
// plane bytes, goes to dst[order[i]*plane:].
func (c *cursor) readFrame(dst []byte, plane int, order []int) error {
	for i, ch := range order {
		if _, err := io.ReadFull(c.out, dst[ch*plane:(ch+1)*plane]); err != nil {
			if i == 0 && err == io.EOF {
				return io.EOF
			}
			return io.ErrUnexpectedEOF
		}
	}
	if err := c.identify(); err != nil {
		return err
	}
	c.advanced()
	return nil
}

// advanced counts a frame read.
func (c *cursor) advanced() {
	if c.next == c.first {
		c.firstOut = c.now()
	}
	c.next++
}

// skip reads and drops n frames of size bytes.
func (c *cursor) skip(n int, size int64) error {
	for range n {
		m, err := io.CopyN(io.Discard, c.out, size)
		if err != nil {
			if m == 0 && err == io.EOF {
				return io.EOF
			}
			return io.ErrUnexpectedEOF
		}
		if err := c.identify(); err != nil {
			return err
		}
		c.advanced()
	}
	return nil
}

// kill ends the process without waiting for it; safe to call concurrently
// and more than once.
func (c *cursor) kill() {
	c.killOnce.Do(func() { c.cmd.Process.Kill() })
}

// stop kills the process and waits for it to exit, so that it leaves no
// zombie. It is safe to call concurrently and more than once.
func (c *cursor) stop() {
	c.stopOnce.Do(func() {
		c.kill()
		<-c.log.done
		c.cmd.Wait()
	})
}
