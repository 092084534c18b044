package video

import (
	"bufio"
	"io"
	"strings"
	"sync"
	"sync/atomic"
)

// A running decoder tells, on its standard error, what it decodes: the
// metadata filter (named frameFilter in the chain) prints the timestamp of
// every decoded frame before the frame goes on, and the decoder's error
// lines and ffmpeg's "corrupt decoded frame" warnings come in between, in
// the order they happened. ffmpeg runs with -loglevel repeat+level+info,
// so that every line says its level and repeated lines are not folded.

// frameKey is the frame metadata key the decode chain adds and prints.
const frameKey = "vvpts"

// frameFilters are the filters, first in the decode chain, that make
// ffmpeg print the timestamp of every decoded frame.
const frameFilters = "metadata=mode=add:key=" + frameKey + ":value=1,metadata@" + frameKey + "=mode=print:key=" + frameKey

// frameEvent is a decoded frame's timestamp (noTS when it has none), and
// how many problems the decoder had reported before it since the start.
type frameEvent struct {
	pts      int64
	problems int
}

// frameLog collects the frame events of one ffmpeg run from its log, as a
// goroutine reads it, and keeps its error lines. It is safe for one
// reading goroutine and one taker at a time.
type frameLog struct {
	mu       sync.Mutex
	events   []frameEvent // not taken yet, in order
	problems int
	ended    bool
	wake     chan struct{} // closed and replaced when an event comes or the log ends
	tail     tailBuffer    // error lines; read only once done is closed
	done     chan struct{} // closed when the log has been read to its end
}

func newFrameLog() *frameLog {
	return &frameLog{wake: make(chan struct{}), done: make(chan struct{})}
}

// logReaders counts the logs being read, so that tests can tell that
// closing a source leaves none.
var logReaders atomic.Int64

// read reads the log from r until it ends, then closes r. The caller has
// counted it in logReaders.
func (l *frameLog) read(r io.ReadCloser) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	for sc.Scan() {
		l.line(sc.Text())
	}
	io.Copy(io.Discard, r) // past a line too long, to the end
	r.Close()
	l.mu.Lock()
	l.ended = true
	l.signal()
	l.mu.Unlock()
	logReaders.Add(-1)
	close(l.done)
}

// line takes in one line of the log.
func (l *frameLog) line(s string) {
	ev, problem, keep := parseLogLine(s)
	if keep != "" {
		l.tail.Write([]byte(strings.Map(printable, keep) + "\n"))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if problem {
		l.problems++
	}
	if ev != nil {
		ev.problems = l.problems
		l.events = append(l.events, *ev)
		l.signal()
	}
}

// signal wakes a waiting next; l.mu is held.
func (l *frameLog) signal() {
	close(l.wake)
	l.wake = make(chan struct{})
}

// next returns the next frame event, waiting for it; ok is false when the
// log ended without one.
func (l *frameLog) next() (ev frameEvent, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(l.events) == 0 {
		if l.ended {
			return frameEvent{}, false
		}
		wake := l.wake
		l.mu.Unlock()
		<-wake
		l.mu.Lock()
	}
	ev = l.events[0]
	l.events = l.events[1:]
	return ev, true
}

// parseLogLine reads one line of ffmpeg's log ("[context @ 0x...] [level]
// message", the context optional): a frame event from the frame filter; a
// problem (an error, or a corrupt decoded frame); and the message to keep
// for error reports ("" for none).
func parseLogLine(s string) (ev *frameEvent, problem bool, keep string) {
	ctx, level, msg := splitLogLine(s)
	switch level {
	case "info":
		if ctx == "metadata@"+frameKey {
			return frameLine(msg), false, ""
		}
	case "warning":
		if strings.Contains(msg, "corrupt decoded frame") {
			return nil, true, ""
		}
	case "error", "fatal", "panic":
		return nil, true, msg
	}
	return nil, false, ""
}

// splitLogLine splits a log line into its context name (without the
// address), its level and its message.
func splitLogLine(s string) (ctx, level, msg string) {
	if strings.HasPrefix(s, "[") {
		if end := strings.Index(s, "] "); end > 0 && strings.Contains(s[:end], " @ ") {
			ctx, _, _ = strings.Cut(s[1:end], " @ ")
			s = s[end+2:]
		}
	}
	if strings.HasPrefix(s, "[") {
		if end := strings.Index(s, "] "); end > 0 {
			return ctx, s[1:end], s[end+2:]
		}
	}
	return ctx, "", s
}

// frameLine parses the frame filter's "frame:N pts:P pts_time:T" line
// (nil for its other lines).
func frameLine(msg string) *frameEvent {
	if !strings.HasPrefix(msg, "frame:") {
		return nil
	}
	for _, f := range strings.Fields(msg) {
		if v, ok := strings.CutPrefix(f, "pts:"); ok {
			return &frameEvent{pts: parseTS([]byte(v))}
		}
	}
	return nil
}

// printable maps control characters to spaces, so that a kept message
// stays one line.
func printable(r rune) rune {
	if r < ' ' || r == 0x7f {
		return ' '
	}
	return r
}
