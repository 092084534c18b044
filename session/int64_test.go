package session

import (
	"context"
	"encoding/binary"
	"strings"
	"testing"

	"vastview/loader"
)

// constSource is a one-chunk image whose every sample is one 64-bit value.
type constSource struct {
	meta *loader.Meta
	v    uint64
}

func (s *constSource) Meta() *loader.Meta { return s.meta }
func (s *constSource) Close() error       { return nil }
func (s *constSource) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if err := loader.CheckChunk(ctx, s.meta, level, idx, dst); err != nil {
		return err
	}
	for i := 0; i+8 <= len(dst); i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], s.v)
	}
	return nil
}

// TestHoverShows64BitValuesExactly: the read-out of a uint64 label id
// beyond 2^53, and of a negative int64, has every digit.
func TestHoverShows64BitValuesExactly(t *testing.T) {
	for _, c := range []struct {
		dt   loader.DType
		v    uint64
		want string
	}{
		{loader.Uint64, 1<<60 + 1, "value 1152921504606846977"},
		{loader.Int64, uint64(1<<63 + 3), "value -9223372036854775805"},
	} {
		h := newHarness(t, Options{})
		m := loader.NewMeta("mem", "YX", []int{32, 48}, c.dt, []int{32, 48}, nil, nil)
		h.open(&constSource{meta: m, v: c.v}, "/data/labels.zarr")
		h.s.Hover(200, 150, true)
		if got := h.s.HoverText(); !strings.HasSuffix(got, c.want) {
			t.Errorf("%s: hover shows %q, want it to end %q", c.dt, got, c.want)
		}
	}
}
