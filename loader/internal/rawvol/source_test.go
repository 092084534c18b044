package rawvol

import (
	"context"
	"encoding/binary"
	"errors"
	"math/rand"
	"testing"

	"vastview/loader"
)

// memData is Data held in memory, counting reads.
type memData struct{ b []byte }

func (m *memData) Size() int64 { return int64(len(m.b)) }
func (m *memData) Read(_ context.Context, off, n int64, buf []byte) ([]byte, error) {
	return m.b[off : off+n], nil
}
func (m *memData) Close() error { return nil }

// put writes v as an es-byte sample in byte order bo.
func put(bo binary.ByteOrder, b []byte, es int, v uint64) {
	switch es {
	case 1:
		b[0] = byte(v)
	case 2:
		bo.PutUint16(b, uint16(v))
	case 4:
		bo.PutUint32(b, uint32(v))
	case 8:
		bo.PutUint64(b, v)
	}
}

// TestPlanes stores random samples pixel-interleaved or planar, in either
// byte order, and checks that every plane comes back planar and
// little-endian.
func TestPlanes(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, dt := range []loader.DType{loader.Uint8, loader.Int16, loader.Float32, loader.Float64} {
		for _, big := range []bool{false, true} {
			for _, channels := range []int{1, 3} {
				const z, y, x = 3, 4, 5
				es := dt.Size()
				var bo binary.ByteOrder = binary.LittleEndian
				if big {
					bo = binary.BigEndian
				}
				vals := make([]uint64, z*y*x*channels) // index [z][y][x][c]
				stored := make([]byte, len(vals)*es)
				for i := range vals {
					vals[i] = rng.Uint64()
					put(bo, stored[i*es:], es, vals[i])
				}
				axes, shape := "ZYX", []int{z, y, x}
				if channels > 1 {
					axes, shape = "ZCYX", []int{z, channels, y, x}
				}
				m := loader.NewMeta("test", axes, shape, dt, PlaneChunk(shape, channels > 1), nil, nil)
				src, err := New(m, &memData{stored}, big, channels > 1)
				if err != nil {
					t.Fatal(err)
				}
				got, err := loader.ReadAll(context.Background(), src, 0, 1<<20)
				if err != nil {
					t.Fatal(err)
				}
				want := make([]byte, len(stored))
				for zi := 0; zi < z; zi++ {
					for c := 0; c < channels; c++ {
						for p := 0; p < y*x; p++ {
							o := ((zi*channels+c)*y*x + p) * es
							put(binary.LittleEndian, want[o:], es, vals[(zi*y*x+p)*channels+c])
						}
					}
				}
				if string(got) != string(want) {
					t.Errorf("%v big-endian %v channels %d: planes differ", dt, big, channels)
				}
			}
		}
	}
}

func TestBadRequests(t *testing.T) {
	shape := []int{2, 3, 4}
	m := loader.NewMeta("test", "ZYX", shape, loader.Uint16, PlaneChunk(shape, false), nil, nil)
	src, err := New(m, &memData{make([]byte, 48)}, false, false)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dst := make([]byte, 24)
	for _, c := range []struct {
		level int
		idx   []int
		dst   []byte
	}{
		{1, []int{0, 0, 0}, dst}, {0, []int{2, 0, 0}, dst}, {0, []int{-1, 0, 0}, dst},
		{0, []int{0, 1, 0}, dst}, {0, []int{0, 0}, dst}, {0, []int{0, 0, 0}, dst[:23]},
	} {
		if err := src.ReadChunk(ctx, c.level, c.idx, c.dst); err == nil {
			t.Errorf("ReadChunk(%d, %v, %d bytes) succeeded", c.level, c.idx, len(c.dst))
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := src.ReadChunk(cancelled, 0, []int{0, 0, 0}, dst); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadChunk with a cancelled context: %v", err)
	}
	if _, err := New(m, &memData{make([]byte, 47)}, false, false); err == nil {
		t.Error("New accepted data of the wrong size")
	}
}

func TestArrayBytes(t *testing.T) {
	for _, c := range []struct {
		shape []int
		ok    bool
	}{
		{[]int{2, 3}, true}, {[]int{0, 3}, false}, {[]int{-1, 3}, false},
		{[]int{1 << 40, 1 << 40}, false}, {[]int{1 << 20, 1 << 20, 1 << 20, 1 << 20}, false},
		{[]int{1 << 24, 1 << 24}, true},
	} {
		n, err := ArrayBytes(c.shape, loader.Uint16)
		if (err == nil) != c.ok {
			t.Errorf("ArrayBytes(%v) = %d, %v", c.shape, n, err)
		}
	}
}
