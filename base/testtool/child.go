package testtool

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// Child is the test binary run again as a child process: its command, the
// pipe to its standard input (a child that waits on it ends when it is
// closed) and its standard output. Its standard error is the test's.
type Child struct {
	Cmd   *exec.Cmd
	Stdin io.WriteCloser
	Out   *bufio.Reader
	once  sync.Once
	err   error
}

// Wait waits for the child to end and returns how it ended; it may be
// called more than once, from any goroutine.
func (c *Child) Wait() error {
	c.once.Do(func() { c.err = c.Cmd.Wait() })
	return c.err
}

// StartChild runs the test binary again with only the test run (a
// -test.run pattern) and env added to the environment. The child is
// killed when t ends, or when t's deadline is near if it still runs then,
// so that one that hangs ends its output instead of the whole test run.
func StartChild(t *testing.T, run string, env ...string) *Child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run="+run)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := func() {}
	if dl, ok := t.Deadline(); ok && time.Until(dl) > 10*time.Second {
		timer := time.AfterFunc(time.Until(dl)-5*time.Second, func() { cmd.Process.Kill() })
		stop = func() { timer.Stop() }
	}
	c := &Child{Cmd: cmd, Stdin: stdin, Out: bufio.NewReader(out)}
	t.Cleanup(func() { stop(); stdin.Close(); cmd.Process.Kill(); c.Wait() })
	return c
}
