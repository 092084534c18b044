package measure

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"vastview/base/nd"
	"vastview/base/testtool"
	"vastview/levels"
	"vastview/loader"
	"vastview/render/oblique"
)

// memSource is a ZYX (or CZYX) array in memory, chunked.
type memSource struct {
	meta  *loader.Meta
	data  []byte // C order over the axes
	reads atomic.Int64
}

func newMem(axes string, shape, chunk []int, dt loader.DType, spacing []float64, seed uint64) *memSource {
	n := nd.Product(shape)
	r := rand.New(rand.NewPCG(seed, 7))
	d := make([]byte, n*dt.Size())
	lo, hi := dt.Limits()
	lo, hi = math.Max(lo, -3000), math.Min(hi, 60000)
	for i := range n {
		v := lo + math.Floor(r.Float64()*(hi-lo+1))
		if dt.Float() {
			v = lo + r.Float64()*(hi-lo)
			if dt == loader.Float32 {
				v = float64(float32(v))
			}
		}
		dt.Put(d, i, v)
	}
	units := make([]string, len(axes))
	for i := range units {
		units[i] = "micrometer"
	}
	return &memSource{meta: loader.NewMeta("mem", axes, shape, dt, chunk, spacing, units), data: d}
}

func (s *memSource) Meta() *loader.Meta { return s.meta }
func (s *memSource) Close() error       { return nil }
func (s *memSource) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	s.reads.Add(1)
	l := &s.meta.Levels[0]
	clear(dst)
	off := make([]int, len(idx))
	box := make([]int, len(idx))
	for i := range idx {
		off[i] = idx[i] * l.Chunk[i]
		box[i] = min(l.Chunk[i], l.Shape[i]-off[i])
	}
	nd.CopyBox(dst, l.Chunk, make([]int, len(idx)), s.data, l.Shape, off, box, s.meta.DType.Size())
	return nil
}

// pythonRefs computes the reference figures of the queries with NumPy and
// scikit-image on the array of s, written to a file.
func pythonRefs(t *testing.T, s *memSource, queries []map[string]any) []map[string]any {
	t.Helper()
	testtool.RequirePython(t, "numpy", "skimage")
	dir := t.TempDir()
	raw := filepath.Join(dir, "a.raw")
	if err := os.WriteFile(raw, s.data, 0o644); err != nil {
		t.Fatal(err)
	}
	q, _ := json.Marshal(map[string]any{"dtype": "<" + npType(s.meta.DType), "shape": s.meta.Shape, "queries": queries})
	qf := filepath.Join(dir, "q.json")
	if err := os.WriteFile(qf, q, 0o644); err != nil {
		t.Fatal(err)
	}
	out := testtool.RunPython(t, pyRefs, raw, qf)
	var res []map[string]any
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return res
}

const pyRefs = `
import json, sys, numpy as np
from skimage.draw import polygon
from skimage.measure import profile_line
spec = json.load(open(sys.argv[2]))
a = np.fromfile(sys.argv[1], dtype=spec["dtype"]).reshape(spec["shape"])
out = []
for q in spec["queries"]:
    plane = a[q["c"]] if "c" in q else a
    if q["kind"] == "line":
        p = plane[q["z"]].astype(np.float64)
        v = profile_line(p, q["from"], q["to"], linewidth=q["width"], order=1, mode="constant", reduce_func=np.mean)
        out.append({"profile": v.tolist()})
        continue
    if q["kind"] == "box":
        z0, y0, x0, z1, y1, x1 = q["box"]
        v = plane[z0:z1, y0:y1, x0:x1]
    elif q["kind"] == "rect":
        y0, x0, y1, x1 = q["rect"]
        v = plane[q["z"], y0:y1, x0:x1]
    else:
        p = plane[q["z"]]
        rr, cc = polygon(np.array(q["rows"]), np.array(q["cols"]), p.shape)
        v = p[rr, cc]
    v = v.astype(np.float64)
    h = np.histogram(v, q["bins"], (q["lo"], q["hi"]))[0].tolist()
    out.append({"count": int(v.size), "sum": float(v.sum()), "mean": float(v.mean()), "std": float(v.std()),
                "min": float(v.min()), "max": float(v.max()), "hist": h})
print(json.dumps(out))
`

