package zarr

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"vastview/base/nd"
	"vastview/levels/omezarr"
	"vastview/loader"
	"vastview/loader/demo"
)

// genSource is a multi-level source whose samples are value(seed+level,
// position), with levels of any geometry.
type genSource struct {
	meta *loader.Meta
	seed uint64
}

func (s *genSource) Meta() *loader.Meta { return s.meta }
func (s *genSource) Close() error       { return nil }

func (s *genSource) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if level < 0 || level >= len(s.meta.Levels) {
		return fmt.Errorf("no level %d", level)
	}
	l := &s.meta.Levels[level]
	es := s.meta.DType.Size()
	if len(dst) != l.ChunkBytes(s.meta.DType) {
		return fmt.Errorf("bad buffer")
	}
	local := make([]int, len(l.Chunk))
	pos := make([]int, len(l.Chunk))
	for i := 0; i < len(dst)/es; i++ {
		in := true
		for k := range local {
			pos[k] = idx[k]*l.Chunk[k] + local[k]
			in = in && pos[k] < l.Shape[k]
		}
		if in {
			putSample(dst[i*es:], s.meta.DType, value(s.seed+uint64(level), pos))
		} else {
			clear(dst[i*es : (i+1)*es])
		}
		nd.Next(local, l.Chunk)
	}
	return nil
}

// newGenSource makes a three-level CZYX source with levels that are not
// what halving would give, so that a reader deriving levels itself would
// get them wrong.
func newGenSource(dt loader.DType, seed uint64) *genSource {
	m := loader.NewMeta("memory", "CZYX", []int{2, 9, 40, 33}, dt, []int{1, 4, 16, 16},
		[]float64{1, 3, 0.25, 0.25}, []string{"", "micrometer", "micrometer", "micrometer"})
	m.Levels[0].Translation = []float64{0, 5, -1, 2}
	m.Levels = append(m.Levels,
		loader.Level{Shape: []int{2, 5, 20, 17}, Chunk: []int{1, 2, 8, 8},
			Scale: []float64{1, 6, 0.5, 0.5}, Translation: []float64{0, 6.5, -0.875, 2.125}},
		loader.Level{Shape: []int{2, 5, 7, 9}, Chunk: []int{2, 5, 7, 9},
			Scale: []float64{1, 6, 1.5, 1}, Translation: []float64{0, 6.5, 0.1, 3}})
	return &genSource{meta: m, seed: seed}
}

// TestOwnWriter reads OME-Zarr images written by levels/omezarr, on Zarr
// v3 and v2 with each codec: the stored levels are presented as written,
// and every sample equals the source's.
func TestOwnWriter(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	t.Run("demo", func(t *testing.T) {
		src := demo.NewSized(2, 3, 300, 270)
		out := filepath.Join(dir, "demo.ome.zarr")
		if err := omezarr.Write(ctx, out, src, omezarr.Options{Version: 3, Codec: "zstd"}); err != nil {
			t.Fatal(err)
		}
		got := openSame(t, out, src)
		defer got.Close()
		compareLevels(t, got, src)
	})
	for i, c := range []struct {
		ver   int
		codec string
		dt    loader.DType
	}{{3, "zstd", loader.Uint16}, {3, "gzip", loader.Float32}, {3, "none", loader.Int8},
		{2, "zstd", loader.Int16}, {2, "gzip", loader.Uint8}, {2, "none", loader.Uint32}} {
		name := fmt.Sprintf("v%d_%s_%s", c.ver, c.codec, c.dt)
		t.Run(name, func(t *testing.T) {
			src := newGenSource(c.dt, uint64(7*i))
			out := filepath.Join(dir, name+".ome.zarr")
			if err := omezarr.Write(ctx, out, src, omezarr.Options{Version: c.ver, Codec: c.codec}); err != nil {
				t.Fatal(err)
			}
			got := openSame(t, out, src)
			defer got.Close()
			compareLevels(t, got, src)
		})
	}
}

// openSame opens path and checks its metadata against the source written
// there.
func openSame(t *testing.T, path string, src loader.Source) loader.Source {
	t.Helper()
	got, err := loader.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	m, w := got.Meta(), src.Meta()
	if m.Format != "ome-zarr" || m.Axes != w.Axes || m.DType != w.DType || !reflect.DeepEqual(m.Shape, w.Shape) {
		t.Errorf("format %q axes %q dtype %v shape %v, want ome-zarr %q %v %v", m.Format, m.Axes, m.DType, m.Shape, w.Axes, w.DType, w.Shape)
	}
	if !reflect.DeepEqual(m.Units, w.Units) || !close(m.Spacing, w.Spacing) {
		t.Errorf("units %q spacing %v, want %q %v", m.Units, m.Spacing, w.Units, w.Spacing)
	}
	if len(m.Levels) != len(w.Levels) {
		t.Fatalf("%d levels, want %d", len(m.Levels), len(w.Levels))
	}
	for k := range m.Levels {
		g, e := m.Levels[k], w.Levels[k]
		if !reflect.DeepEqual(g.Shape, e.Shape) || !reflect.DeepEqual(g.Chunk, e.Chunk) ||
			!close(g.Scale, e.Scale) || !close(g.Translation, e.Translation) {
			t.Errorf("level %d: %+v, want %+v", k, g, e)
		}
	}
	return got
}

// compareLevels compares every sample of every level.
func compareLevels(t *testing.T, got, want loader.Source) {
	t.Helper()
	for k, l := range want.Meta().Levels {
		g, _ := readLevel(t, got, k) // all-zero chunks are not stored: fill 0
		w, err := loader.ReadAll(context.Background(), want, k, 1<<28)
		if err != nil {
			t.Fatal(err)
		}
		sameSamples(t, "level "+strconv.Itoa(k), g, w, want.Meta().DType, l.Shape)
	}
}
