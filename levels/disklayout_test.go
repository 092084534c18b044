package levels

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"vastview/base/fsutil"
	"vastview/base/nd"
	"vastview/loader"
)

// TestBuildWritesASlabFilePerLevel builds levels of many chunks into a
// disk cache: the entry holds its manifest and one slab file per computed
// level, not a file per chunk, and a pyramid opened again reads every
// chunk from them.
func TestBuildWritesASlabFilePerLevel(t *testing.T) {
	root := t.TempDir()
	shape := []int{40, 700, 600}
	open := func() *Pyramid {
		t.Helper()
		d, err := OpenDisk(root, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Open(newHash("ZYX", shape, []int{1, 700, 600}), Options{CacheBytes: 1 << 20, Disk: d, Identity: loader.Identity{Path: "/slabs", Size: 1, MTime: 1}})
		if err != nil || p.DiskError() != nil {
			t.Fatal(err, p.DiskError())
		}
		return p
	}
	p := open()
	if err := p.Build(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	chunks := 0
	for _, l := range p.Levels()[p.Stored():] {
		chunks += nd.Product(l.Grid())
	}
	computed := len(p.Levels()) - p.Stored()
	dir := p.disk.Load().dir
	p.Close()
	var files []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, d.Name())
		}
		return nil
	})
	if chunks <= computed+1 || len(files) != computed+1 {
		t.Errorf("%d computed chunks of %d levels in %d files: %v", chunks, computed, len(files), files)
	}
	again := open()
	defer again.Close()
	checkLevels(t, again, refLevels(shape, allValues(shape), again.reduce))
	if _, n := again.Counts(); n != 0 {
		t.Errorf("opened again: %d chunks computed", n)
	}
}

// TestEntriesOfTheEarlierLayoutAreRemoved puts two entries of the earlier
// layout (a file per chunk, no layout in the manifest) in a cache root,
// one of them in use by another pyramid (a shared lock, as an older
// version holds it): opening a pyramid on the cache removes the other,
// and leaves the one in use.
func TestEntriesOfTheEarlierLayoutAreRemoved(t *testing.T) {
	root := t.TempDir()
	old := func(name string) string {
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Join(dir, "L1"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"identity": {}, "axes": "ZYX", "levels": []}`), 0o644)
		os.WriteFile(filepath.Join(dir, "L1", "0_0_0"), make([]byte, 1000), 0o644)
		return dir
	}
	unused, used := old("0123456789abcdef01234567"), old("89abcdef0123456789abcdef")
	lock, err := fsutil.LockDir(used, fsutil.Shared)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	p, _, err := openShared(root, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := os.Stat(unused); !os.IsNotExist(err) {
		t.Errorf("entry of the earlier layout kept (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(used, "L1", "0_0_0")); err != nil {
		t.Errorf("entry of the earlier layout in use removed: %v", err)
	}
}

// TestBuildReadsEachBandOnce builds the levels of a plane stored in bands
// of rows (as a TIFF strip too large to read whole is read) with a disk
// cache and a memory cache of a few bands: each band is read from the
// source once, the chunks computed from it going to disk rather than
// pushing the bands out of memory.
func TestBuildReadsEachBandOnce(t *testing.T) {
	shape, band := []int{1, 4096, 4096}, []int{1, 256, 4096}
	src := newHash("ZYX", shape, band)
	d, err := OpenDisk(t.TempDir(), 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Open(src, Options{CacheBytes: 6 << 20, Disk: d, Identity: loader.Identity{Path: "/bands", Size: 1, MTime: 1}})
	if err != nil || p.DiskError() != nil {
		t.Fatal(err, p.DiskError())
	}
	defer p.Close()
	if err := p.Build(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if n, bands := src.reads.Load(), int64(nd.Product(p.Levels()[0].Grid())); n != bands {
		t.Errorf("%d bands read for %d bands", n, bands)
	}
	checkLevels(t, p, refLevels(shape, allValues(shape), p.reduce))
}
