// Package subproc runs work that may crash the process (C decoders that
// trust their input) in child processes: the program's own executable,
// started again with an environment variable naming the work, serving
// requests over its standard input and output. A child that crashes
// fails the request it was serving with an error saying so; the next
// request starts a new one. The program goes on.
//
// A program that uses it calls Main first thing in main (and a test
// binary in TestMain): in a child, Main serves requests and never
// returns.
package subproc

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
)

// envName is the environment variable that makes a process a child: its
// value names the handler it serves.
const envName = "VASTVIEW_SUBPROC"

// maxMessage bounds a request or reply (a decoded picture of 2 GiB).
const maxMessage = 1 << 31

// Handler does one request in the child and returns its reply.
type Handler func(req []byte) ([]byte, error)

var (
	mu       sync.Mutex
	handlers = map[string]Handler{}
	pools    = map[string]*pool{}
	ready    bool // Main was called: the executable serves as a child
)

// Register names h, for Call. It is for init functions.
func Register(name string, h Handler) {
	mu.Lock()
	defer mu.Unlock()
	handlers[name] = h
}

// Main serves requests and exits when this process was started as a
// child; else it returns at once, and Call may start children.
func Main() {
	name := os.Getenv(envName)
	mu.Lock()
	ready = true
	h := handlers[name]
	mu.Unlock()
	if name == "" {
		return
	}
	if h == nil {
		fmt.Fprintf(os.Stderr, "subproc: no handler %q\n", name)
		os.Exit(2)
	}
	if err := serve(h, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "subproc %s: %v\n", name, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// serve answers requests from r on w until r ends. A message is its
// length (uint64, little-endian) and its bytes; a reply starts with a
// status byte: 0 for a reply, 1 for an error's text.
func serve(h Handler, r io.Reader, w io.Writer) error {
	br, bw := bufio.NewReader(r), bufio.NewWriter(w)
	for {
		req, err := readMessage(br)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		reply, herr := h(req)
		status := byte(0)
		if herr != nil {
			status, reply = 1, []byte(herr.Error())
		}
		if err := bw.WriteByte(status); err != nil {
			return err
		}
		if err := writeMessage(bw, reply); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
	}
}

func readMessage(r io.Reader) ([]byte, error) {
	var n [8]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	size := binary.LittleEndian.Uint64(n[:])
	if size > maxMessage {
		return nil, fmt.Errorf("message of %d bytes", size)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, io.ErrUnexpectedEOF
	}
	return b, nil
}

func writeMessage(w io.Writer, b []byte) error {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	_, err := w.Write(b)
	return err
}

// Call runs req through the handler registered as name in a child
// process and returns its reply, or its error. A child that crashes on
// req gives an error naming how it ended. Calls run in parallel, on up to
// one child per CPU. It is safe for concurrent use.
func Call(ctx context.Context, name string, req []byte) ([]byte, error) {
	p, err := poolFor(name)
	if err != nil {
		return nil, err
	}
	var c *child
	select {
	case c = <-p.idle:
	case p.slots <- struct{}{}:
		if c, err = start(name); err != nil {
			<-p.slots
			return nil, err
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	reply, err := c.call(ctx, req)
	var ce *callError
	if err == nil || errors.As(err, &ce) {
		p.idle <- c // the child goes on serving
		return reply, err
	}
	c.kill()
	<-p.slots
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return nil, err
}

func poolFor(name string) (*pool, error) {
	mu.Lock()
	defer mu.Unlock()
	if !ready {
		return nil, fmt.Errorf("%s runs in a child process, which this program does not start (subproc.Main is not called)", name)
	}
	if handlers[name] == nil {
		return nil, fmt.Errorf("subproc: no handler %q", name)
	}
	p := pools[name]
	if p == nil {
		n := runtime.GOMAXPROCS(0)
		p = &pool{idle: make(chan *child, n), slots: make(chan struct{}, n)}
		pools[name] = p
	}
	return p, nil
}

// pool is the children serving one handler: slots holds a token per
// child running, idle those waiting for a request.
type pool struct {
	idle  chan *child
	slots chan struct{}
}

// child is one running child process.
type child struct {
	name   string
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *report
	done   chan struct{} // closed when the process has ended
	err    error         // how it ended, once done is closed
}

// callError is the handler's own error for a request: the child is fine.
type callError struct{ msg string }

func (e *callError) Error() string { return e.msg }

func start(name string) (*child, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("starting the %s child: %v", name, err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), envName+"="+name)
	c := &child{name: name, cmd: cmd, stderr: &report{}, done: make(chan struct{})}
	cmd.Stderr = c.stderr
	if c.in, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c.out = bufio.NewReader(out)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the %s child: %v", name, err)
	}
	return c, nil
}

// call sends req and waits for the reply; if ctx ends first the child is
// killed.
func (c *child) call(ctx context.Context, req []byte) ([]byte, error) {
	type result struct {
		reply []byte
		err   error
	}
	res := make(chan result, 1)
	go func() {
		reply, err := c.roundTrip(req)
		res <- result{reply, err}
	}()
	select {
	case r := <-res:
		if r.err != nil && !isCallError(r.err) {
			return nil, c.died()
		}
		return r.reply, r.err
	case <-ctx.Done():
		c.kill()
		<-res
		return nil, ctx.Err()
	}
}

func isCallError(err error) bool {
	var ce *callError
	return errors.As(err, &ce)
}

func (c *child) roundTrip(req []byte) ([]byte, error) {
	if err := writeMessage(c.in, req); err != nil {
		return nil, err
	}
	status, err := c.out.ReadByte()
	if err != nil {
		return nil, err
	}
	reply, err := readMessage(c.out)
	if err != nil {
		return nil, err
	}
	if status != 0 {
		return nil, &callError{string(reply)}
	}
	return reply, nil
}

// died waits for the child that stopped answering and says how it ended.
func (c *child) died() error {
	c.kill()
	msg := c.err.Error()
	if s := c.stderr.line(); s != "" {
		msg += ": " + s
	}
	return fmt.Errorf("the %s child process crashed (%s)", c.name, msg)
}

// kill ends the child and waits for it.
func (c *child) kill() {
	select {
	case <-c.done:
		return
	default:
	}
	c.in.Close()
	c.cmd.Process.Kill()
	c.err = c.cmd.Wait()
	if c.err == nil {
		c.err = errors.New("it exited")
	}
	close(c.done)
}

// report keeps the first bytes a child wrote to its standard error (where a
// crash report says why).
type report struct {
	mu sync.Mutex
	b  []byte
}

func (t *report) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if room := 8192 - len(t.b); room > 0 {
		t.b = append(t.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// line is the line of what was written that says why the child ended:
// the first naming a signal, a fatal error, a panic or a failed assertion
// (a Go crash report starts with one), else the last non-empty one kept.
func (t *report) line() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.b)), "\n")
	for _, l := range lines {
		for _, w := range []string{"signal", "SIG", "fatal error", "panic", "ssert"} {
			if strings.Contains(l, w) {
				return strings.TrimSpace(l)
			}
		}
	}
	return strings.TrimSpace(lines[len(lines)-1])
}