func npType(d loader.DType) string {
	return map[loader.DType]string{loader.Uint8: "u1", loader.Int8: "i1", loader.Uint16: "u2", loader.Int16: "i2",
		loader.Uint32: "u4", loader.Int32: "i4", loader.Uint64: "u8", loader.Int64: "i8", loader.Float32: "f4", loader.Float64: "f8"}[d]
}

// near reports whether a and b agree to float64 rounding.
func near(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func TestRegionStatsMatchNumPy(t *testing.T) {
	for _, dt := range []loader.DType{loader.Uint16, loader.Int8, loader.Int32, loader.Float32, loader.Float64} {
		t.Run(dt.String(), func(t *testing.T) {
			s := newMem("ZYX", []int{7, 53, 61}, []int{3, 16, 13}, dt, []float64{2.5, 0.4, 0.3}, uint64(dt))
			type tc struct {
				q  Query
				py map[string]any
			}
			poly := Polygon{Vertices: []Pt{{3, 4}, {10.5, 50}, {40, 58.2}, {52, 2}, {20, 20}}}
			rows, cols := []float64{}, []float64{}
			for _, v := range poly.Vertices {
				rows, cols = append(rows, v.Row), append(cols, v.Col)
			}
			square := Polygon{Vertices: []Pt{{2, 2}, {2, 30}, {20, 30}, {31, 16}, {20, 2}}}
			srows, scols := []float64{}, []float64{}
			for _, v := range square.Vertices {
				srows, scols = append(srows, v.Row), append(scols, v.Col)
			}
			cases := []tc{
				{Query{Plane: Plane{Index: 6}, Region: square}, map[string]any{"kind": "polygon", "z": 6, "rows": srows, "cols": scols}},
				{Query{Plane: Plane{Index: 4}, Region: Rect{5, 7, 40, 59}}, map[string]any{"kind": "rect", "z": 4, "rect": []int{5, 7, 40, 59}}},
				{Query{Plane: Plane{}, Region: Rect{0, 0, 53, 61}, From: 1, To: 6}, map[string]any{"kind": "box", "box": []int{1, 0, 0, 6, 53, 61}}},
				{Query{Plane: Plane{Index: 2}, Region: poly}, map[string]any{"kind": "polygon", "z": 2, "rows": rows, "cols": cols}},
			}
			var qs []map[string]any
			for _, c := range cases {
				c.py["bins"], c.py["lo"], c.py["hi"] = 17, -100.0, 30000.0
				qs = append(qs, c.py)
			}
			ref := pythonRefs(t, s, qs)
			for i, c := range cases {
				st, err := Compute(context.Background(), s, c.q, Options{Workers: 3, Hist: &HistSpec{17, -100, 30000}})
				if err != nil {
					t.Fatal(err)
				}
				g, r := st[0], ref[i]
				if g.Count != int64(r["count"].(float64)) {
					t.Fatalf("%s: count %d, NumPy %v", c.py["kind"], g.Count, r["count"])
				}
				for _, f := range []struct {
					name string
					v    float64
				}{{"sum", g.Sum}, {"mean", g.Mean}, {"std", g.Std}, {"min", g.Min}, {"max", g.Max}} {
					if !near(f.v, r[f.name].(float64)) {
						t.Errorf("%s: %s %v, NumPy %v", c.py["kind"], f.name, f.v, r[f.name])
					}
				}
				for b, n := range r["hist"].([]any) {
					if g.Hist[b] != int64(n.(float64)) {
						t.Errorf("%s: histogram bin %d: %d, NumPy %v", c.py["kind"], b, g.Hist[b], n)
					}
				}
				if g.Estimate {
					t.Error("level 0 marked as an estimate")
				}
			}
		})
	}
}

func TestProfileMatchesProfileLine(t *testing.T) {
	s := newMem("ZYX", []int{2, 37, 45}, []int{1, 8, 16}, loader.Uint16, []float64{3, 0.5, 0.25}, 3)
	lines := []Line{
		{Pt{3, 4}, Pt{30, 40}, 1},
		{Pt{3, 4}, Pt{30, 40}, 4},
		{Pt{0, 0}, Pt{36, 44}, 3},       // corner to corner
		{Pt{-2.5, 10}, Pt{40.5, 12}, 5}, // ends beyond the edges
		{Pt{20, 44}, Pt{20, 0}, 2},      // right to left
		{Pt{36, 7.3}, Pt{1.2, 30.9}, 7},
		{Pt{10, 10}, Pt{10, 10}, 1},
	}
	var qs []map[string]any
	for _, l := range lines {
		qs = append(qs, map[string]any{"kind": "line", "z": 1, "from": []float64{l.From.Row, l.From.Col}, "to": []float64{l.To.Row, l.To.Col}, "width": l.Width})
	}
	ref := pythonRefs(t, s, qs)
	p := NewProfiler(s, 0)
	for i, l := range lines {
		got, err := p.ProfileLine(context.Background(), Plane{Index: 1}, 0, l)
		if err != nil {
			t.Fatal(err)
		}
		want := ref[i]["profile"].([]any)
		if len(got.Values) != len(want) {
			t.Fatalf("line %v: %d points, profile_line %d", l, len(got.Values), len(want))
		}
		for k := range want {
			if !near(got.Values[k], want[k].(float64)) {
				t.Fatalf("line %v: point %d: %v, profile_line %v", l, k, got.Values[k], want[k])
			}
		}
		n := len(want)
		wantLen := math.Hypot((l.To.Row-l.From.Row)*0.5, (l.To.Col-l.From.Col)*0.25)
		if !near(got.Length, wantLen) || n > 1 && !near(got.Distance[n-1], wantLen) || got.Distance[0] != 0 {
			t.Errorf("line %v: length %v, last distance %v, want %v", l, got.Length, got.Distance[n-1], wantLen)
		}
	}
}

func TestComputeReadsEachChunkOnceAndReportsProgress(t *testing.T) {
	s := newMem("ZYX", []int{9, 40, 40}, []int{2, 8, 8}, loader.Uint8, nil, 1)
	var last, total int
	q := Query{Region: Rect{3, 3, 37, 37}, From: 1, To: 8}
	st, err := Compute(context.Background(), s, q, Options{Budget: 1, Progress: func(d, n int) { last, total = d, n }})
	if err != nil {
		t.Fatal(err)
	}
	want := 4 * 5 * 5 // chunks along Z (planes 1..7), Y and X
	if s.reads.Load() != int64(want) || total != want || last != want {
		t.Errorf("%d reads, progress %d of %d; want %d chunks", s.reads.Load(), last, total, want)
	}
	if st[0].Count != 7*34*34 || st[0].Volume != float64(7*34*34) {
		t.Errorf("count %d volume %v", st[0].Count, st[0].Volume)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Compute(ctx, s, q, Options{}); err == nil {
		t.Error("a cancelled measurement returned no error")
	}
}

func TestEstimateFromCoarseLevel(t *testing.T) {
	s := newMem("ZYX", []int{1, 1024, 1024}, []int{1, 256, 256}, loader.Uint16, nil, 2)
	pyr, err := levels.Open(s, levels.Options{CacheBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer pyr.Close()
	q := Query{Region: Rect{100, 50, 900, 1000}}
	k := EstimateLevel(pyr.Meta(), q)
	if k == 0 {
		t.Fatalf("estimate level %d for a region of %d samples", k, 800*950)
	}
	est, err := Compute(context.Background(), pyr, q, Options{Level: k})
	if err != nil {
		t.Fatal(err)
	}
	exact, err := Compute(context.Background(), pyr, q, Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, x := est[0], exact[0]
	if !e.Estimate || x.Estimate {
		t.Errorf("estimate marked %v, exact marked %v", e.Estimate, x.Estimate)
	}
	if math.Abs(float64(e.Count-x.Count)) > 0.02*float64(x.Count) || math.Abs(e.Mean-x.Mean) > 0.01*x.Mean {
		t.Errorf("estimate count %d mean %v; exact %d %v", e.Count, e.Mean, x.Count, x.Mean)
	}
}

// TestProfileOnTurnedPlane profiles lines on a turned plane that lies on
// plane 1 of the volume (column direction +X, row direction +Y, its pixel
// the in-plane spacing): the values equal the axis-aligned plane's, 0
// beyond the edges included, and distances use the plane's pixel.
func TestProfileOnTurnedPlane(t *testing.T) {
	s := newMem("ZYX", []int{3, 37, 45}, []int{2, 8, 16}, loader.Float32, []float64{2, 0.5, 0.5}, 4)
	ob := &oblique.Plane{Center: oblique.Vec{2, 18 * 0.5, 22 * 0.5}, U: oblique.Vec{0, 0, 1}, V: oblique.Vec{0, 1, 0}, Pixel: 0.5, W: 45, H: 37}
	p := NewProfiler(s, 0)
	for _, l := range []Line{{Pt{3, 4}, Pt{30, 40}, 3}, {Pt{-2, 50}, Pt{40, -3}, 4}, {Pt{36, 7.3}, Pt{1.2, 30.9}, 1}} {
		want, err := p.ProfileLine(context.Background(), Plane{Index: 1}, 0, l)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.ProfileLine(context.Background(), Plane{Oblique: ob}, 0, l)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Values) != len(want.Values) || !near(got.Length, want.Length) {
			t.Fatalf("line %v: %d points, length %v; the plane's %d, %v", l, len(got.Values), got.Length, len(want.Values), want.Length)
		}
		for k := range want.Values {
			if !near(got.Values[k], want.Values[k]) {
				t.Fatalf("line %v: point %d: %v on the turned plane, %v on the plane", l, k, got.Values[k], want.Values[k])
			}
		}
	}
	v, ok, err := p.Value(context.Background(), Plane{Oblique: ob}, 0, Pt{5, 7})
	if w := s.meta.DType.At(s.data, 1*37*45+5*45+7); err != nil || !ok || v != w {
		t.Errorf("value %v %v %v, want %v", v, ok, err, w)
	}
}

// TestFiguresDoNotDependOnTheWorkers: float data measured by one worker
// and by several gives the same figures to the last bit (the chunks'
// figures are added in their order, whichever read ends first).
func TestFiguresDoNotDependOnTheWorkers(t *testing.T) {
	s := newMem("ZYX", []int{6, 48, 48}, []int{1, 8, 8}, loader.Float64, nil, 3)
	q := Query{Region: Rect{1, 2, 47, 45}, From: 0, To: 6}
	var want []Stats
	for _, w := range []int{1, 2, 3, 5} {
		for range 3 {
			st, err := Compute(context.Background(), s, q, Options{Workers: w})
			if err != nil {
				t.Fatal(err)
			}
			if want == nil {
				want = st
				continue
			}
			a, b := st[0], want[0]
			if math.Float64bits(a.Mean) != math.Float64bits(b.Mean) || math.Float64bits(a.Std) != math.Float64bits(b.Std) ||
				math.Float64bits(a.Sum) != math.Float64bits(b.Sum) {
				t.Fatalf("%d workers: mean %v std %v sum %v; 1 worker: mean %v std %v sum %v", w, a.Mean, a.Std, a.Sum, b.Mean, b.Std, b.Sum)
			}
		}
	}
}
