package omezarr

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"vastview/base/fsutil"
	"vastview/base/testtool"
)

// writerEnv makes the test binary a writer that never finishes: it writes
// small(1) to the output the variable names, says "writing" on stdout once
// it reads chunks, and waits there until it is killed or its stdin closes.
const writerEnv = "VASTVIEW_OMEZARR_WRITER"

// writeForever is the child process of writerEnv.
func writeForever(out string) {
	go func() {
		io.Copy(io.Discard, os.Stdin)
		os.Exit(3)
	}()
	src := small(1)
	var once sync.Once
	src.before = func(ctx context.Context, _ int, _ []int) error {
		once.Do(func() { fmt.Println("writing") })
		<-ctx.Done()
		return ctx.Err()
	}
	err := Write(context.Background(), out, src, Options{Workers: 1})
	fmt.Println("error", err)
	os.Exit(2)
}

// startWriter starts a writer of out (see writerEnv) and returns once it
// writes.
func startWriter(t *testing.T, test, out string) *exec.Cmd {
	t.Helper()
	c := testtool.StartChild(t, "^"+test+"$", writerEnv+"="+out)
	line, err := c.Out.ReadString('\n')
	if strings.TrimSpace(line) != "writing" {
		t.Fatalf("writer said %q (%v)", line, err)
	}
	return c.Cmd
}

// partials returns the temporary folders of writes of out.
func partials(t *testing.T, out string) []string {
	t.Helper()
	var p []string
	for _, n := range listDir(t, filepath.Dir(out)) {
		if strings.HasPrefix(n, filepath.Base(out)+".partial-") {
			p = append(p, n)
		}
	}
	slices.Sort(p)
	return p
}

// TestKilledWritesAreCleanedUpRunningOnesKept runs two writers of one
// output in child processes and kills one with SIGKILL: its temporary
// folder stays until the next Write of the output, which removes it and
// leaves the running writer's alone; once that one is killed too, the
// next Write removes its folder as well.
func TestKilledWritesAreCleanedUpRunningOnesKept(t *testing.T) {
	if out := os.Getenv(writerEnv); out != "" {
		writeForever(out)
		return
	}
	const name = "TestKilledWritesAreCleanedUpRunningOnesKept"
	dir := t.TempDir()
	out := filepath.Join(dir, "a.ome.zarr")
	running := startWriter(t, name, out)
	first := partials(t, out)
	killed := startWriter(t, name, out)
	both := partials(t, out)
	if len(first) != 1 || len(both) != 2 {
		t.Fatalf("temporary folders %v, then %v", first, both)
	}
	killed.Process.Kill()
	killed.Wait()
	if p := partials(t, out); !reflect.DeepEqual(p, both) {
		t.Fatalf("after SIGKILL: %v, want the killed writer's folder still there", p)
	}
	if err := Write(context.Background(), out, small(2), Options{}); err != nil {
		t.Fatal(err)
	}
	if p := partials(t, out); !reflect.DeepEqual(p, first) {
		t.Errorf("after the next write: %v, want only the running writer's %v", p, first)
	}
	running.Process.Kill()
	running.Wait()
	if err := Write(context.Background(), out, small(3), Options{Overwrite: true}); err != nil {
		t.Fatal(err)
	}
	if names := listDir(t, dir); !reflect.DeepEqual(names, []string{"a.ome.zarr"}) {
		t.Errorf("folder holds %v once both writers are killed", names)
	}
}

// TestLockedPartialIsKept: a temporary folder whose named owner has ended
// but which a process holds locked (one whose PID means nothing here, in
// another PID namespace) is left alone until the lock is released.
func TestLockedPartialIsKept(t *testing.T) {
	ended := exec.Command(os.Args[0], "-test.run=^$")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "b.ome.zarr")
	stale := fmt.Sprintf("%s.partial-%d-0-x", out, ended.Process.Pid)
	if err := os.Mkdir(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	lock, err := fsutil.TryLockDir(stale, fsutil.Exclusive)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(context.Background(), out, small(1), Options{}); err != nil {
		t.Fatal(err)
	}
	if p := partials(t, out); len(p) != 1 {
		t.Errorf("locked folder removed: %v", p)
	}
	lock.Unlock()
	if err := Write(context.Background(), out, small(1), Options{Overwrite: true}); err != nil {
		t.Fatal(err)
	}
	if p := partials(t, out); len(p) != 0 {
		t.Errorf("unlocked folder of an ended process kept: %v", p)
	}
}

// TestRemoveStaleSaysWhatItDid leaves beside an output what killed and
// running writes leave: RemoveStale removes the unfinished outputs and
// the replaced ones of ended writers and names them, keeps those of
// running ones, and, where out is missing, moves a replaced output of an
// ended writer back to out.
func TestRemoveStaleSaysWhatItDid(t *testing.T) {
	ended := exec.Command(os.Args[0], "-test.run=^$")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	dead := fmt.Sprintf("%d-0", ended.Process.Pid)
	self := fsutil.ProcessTag()
	dir := t.TempDir()
	out := filepath.Join(dir, "c.ome.zarr")
	if err := Write(context.Background(), out, small(1), Options{}); err != nil {
		t.Fatal(err)
	}
	mk := func(name, marker string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, name, "0"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, marker), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	names := []string{
		"c.ome.zarr.partial-" + dead + "-a", "c.ome.zarr.partial-" + self + "-b",
		"c.ome.zarr.old-" + dead + "-c", "c.ome.zarr.old-" + self + "-d",
		"c.ome.zarr.old-x", // no owner in the name
	}
	for _, n := range names {
		mk(n, "marker")
	}
	removed, restored := RemoveStale(out)
	slices.Sort(removed)
	if want := []string{names[2], names[0]}; !reflect.DeepEqual(removed, want) || restored != "" {
		t.Errorf("RemoveStale: removed %v, restored %q; want %v, \"\"", removed, restored, want)
	}
	want := []string{"c.ome.zarr", names[1], names[3], names[4]}
	got := listDir(t, dir)
	slices.Sort(got)
	slices.Sort(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("left %v, want %v", got, want)
	}

	// Killed between moving the old output aside and putting the new one
	// in place: the old one comes back.
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}
	back := "c.ome.zarr.old-" + dead + "-e"
	mk(back, "earlier")
	removed, restored = RemoveStale(out)
	if len(removed) != 0 || restored != back {
		t.Errorf("RemoveStale: removed %v, restored %q; want none, %q", removed, restored, back)
	}
	if _, err := os.Stat(filepath.Join(out, "earlier")); err != nil {
		t.Errorf("the earlier output is not back: %v", err)
	}
}
