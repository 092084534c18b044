package levels

import (
	"context"
	"encoding/binary"
	"testing"

	"vastview/base/nd"
	"vastview/loader"
)

// TestBuildBudgetBuildsTheCoarseLevelsOfALongMovie checks Options.BuildBytes:
// a movie whose levels do not all fit gets the coarsest ones that do (a
// thumbnail level and those above it), equal to the plain rule, while the
// finer level is still computed where it is viewed and never built.
func TestBuildBudgetBuildsTheCoarseLevelsOfALongMovie(t *testing.T) {
	// Whole frames go through the streaming build, half frames level by level.
	for _, chunk := range [][]int{{1, 600, 520}, {1, 300, 520}} {
		t.Run(IdxKey(chunk), func(t *testing.T) { testBuildBudget(t, chunk) })
	}
}

func testBuildBudget(t *testing.T, chunk []int) {
	shape := []int{40, 600, 520} // T, Y, X: levels halve Y and X only
	d, _ := OpenDisk(t.TempDir(), 1<<30)
	open := func(budget int64) *Pyramid {
		p, err := Open(newHash("TYX", shape, chunk), Options{CacheBytes: 256 << 20, BuildBytes: budget,
			Disk: d, Identity: loader.Identity{Path: "/movie.avi", Size: 1, MTime: budget}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	all := open(0)
	defer all.Close()
	lv := all.Levels()
	if len(lv) != 3 || all.BuiltFrom() != 1 {
		t.Fatalf("%d levels built from %d, want 3 levels built from 1", len(lv), all.BuiltFrom())
	}
	bytesOf := func(k int) int64 {
		return int64(nd.Product(lv[k].Grid())) * int64(lv[k].ChunkBytes(loader.Uint16))
	}
	p := open(bytesOf(2) + bytesOf(1)/2) // room for level 2, not for level 1 too
	defer p.Close()
	if p.BuiltFrom() != 2 {
		t.Fatalf("built from level %d, want 2", p.BuiltFrom())
	}
	if p.Thumbnails() != len(lv) {
		t.Errorf("thumbnails at level %d before the build", p.Thumbnails())
	}
	if err := p.Build(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if p.Thumbnails() != 2 {
		t.Errorf("thumbnails at level %d after the build, want 2", p.Thumbnails())
	}
	prog := p.Progress()
	if len(prog) != 1 || prog[0].Level != 2 || prog[0].Done != prog[0].Total || prog[0].Total != int64(nd.Product(lv[2].Grid())) {
		t.Errorf("progress %+v, want level 2 complete", prog)
	}
	if n := countChunks(p.disk.Load()); n != int(nd.Product(lv[2].Grid())) {
		t.Errorf("%d chunks on disk, want the %d of level 2 only", n, nd.Product(lv[2].Grid()))
	}
	if !p.disk.Load().has(2, []int{39, 0, 0}) {
		t.Error("the thumbnail level's last frame was not built")
	}
	ref := refLevels(shape, allValues(shape), p.reduce)
	for _, k := range []int{2, 1} {
		got, err := loader.ReadAll(context.Background(), p, k, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range ref[k] {
			if g := binary.LittleEndian.Uint16(got[2*i:]); g != w {
				t.Fatalf("level %d sample %d = %d, want %d", k, i, g, w)
			}
		}
	}
}
