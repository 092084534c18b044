package render

import (
	"context"
	"testing"

	"vastview/levels"
	"vastview/loader"
)

// TestSteppingPrefetchesThumbnailsFarAhead checks that stepping through a
// long movie whose fine levels are not built asks for the built
// (thumbnail) level's chunks of the next 32 frames, in the direction of
// motion, besides the frame level's next three.
func TestSteppingPrefetchesThumbnailsFarAhead(t *testing.T) {
	shape := []int{100, 600, 520}
	data := makeArray(shape, loader.Uint16, func(p []int) float64 { return hashByte(p) * 100 })
	m := loader.NewMeta("mem", "TYX", shape, loader.Uint16, []int{1, 600, 520}, nil, nil)
	d, err := levels.OpenDisk(t.TempDir(), 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	pyr, err := levels.Open(&memSource{meta: m, arrays: [][]byte{data}}, levels.Options{BuildBytes: 100 * 150 * 130 * 2 * 2,
		Disk: d, Identity: loader.Identity{Path: "/movie.mkv", Size: 1, MTime: 1}})
	if err != nil || pyr.DiskError() != nil {
		t.Fatal(err, pyr.DiskError())
	}
	t.Cleanup(func() { pyr.Close() })
	p := &recorder{Pyramid: pyr}
	v := View{T: 50, Zoom: 1, Center: Point{260, 300}, Lo: 0, Hi: 30000, Width: 400, Height: 300}
	var r Renderer
	r.Prefetch(v, p, 1, -1, 0, levels.Prefetch)
	for _, q := range p.reqs {
		if q.level != 0 {
			t.Fatalf("before the build, prefetch asked for level %d", q.level)
		}
	}
	if err := pyr.Build(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if pyr.Thumbnails() != 2 {
		t.Fatalf("thumbnails from level %d, want 2", pyr.Thumbnails())
	}
	p.reqs = nil
	r.Prefetch(v, p, 2, -1, 0, levels.Prefetch)
	frames := map[int]bool{}
	for _, q := range p.reqs {
		if q.level == 2 {
			frames[q.idx[0]] = true
		}
	}
	if len(frames) != 32 || !frames[49] || !frames[18] || frames[50] || frames[17] {
		t.Errorf("thumbnail frames asked for: %v, want 18..49", frames)
	}
}
