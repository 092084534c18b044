package loader

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// memSource is a uint16 array held in memory, chunked, whose sample at each
// position is a known function of the position.
type memSource struct {
	meta *Meta
	data []uint16 // C order over the axes
}

func newMem(axes string, shape, chunk []int, seed uint64) *memSource {
	n := 1
	for _, s := range shape {
		n *= s
	}
	r := rand.New(rand.NewPCG(seed, 1))
	d := make([]uint16, n)
	for i := range d {
		d[i] = uint16(r.Uint32())
	}
	return &memSource{meta: NewMeta("mem", axes, shape, Uint16, chunk, nil, nil), data: d}
}

func (s *memSource) Meta() *Meta  { return s.meta }
func (s *memSource) Close() error { return nil }
func (s *memSource) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	l := s.meta.Levels[0]
	n := len(l.Shape)
	clear(dst)
	pos := make([]int, n)
	for k := 0; k < l.ChunkSamples(); k++ {
		rem := k
		for i := n - 1; i >= 0; i-- {
			pos[i] = rem % l.Chunk[i]
			rem /= l.Chunk[i]
		}
		off, inside := 0, true
		for i := 0; i < n; i++ {
			p := idx[i]*l.Chunk[i] + pos[i]
			if p >= l.Shape[i] {
				inside = false
				break
			}
			off = off*l.Shape[i] + p
		}
		if inside {
			binary.LittleEndian.PutUint16(dst[2*k:], s.data[off])
		}
	}
	return nil
}

func (s *memSource) at(pos []int) uint16 {
	off := 0
	for i, p := range pos {
		off = off*s.meta.Shape[i] + p
	}
	return s.data[off]
}

func TestReadAllMatchesSource(t *testing.T) {
	for _, c := range []struct {
		axes         string
		shape, chunk []int
	}{
		{"YX", []int{7, 5}, []int{3, 2}},
		{"ZYX", []int{5, 9, 11}, []int{2, 4, 4}},
		{"TCZYX", []int{2, 3, 3, 5, 4}, []int{1, 2, 2, 3, 3}},
	} {
		s := newMem(c.axes, c.shape, c.chunk, 7)
		got, err := ReadAll(context.Background(), s, 0, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range s.data {
			if g := binary.LittleEndian.Uint16(got[2*i:]); g != v {
				t.Fatalf("%s: sample %d = %d, want %d", c.axes, i, g, v)
			}
		}
	}
}

func TestReadPlaneAllOrientations(t *testing.T) {
	s := newMem("TCZYX", []int{2, 2, 6, 7, 9}, []int{1, 1, 4, 3, 4}, 3)
	for _, o := range []Orientation{XY, XZ, YZ} {
		for _, at := range []map[byte]int{{'T': 1, 'C': 0, 'Z': 5, 'Y': 6, 'X': 8}, {'T': 0, 'C': 1, 'Z': 0, 'Y': 0, 'X': 0}, {'T': 1, 'C': 1, 'Z': 3, 'Y': 2, 'X': 5}} {
			row, col, _ := o.Axes()
			sel := map[byte]int{}
			for k, v := range at {
				if k != row && k != col {
					sel[k] = v
				}
			}
			buf, w, h, err := ReadPlane(context.Background(), s, 0, Plane{Orientation: o, At: sel})
			if err != nil {
				t.Fatal(err)
			}
			if h != s.meta.Size(row) || w != s.meta.Size(col) {
				t.Fatalf("%s: got %dx%d", o, w, h)
			}
			for r := 0; r < h; r++ {
				for c := 0; c < w; c++ {
					pos := []int{sel['T'], sel['C'], sel['Z'], sel['Y'], sel['X']}
					pos[s.meta.AxisIndex(row)] = r
					pos[s.meta.AxisIndex(col)] = c
					if g, want := binary.LittleEndian.Uint16(buf[2*(r*w+c):]), s.at(pos); g != want {
						t.Fatalf("%s %v: (%d,%d) = %d, want %d", o, sel, r, c, g, want)
					}
				}
			}
		}
	}
}

func TestReadPlaneErrors(t *testing.T) {
	s := newMem("ZYX", []int{3, 4, 5}, []int{1, 4, 5}, 1)
	for _, c := range []struct {
		p    Plane
		want string
	}{
		{Plane{XY, map[byte]int{'Z': 3}}, "Z=3 is outside 0..2"},
		{Plane{XY, map[byte]int{'T': 1}}, "no T axis"},
		{Plane{Orientation(7), nil}, "unknown plane"},
	} {
		_, _, _, err := ReadPlane(context.Background(), s, 0, c.p)
		if err == nil || !contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.p, err, c.want)
		}
	}
	s2 := newMem("YX", []int{3, 4}, []int{3, 4}, 1)
	if _, _, _, err := ReadPlane(context.Background(), s2, 0, Plane{Orientation: XZ}); err == nil {
		t.Error("xz of a 2-D image: no error")
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func TestValidateRejects(t *testing.T) {
	good := NewMeta("x", "ZYX", []int{2, 3, 4}, Uint8, []int{1, 3, 4}, nil, nil)
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, m := range []*Meta{
		NewMeta("x", "YZX", []int{2, 3, 4}, Uint8, []int{1, 3, 4}, nil, nil),
		NewMeta("x", "ZZYX", []int{2, 2, 3, 4}, Uint8, []int{1, 1, 3, 4}, nil, nil),
		NewMeta("x", "ZYX", []int{0, 3, 4}, Uint8, []int{1, 3, 4}, nil, nil),
		NewMeta("x", "ZYX", []int{2, 3, 4}, Invalid, []int{1, 3, 4}, nil, nil),
		NewMeta("x", "ZYX", []int{1 << 20, 1 << 20, 1 << 20}, Uint8, []int{1, 3, 4}, nil, nil),
		NewMeta("x", "YX", []int{1 << 40, 1 << 40}, Uint8, []int{1, 1}, nil, nil),
		NewMeta("x", "YX", []int{1 << 40, 1 << 40}, Uint8, []int{1 << 40, 1 << 40}, nil, nil),
		NewMeta("x", "YX", []int{1 << 20, 1 << 20}, Uint16, []int{1 << 20, 1 << 20}, nil, nil),
	} {
		if m.Validate() == nil {
			t.Errorf("%+v: no error", m)
		}
	}
}

// tinySource is a 1×2000×2000 uint8 array in 1×1×1 chunks (four million
// of them) that records the largest live heap seen while it is read.
type tinySource struct {
	meta  *Meta
	reads atomic.Int64
	peak  atomic.Uint64
}

func (s *tinySource) Meta() *Meta  { return s.meta }
func (s *tinySource) Close() error { return nil }
func (s *tinySource) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	dst[0] = byte(idx[1] + idx[2])
	if s.reads.Add(1)%200000 == 0 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		for {
			p := s.peak.Load()
			if ms.HeapAlloc <= p || s.peak.CompareAndSwap(p, ms.HeapAlloc) {
				break
			}
		}
	}
	return nil
}

