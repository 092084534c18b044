package session

import (
	"context"
	"encoding/binary"
	"testing"

	"vastview/loader"
)

// halvesSource is a 1×64×96 uint16 image in two chunks, the top and the
// bottom half; the bottom loads only once gate is closed. The top half's
// samples are 1000..1063, the bottom's 5000..5063.
type halvesSource struct {
	meta *loader.Meta
	gate chan struct{}
}

func newHalvesSource() *halvesSource {
	m := loader.NewMeta("mem", "YX", []int{64, 96}, loader.Uint16, []int{32, 96}, []float64{1, 1},
		[]string{"micrometer", "micrometer"})
	return &halvesSource{meta: m, gate: make(chan struct{})}
}

func (s *halvesSource) Meta() *loader.Meta { return s.meta }
func (s *halvesSource) Close() error       { return nil }
func (s *halvesSource) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if err := loader.CheckChunk(ctx, s.meta, level, idx, dst); err != nil {
		return err
	}
	base := 1000
	if idx[0] == 1 {
		select {
		case <-s.gate:
		case <-ctx.Done():
			return ctx.Err()
		}
		base = 5000
	}
	for i := 0; i < len(dst)/2; i++ {
		binary.LittleEndian.PutUint16(dst[2*i:], uint16(base+(i/96)*2+i%2))
	}
	return nil
}

// TestAutoWindowIsTheOneOnScreen: auto-contrast chooses the window from
// what is on screen; when the rest of the view arrives and the picture is
// drawn again with a window chosen anew, the view's window (the contrast
// dialog's, and the one the next view is drawn with) is the new one, so
// the picture does not change its contrast when the view moves next.
func TestAutoWindowIsTheOneOnScreen(t *testing.T) {
	src := newHalvesSource()
	h := newHarness(t, Options{})
	if err := h.s.OpenSource(src, "/data/halves.tif"); err != nil {
		t.Fatal(err)
	}
	half := h.waitFrame(func(f *Frame) bool { return f.View.Lo != f.View.Hi })
	if half.Info.Complete {
		t.Fatal("the view is complete before its bottom half loaded")
	}
	if v := h.s.View(); v.Lo != half.View.Lo || v.Hi != half.View.Hi || v.Hi > 1100 {
		t.Fatalf("the top half drawn in window %v..%v, the view's is %v..%v", half.View.Lo, half.View.Hi, v.Lo, v.Hi)
	}
	close(src.gate)
	whole := h.waitFrame(func(f *Frame) bool { return f.Info.Complete })
	if whole.View.Hi < 5000 {
		t.Fatalf("the whole image drawn in window %v..%v, which leaves out its bottom half", whole.View.Lo, whole.View.Hi)
	}
	if v := h.s.View(); v.Lo != whole.View.Lo || v.Hi != whole.View.Hi {
		t.Errorf("the whole image drawn in window %v..%v, the view's is %v..%v", whole.View.Lo, whole.View.Hi, v.Lo, v.Hi)
	}
	h.s.Pan(5, 0)
	moved := h.waitFrame(func(f *Frame) bool { return f.Info.Complete && f.View.Center != whole.View.Center })
	if moved.View.Lo != whole.View.Lo || moved.View.Hi != whole.View.Hi {
		t.Errorf("panned, the window went from %v..%v to %v..%v", whole.View.Lo, whole.View.Hi, moved.View.Lo, moved.View.Hi)
	}
}
