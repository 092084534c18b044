package session

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"vastview/loader"
)

// lostSource is a stored volume whose chunks of plane lostZ are missing
// where its levels say there was data: they read as the fill value (0)
// with an error matching loader.ErrMissing, and MissingChunks counts them,
// as the Zarr reader does.
type lostSource struct {
	stored
	mu   *sync.Mutex
	lost map[string]bool
}

const lostZ = 5

func (s lostSource) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if level == 0 && idx[1] == lostZ {
		clear(dst)
		s.mu.Lock()
		s.lost[fmt.Sprint(idx)] = true
		s.mu.Unlock()
		return fmt.Errorf("chunk %v: %w (%w)", idx, loader.ErrNotStored, loader.ErrMissing)
	}
	return s.stored.ReadChunk(ctx, level, idx, dst)
}

func (s lostSource) MissingChunks() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.lost)
}

// TestStatusSaysChunksAreMissing: a plane whose chunks the source found
// missing (not merely not written yet) is shown with the fill value, and
// the status bar says how many chunks are missing, first, where a line cut
// to the window's width still shows it; a plane before it says nothing of
// the kind.
func TestStatusSaysChunksAreMissing(t *testing.T) {
	h := newHarness(t, Options{})
	src := lostSource{small().(stored), &sync.Mutex{}, map[string]bool{}}
	f := h.open(src, "/data/lost.ome.zarr")
	if f.View.Z != 4 {
		t.Fatalf("plane %d", f.View.Z)
	}
	if st := h.s.Status(); strings.Contains(st.Text, "missing") {
		t.Errorf("plane 4, status %q", st.Text)
	}
	h.s.Press(KeyRight)
	h.waitFrame(func(f *Frame) bool { return f.View.Z == lostZ && f.Info.Settled() })
	n := src.MissingChunks()
	want := fmt.Sprintf("%d chunks missing where the level above holds data", n)
	if st := h.s.Status(); n == 0 || !strings.HasPrefix(st.Text, want) {
		t.Errorf("plane %d, %d chunks missing, status %q", lostZ, n, st.Text)
	}
}
