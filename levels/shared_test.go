package levels

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vastview/base/fsutil"
	"vastview/base/nd"
	"vastview/base/testtool"
	"vastview/loader"
)

// sharedEnv makes the test binary one of the processes of
// TestTwoProcessesShareADiskCache: "ROOT LAYOUT REOPENS". It says "ready",
// waits for a line on stdin, opens and closes a pyramid on the disk cache
// at ROOT REOPENS times (as a viewer does when it browses), builds the
// layout's levels into it (saying "built" for each chunk), checks them,
// checks that a pyramid opened again reads them all from the cache, that
// no chunk file it read was damaged (half written, say), and says "ok".
const sharedEnv = "VASTVIEW_LEVELS_SHARED"

// sharedLayouts are the sources the processes build: whole planes (one
// streaming pass) and blocks (level by level).
var sharedLayouts = []struct{ shape, chunk []int }{
	{[]int{32, 160, 150}, []int{1, 160, 150}},
	{[]int{17, 150, 140}, []int{4, 48, 64}},
}

func openShared(root string, layout int) (*Pyramid, *hashSource, error) {
	l := sharedLayouts[layout]
	src := newHash("ZYX", l.shape, l.chunk)
	d, err := OpenDisk(root, 1<<30)
	if err != nil {
		return nil, nil, err
	}
	p, err := Open(src, Options{CacheBytes: 1 << 20, Disk: d, Identity: loader.Identity{Path: "/shared", Size: int64(layout), MTime: 1}})
	if err == nil {
		err = p.DiskError()
	}
	return p, src, err
}

// buildShared is the child process of sharedEnv.
func buildShared(t *testing.T, arg string) {
	var root string
	var layout, reopens int
	if _, err := fmt.Sscanf(arg, "%s %d %d", &root, &layout, &reopens); err != nil {
		t.Fatal(err)
	}
	in := bufio.NewScanner(os.Stdin)
	fmt.Println("ready")
	if !in.Scan() {
		t.Fatal("stdin closed before the start")
	}
	for range reopens {
		p, _, err := openShared(root, layout)
		if err != nil {
			t.Fatal(err)
		}
		p.Close()
	}
	p, _, err := openShared(root, layout)
	if err != nil {
		t.Fatal(err)
	}
	events, _ := p.Subscribe()
	go func() {
		for e := range events {
			if e.Level >= p.Stored() && e.Err == nil {
				fmt.Println("built")
			}
		}
	}()
	if err := p.Build(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	l := sharedLayouts[layout]
	ref := refLevels(l.shape, allValues(l.shape), p.reduce)
	checkLevels(t, p, ref)
	if err := p.DiskError(); err != nil {
		t.Fatal(err)
	}
	if n := p.diskHeld.damaged.Load(); n != 0 {
		t.Fatalf("building: %d damaged chunk files read", n)
	}
	p.Close()
	again, src, err := openShared(root, layout)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	checkLevels(t, again, ref)
	if n := again.diskHeld.damaged.Load(); n != 0 {
		t.Fatalf("opened again: %d damaged chunk files read", n)
	}
	// Level 0 is read once by checkLevels; nothing else comes from the source.
	if _, computed := again.Counts(); computed != 0 || src.reads.Load() != int64(nd.Product(again.Levels()[0].Grid())) {
		t.Fatalf("opened again: %d chunks computed, %d read from the source", computed, src.reads.Load())
	}
	fmt.Println("ok")
}

// sharedChild is a running process of sharedEnv and its output.
type sharedChild struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string // its stdout, closed at the end
	done  chan error  // its exit
	out   strings.Builder
}

func startShared(t *testing.T, root string, layout, reopens int) *sharedChild {
	t.Helper()
	c := &sharedChild{lines: make(chan string, 1024), done: make(chan error, 1)}
	ch := testtool.StartChild(t, "^TestTwoProcessesShareADiskCache$", fmt.Sprintf("%s=%s %d %d", sharedEnv, root, layout, reopens))
	c.cmd, c.stdin = ch.Cmd, ch.Stdin
	go func() {
		sc := bufio.NewScanner(ch.Out)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
		c.done <- ch.Wait()
	}()
	return c
}

