package levels

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/loader"
)

// TestLevelsWithoutAWritableDiskCache builds and reads every level with a
// disk cache that cannot be written, in several ways, at the opening of
// the entry, at the first chunk or after some chunks: the levels are those
// of the plain rule and DiskError says why the cache is not used.
func TestLevelsWithoutAWritableDiskCache(t *testing.T) {
	breakers := []struct {
		name string
		// spoil makes the cache unwritable once the pyramid is open on the
		// entry e (under root), or before it opens if early is set (e nil).
		early bool
		spoil func(t *testing.T, root string, e *diskEntry)
	}{
		{"root replaced by a file", true, func(t *testing.T, root string, _ *diskEntry) {
			replaceWithFile(t, root)
		}},
		{"entry replaced by a file", false, func(t *testing.T, _ string, e *diskEntry) {
			replaceWithFile(t, e.dir)
		}},
		{"level files are folders", false, func(t *testing.T, _ string, e *diskEntry) {
			for k := 1; k < 8; k++ {
				os.Mkdir(filepath.Join(e.dir, fmt.Sprintf("L%d.0", k)), 0o755)
			}
		}},
		{"second level's file is a folder", false, func(t *testing.T, _ string, e *diskEntry) {
			os.Mkdir(filepath.Join(e.dir, "L2.0"), 0o755)
			t.Cleanup(func() {
				if countChunks(e) == 0 {
					t.Error("no chunk reached the disk cache before it failed")
				}
			})
		}},
		{"read-only entry", false, func(t *testing.T, _ string, e *diskEntry) {
			if os.Geteuid() == 0 {
				t.Skip("permissions do not bind root")
			}
			if err := os.Chmod(e.dir, 0o555); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(e.dir, 0o755) })
		}},
	}
	layouts := []struct {
		name         string
		shape, chunk []int
		build        bool
	}{
		{"planes, streamed build", []int{16, 150, 140}, []int{1, 150, 140}, true},
		{"blocks, level by level", []int{9, 130, 117}, []int{3, 32, 40}, true},
		{"blocks, on demand", []int{9, 130, 117}, []int{3, 32, 40}, false},
	}
	for _, b := range breakers {
		for _, l := range layouts {
			t.Run(b.name+"/"+l.name, func(t *testing.T) {
				root := filepath.Join(t.TempDir(), "levels")
				d, err := OpenDisk(root, 1<<30)
				if err != nil {
					t.Fatal(err)
				}
				id := loader.Identity{Path: "/data/" + l.name, Size: 1, MTime: 1}
				if b.early {
					b.spoil(t, root, nil)
				}
				// A small chunk cache: computed chunks are evicted and
				// computed again while the levels are read.
				p, err := Open(newHash("ZYX", l.shape, l.chunk), Options{CacheBytes: 256 << 10, Disk: d, Identity: id})
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				if !b.early {
					e := p.disk.Load()
					if e == nil {
						t.Fatalf("disk cache not opened: %v", p.DiskError())
					}
					b.spoil(t, root, e)
				}
				if l.build {
					if err := p.Build(context.Background(), 2); err != nil {
						t.Fatalf("build: %v", err)
					}
				}
				checkLevels(t, p, refLevels(l.shape, allValues(l.shape), p.reduce))
				if err := p.DiskError(); err == nil || !strings.HasPrefix(err.Error(), "disk cache not used: ") {
					t.Errorf("DiskError() = %v", err)
				}
			})
		}
	}
}

// replaceWithFile removes the folder path and puts a regular file there.
func replaceWithFile(t *testing.T, path string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
}
