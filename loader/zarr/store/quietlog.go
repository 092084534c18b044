package store

import (
	"bytes"
	"io"
	"log"
	"sync"
)

// net/http's Transport prints "Unsolicited response received on idle HTTP
// channel ..." to the standard logger when a server sends more bytes than
// a response announced (a Content-Length smaller than the body). A client
// cannot prevent it short of giving up keep-alive: the Transport puts a
// connection back in its idle pool as soon as a body has been read to its
// announced end, before the caller sees the value, and prints the line from
// its own goroutine when the extra bytes turn up on the idle connection
// (persistConn.readLoopPeekFailLocked), which it then closes. The value
// read is what the server announced and the connection is not reused, so
// the line tells a reader nothing; on the command line it would be a second
// line on stderr. NewHTTP therefore drops that line from the standard
// logger's output.

var muteMu sync.Mutex

// muteUnsolicited makes the standard logger drop net/http's "Unsolicited
// response" line; other lines go to its output as before. It wraps the
// output current when it is called, once.
func muteUnsolicited() {
	muteMu.Lock()
	defer muteMu.Unlock()
	if _, ok := log.Writer().(*muted); !ok {
		log.SetOutput(&muted{w: log.Writer()})
	}
}

// muted is a log output without net/http's "Unsolicited response" lines.
// The logger writes each line with one call.
type muted struct{ w io.Writer }

var unsolicited = []byte("Unsolicited response received on idle HTTP channel")

func (m *muted) Write(p []byte) (int, error) {
	if bytes.Contains(p, unsolicited) {
		return len(p), nil
	}
	return m.w.Write(p)
}