// await reads the child's output until a line equal to want has come n
// times; false if the child ended first. A nil deadline never comes.
func (c *sharedChild) await(t *testing.T, deadline <-chan time.Time, want string, n int) bool {
	t.Helper()
	for n > 0 {
		select {
		case l, ok := <-c.lines:
			if !ok {
				return false
			}
			fmt.Fprintln(&c.out, l)
			if l == want {
				n--
			}
		case <-deadline:
			t.Fatalf("waited too long for %q; output so far:\n%s", want, c.out.String())
		}
	}
	return true
}

// TestTwoProcessesShareADiskCache has two processes build the same levels
// of one source into one disk cache root at the same time, round after
// round: started together, or the second once the first has stored some
// chunks (opening the cache again and again while the first builds), over
// both ways of building. Both must succeed, use the cache throughout,
// never read a damaged chunk file, and leave every chunk in it, right,
// with no temporary file or folder.
func TestTwoProcessesShareADiskCache(t *testing.T) {
	if arg := os.Getenv(sharedEnv); arg != "" {
		buildShared(t, arg)
		return
	}
	const rounds = 6
	// A hang is reported with the children's output before go test's
	// -timeout ends the run.
	var deadline <-chan time.Time
	if d, ok := t.Deadline(); ok {
		deadline = time.After(time.Until(d) * 9 / 10)
	}
	for round := range rounds {
		layout := round / 2 % len(sharedLayouts)
		root := filepath.Join(t.TempDir(), "levels")
		staggered := round%2 == 1
		a, b := startShared(t, root, layout, 0), startShared(t, root, layout, map[bool]int{true: 30}[staggered])
		if !a.await(t, deadline, "ready", 1) || !b.await(t, deadline, "ready", 1) {
			t.Fatalf("round %d: a child ended before it started", round)
		}
		fmt.Fprintln(a.stdin, "go")
		if staggered {
			a.await(t, deadline, "built", 1+round)
		}
		fmt.Fprintln(b.stdin, "go")
		for i, c := range []*sharedChild{a, b} {
			c.await(t, deadline, "ok", 1)
			for range c.lines {
			}
			if err := <-c.done; err != nil || !strings.Contains(c.out.String(), "ok\n") {
				t.Fatalf("round %d, process %d (layout %d): %v\n%s", round, i, layout, err, c.out.String())
			}
		}
		if left := leftovers(root); len(left) != 0 {
			t.Errorf("round %d: left behind: %v", round, left)
		}
	}
}

// leftovers lists the temporary files under root and the folders of
// entries being made or removed in it.
func leftovers(root string) []string {
	var left []string
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && path != root && strings.HasPrefix(d.Name(), ".") {
			rel, _ := filepath.Rel(root, path)
			left = append(left, rel)
		}
		return nil
	})
	return left
}

// tagEnv makes the test binary print its fsutil.ProcessTag and end.
const tagEnv = "VASTVIEW_LEVELS_TAG"

