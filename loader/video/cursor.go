package video

import (
	"io"
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
// order, to a pipe; next is the frame its next read returns. A cursor is
// used by one reader at a time; stop may be called from anywhere.
type cursor struct {
	cmd      *exec.Cmd
	out      io.ReadCloser
	stderr   tailBuffer
	next     int
	key      int       // the keyframe ffmpeg started decoding at
	first    int       // the first frame it outputs
	fresh    bool      // not yet measured by the cost model
	started  time.Time // when it was started
	firstOut time.Time // when its first frame had been read
	used     time.Time // last read, for least-recently-used eviction

	// Guarded by the source's lock: whether a read uses the cursor, the
	// frame it started at and the frame it reads (next, moved by that
	// read, is not guarded).
	busy        bool
	pos, target int

	stopOnce sync.Once
	killOnce sync.Once
}

// decodeArgs are ffmpeg's arguments to decode path from keyframe k and
// write frames from first on (first shares no timestamp with an earlier
// frame) as raw planar samples.
func (s *Source) decodeArgs(k, first int) []string {
	a := []string{"-hide_banner", "-nostdin", "-loglevel", "error", "-copyts"}
	if ss, ok := s.ix.seekTime(k); ok {
		a = append(a, "-noaccurate_seek", "-seek_timestamp", "1", "-ss", ss)
	}
	vf := s.layout.filter(s.ix.size())
	if first > 0 {
		vf = "select=gte(pts\\," + strconv.FormatInt(s.ix.pts[first], 10) + ")," + vf
	}
	return append(a, "-i", s.path,
		"-map", "0:V:0", "-an", "-sn", "-dn",
		"-fps_mode", "passthrough", "-vf", vf,
		"-f", "rawvideo", "-pix_fmt", s.layout.outPixFmt(), "pipe:1")
}

// startCursor starts ffmpeg with args, decoding from keyframe key; its
// first frame out is frame first.
func startCursor(ffmpeg string, args []string, first, key int) (*cursor, error) {
	decoderStarts.Add(1)
	c := &cursor{next: first, key: key, first: first, fresh: true}
	c.cmd = exec.Command(ffmpeg, args...)
	c.cmd.Stderr = &c.stderr
	c.cmd.WaitDelay = time.Second
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c.out = out
	if err := c.cmd.Start(); err != nil {
		return nil, formatError("ffmpeg: %v", err)
	}
	c.started = time.Now()
	return c, nil
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
	c.advanced()
	return nil
}

// advanced counts a frame read.
func (c *cursor) advanced() {
	if c.next == c.first {
		c.firstOut = time.Now()
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
		c.cmd.Wait()
	})
}
