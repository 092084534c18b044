package subproc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
)

func init() {
	Register("echo", func(req []byte) ([]byte, error) { return append([]byte("echo:"), req...), nil })
	Register("fail", func(req []byte) ([]byte, error) { return nil, fmt.Errorf("no good: %s", req) })
	Register("crash", func(req []byte) ([]byte, error) {
		if string(req) == "crash" {
			os.Stderr.WriteString("about to crash\n")
			syscall.Kill(os.Getpid(), syscall.SIGSEGV)
			select {}
		}
		return req, nil
	})
	Register("hang", func(req []byte) ([]byte, error) { select {} })
}

func TestMain(m *testing.M) {
	Main()
	os.Exit(m.Run())
}

// TestCall: replies and errors come back; a child that crashes fails only
// its request, with an error saying how it ended, and the next request
// gets a new child.
func TestCall(t *testing.T) {
	ctx := context.Background()
	big := bytes.Repeat([]byte("0123456789"), 300_000)
	got, err := Call(ctx, "echo", big)
	if err != nil || !bytes.Equal(got, append([]byte("echo:"), big...)) {
		t.Fatalf("echo: %d bytes, %v", len(got), err)
	}
	if _, err := Call(ctx, "fail", []byte("x")); err == nil || err.Error() != "no good: x" {
		t.Fatalf("fail: %v", err)
	}
	if got, err := Call(ctx, "echo", nil); err != nil || string(got) != "echo:" {
		t.Fatalf("echo after an error: %q %v", got, err)
	}
	for range 2 {
		_, err := Call(ctx, "crash", []byte("crash"))
		if err == nil || !strings.Contains(err.Error(), "child process crashed (exit status 2: SIGSEGV") ||
			strings.Contains(err.Error(), "\n") {
			t.Fatalf("crash: %v", err)
		}
		if got, err := Call(ctx, "crash", []byte("fine")); err != nil || string(got) != "fine" {
			t.Fatalf("after a crash: %q %v", got, err)
		}
	}
}

// TestCallConcurrent: calls from many goroutines each get their own reply.
func TestCallConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := []byte(fmt.Sprint(i))
			got, err := Call(context.Background(), "echo", req)
			if err == nil && string(got) != "echo:"+string(req) {
				err = fmt.Errorf("request %d got %q", i, got)
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestCallCancelled: a call whose context ends returns its error rather
// than waiting on a child that does not answer.
func TestCallCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := Call(ctx, "hang", []byte("x"))
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	if got, err := Call(context.Background(), "echo", []byte("y")); err != nil || string(got) != "echo:y" {
		t.Fatalf("after a cancelled call: %q %v", got, err)
	}
}
