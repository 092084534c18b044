package fsutil

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"vastview/base/testtool"
)

// childEnv makes the test binary a child process that prints its
// ProcessTag, locks the folder the variable names (if any) and waits for
// its stdin to close.
const childEnv = "VASTVIEW_FSUTIL_CHILD"

func TestMain(m *testing.M) {
	if v, ok := os.LookupEnv(childEnv); ok {
		if v != "" {
			if _, err := LockDir(v, Shared); err != nil {
				fmt.Println("error", err)
				os.Exit(2)
			}
		}
		fmt.Println(ProcessTag())
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// child starts a child process (see childEnv) and returns it once it has
// printed its tag, with the tag and the pipe that ends it when closed.
func child(t *testing.T, lockDir string) (*exec.Cmd, string, io.WriteCloser) {
	t.Helper()
	c := testtool.StartChild(t, "", childEnv+"="+lockDir)
	line, err := c.Out.ReadString('\n')
	tag := strings.TrimSpace(line)
	if err != nil || strings.HasPrefix(tag, "error") {
		t.Fatalf("child: %q %v", line, err)
	}
	return c.Cmd, tag, c.Stdin
}

func TestProcessTagTellsRunningFromEnded(t *testing.T) {
	if !Alive(ProcessTag()) {
		t.Errorf("this process (%s) counts as ended", ProcessTag())
	}
	cmd, tag, stdin := child(t, "")
	if !Alive(tag) {
		t.Errorf("running child %s counts as ended", tag)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if Alive(tag) {
		t.Errorf("ended child %s counts as running", tag)
	}
	if runtime.GOOS == "linux" {
		// A PID in use again by another process: the start time differs.
		pid, _, _ := strings.Cut(ProcessTag(), "-")
		if other := pid + "-1"; Alive(other) {
			t.Errorf("%s, this PID with another start time, counts as running", other)
		}
	}
	for _, bad := range []string{"", "x", "12", "12-", "-5", "0-0", "a-1"} {
		if !Alive(bad) {
			t.Errorf("unreadable tag %q counts as ended", bad)
		}
	}
}

func TestStaleTempsAreThoseOfEndedWritersOrOld(t *testing.T) {
	cmd, ended, stdin := child(t, "")
	stdin.Close()
	cmd.Wait()
	now, old := time.Now(), time.Now().Add(-2*time.Hour)
	// This process's start time, where the system tells it, makes its
	// files its own however old they are; without one, the PID alone
	// cannot tell it from an ended writer whose PID it took.
	startKnown := !strings.HasSuffix(ProcessTag(), "-0")
	noStart := strconv.Itoa(os.Getpid()) + "-0"
	for _, c := range []struct {
		name  string
		mod   time.Time
		stale bool
	}{
		{TempPrefix + ProcessTag() + "-123", now, false},
		{TempPrefix + ProcessTag() + "-123", old, !startKnown},
		{TempPrefix + noStart + "-123", now, false},
		{TempPrefix + noStart + "-123", old, true}, // the PID may have been reused
		{TempPrefix + ended + "-123", now, true},
		{TempPrefix + "123456", now, false}, // no writer in the name
		{TempPrefix + "123456", old, true},
		{"0_0_0", old, false},
		{"manifest.json", old, false},
	} {
		if got := StaleTemp(c.name, c.mod, time.Hour); got != c.stale {
			t.Errorf("StaleTemp(%q, %v ago) = %v", c.name, time.Since(c.mod).Round(time.Hour), got)
		}
	}
}

func TestLockDirExcludesAndEndsWithItsHolder(t *testing.T) {
	if !canLock {
		t.Skip("no folder locks on " + runtime.GOOS)
	}
	dir := t.TempDir()
	a, err := LockDir(dir, Shared)
	if err != nil {
		t.Fatal(err)
	}
	b, err := TryLockDir(dir, Shared)
	if err != nil {
		t.Fatalf("second shared lock: %v", err)
	}
	if _, err := TryLockDir(dir, Exclusive); !errors.Is(err, ErrLocked) {
		t.Fatalf("exclusive lock beside shared ones: %v", err)
	}
	a.Unlock()
	b.Unlock()
	x, err := TryLockDir(dir, Exclusive)
	if err != nil {
		t.Fatalf("exclusive lock after unlocking: %v", err)
	}
	// The lock follows the folder: the name is free for a new folder.
	moved := dir + "-moved"
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(moved)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := TryLockDir(moved, Shared); !errors.Is(err, ErrLocked) {
		t.Errorf("moved folder not locked: %v", err)
	}
	y, err := TryLockDir(dir, Exclusive)
	if err != nil {
		t.Errorf("new folder at the old name: %v", err)
	}
	x.Unlock()
	y.Unlock()
	// A lock held by a process ends when the process is killed.
	cmd, _, _ := child(t, dir)
	if _, err := TryLockDir(dir, Exclusive); !errors.Is(err, ErrLocked) {
		t.Fatalf("folder locked by a child: %v", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	z, err := TryLockDir(dir, Exclusive)
	if err != nil {
		t.Fatalf("after the child was killed: %v", err)
	}
	z.Unlock()
	if _, err := LockDir(filepath.Join(dir, "missing"), Shared); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("locking a missing folder: %v", err)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	if l, err := LockDir(file, Shared); err == nil || errors.Is(err, ErrLocked) {
		l.Unlock()
		t.Errorf("locking a file: %v", err)
	}
}