// TestPlaneWorkIsBoundedByThePlaneNotTheChunks reads a plane of four
// million one-sample chunks: the chunks are walked as they are read, so
// the heap holds the plane and little else (a list of every chunk first
// took about 200 MB).
func TestPlaneWorkIsBoundedByThePlaneNotTheChunks(t *testing.T) {
	src := &tinySource{meta: NewMeta("mem", "ZYX", []int{1, 2000, 2000}, Uint8, []int{1, 1, 1}, nil, nil)}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	buf, w, h, err := ReadPlane(context.Background(), src, 0, Plane{Orientation: XY})
	if err != nil || w != 2000 || h != 2000 || buf[2000*7+5] != 12 {
		t.Fatalf("plane %d×%d, %v", w, h, err)
	}
	if grew := src.peak.Load() - min(base, src.peak.Load()); grew > 64<<20 {
		t.Errorf("the heap grew by %d MiB while reading a 4 MB plane", grew>>20)
	}
}

func TestOrientationNamesAndAxes(t *testing.T) {
	for _, c := range []struct {
		names          []string
		o              Orientation
		row, col, norm byte
	}{
		{[]string{"", "xy", "XY"}, XY, 'Y', 'X', 'Z'},
		{[]string{"xz", "XZ", "xZ"}, XZ, 'Z', 'X', 'Y'},
		{[]string{"yz", "YZ"}, YZ, 'Z', 'Y', 'X'},
	} {
		for _, s := range c.names {
			if o, err := ParseOrientation(s); err != nil || o != c.o {
				t.Errorf("ParseOrientation(%q) = %v, %v; want %v", s, o, err, c.o)
			}
		}
		if back, err := ParseOrientation(c.o.String()); err != nil || back != c.o {
			t.Errorf("%v does not read back from %q", c.o, c.o.String())
		}
		if r, col, n := c.o.Axes(); r != c.row || col != c.col || n != c.norm {
			t.Errorf("%v.Axes() = %c %c %c, want %c %c %c", c.o, r, col, n, c.row, c.col, c.norm)
		}
	}
	for _, s := range []string{"zz", "xyz", "x"} {
		if _, err := ParseOrientation(s); err == nil {
			t.Errorf("no error for plane %q", s)
		}
	}
}