// TestOpeningAnEntryKeepsTempsOfRunningWriters leaves folders of entries
// being made or removed in the cache root, then opens an entry again:
// those of running writers stay, those of ended writers go.
func TestOpeningAnEntryKeepsTempsOfRunningWriters(t *testing.T) {
	if os.Getenv(tagEnv) != "" {
		fmt.Println(fsutil.ProcessTag())
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestOpeningAnEntryKeepsTempsOfRunningWriters$")
	cmd.Env = append(os.Environ(), tagEnv+"=1")
	b, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	ended, _, _ := strings.Cut(string(b), "\n")
	self := fsutil.ProcessTag()
	root := t.TempDir()
	p, _, err := openShared(root, 0)
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	folders := []struct {
		name string // under root
		kept bool
	}{
		{".new-" + self + "-7", true},
		{".new-" + ended + "-8", false},
		{".trash-" + self + "-9", true},
		{".trash-" + ended + "-10", false},
		{".other", true},
	}
	for _, f := range folders {
		// A folder such as they leave: an entry, or part of one.
		path := filepath.Join(root, f.name, "L1.0")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, _, err = openShared(root, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, f := range folders {
		_, err := os.Stat(filepath.Join(root, f.name))
		if kept := err == nil; kept != f.kept {
			t.Errorf("%s: kept %v, want %v", f.name, kept, f.kept)
		}
	}
}

// TestEntriesInUseAreNotEvicted opens two pyramids on different sources
// with a cache limit that holds only one: neither removes the other's
// entry while it is open, both build into the cache, and each entry is
// whole when opened again; an entry no longer in use is evicted.
func TestEntriesInUseAreNotEvicted(t *testing.T) {
	root := t.TempDir()
	shape := []int{12, 120, 100}
	open := func(name string) *Pyramid {
		t.Helper()
		d, err := OpenDisk(root, 1)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Open(newHash("ZYX", shape, []int{1, 120, 100}), Options{Disk: d, Identity: loader.Identity{Path: name, Size: 1, MTime: 1}})
		if err != nil || p.DiskError() != nil {
			t.Fatal(err, p.DiskError())
		}
		return p
	}
	a, b := open("/a"), open("/b")
	ref := refLevels(shape, allValues(shape), a.reduce)
	for _, p := range []*Pyramid{a, b} {
		if err := p.Build(context.Background(), 2); err != nil {
			t.Fatal(err)
		}
		checkLevels(t, p, ref)
		if err := p.DiskError(); err != nil {
			t.Fatal(err)
		}
	}
	dirA, dirB := a.disk.Load().dir, b.disk.Load().dir
	b.Close()
	a.Close()
	a = open("/a") // evicts b's entry
	defer a.Close()
	checkLevels(t, a, ref)
	if _, computed := a.Counts(); computed != 0 {
		t.Errorf("opened again, %d chunks computed: the entry was damaged while in use", computed)
	}
	if _, err := os.Stat(dirB); !os.IsNotExist(err) || dirA == dirB {
		t.Errorf("entry not in use kept beyond the limit (%v)", err)
	}
}

// TestDamagedManifestIsReplacedUnlessInUse damages the manifest of an
// entry: a pyramid opened then goes without the disk cache while another
// uses the entry, and once none does, the entry is made afresh (its
// chunks computed again, then read from it).
func TestDamagedManifestIsReplacedUnlessInUse(t *testing.T) {
	root := t.TempDir()
	a, _, err := openShared(root, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Build(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	dir := a.disk.Load().dir
	man := filepath.Join(dir, "manifest.json")
	if err := os.WriteFile(man, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, _, err := openShared(root, 0)
	if err == nil || b.disk.Load() != nil {
		t.Errorf("opened on a damaged entry in use: %v", err)
	}
	b.Close()
	l := sharedLayouts[0]
	ref := refLevels(l.shape, allValues(l.shape), a.reduce)
	checkLevels(t, a, ref)
	if _, computed := a.Counts(); a.DiskError() != nil || computed == 0 {
		t.Fatalf("the pyramid using the entry: %v, %d chunks computed", a.DiskError(), computed)
	}
	a.Close()

	c, _, err := openShared(root, 0)
	if err != nil {
		t.Fatal(err)
	}
	if c.disk.Load().dir != dir {
		t.Fatalf("entry %s, want %s", c.disk.Load().dir, dir)
	}
	if c.disk.Load().has(1, []int{0, 0, 0}) {
		t.Error("a chunk of the damaged entry kept")
	}
	if err := c.Build(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	c.Close()
	d, _, err := openShared(root, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	checkLevels(t, d, ref)
	if _, computed := d.Counts(); computed != 0 {
		t.Errorf("the entry made afresh: %d chunks computed when read again", computed)
	}
}
