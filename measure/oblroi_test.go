package measure

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"vastview/base/testtool"
	"vastview/levels"
	"vastview/loader"
	"vastview/render/oblique"
)

// pyTurned measures regions of a turned plane with NumPy: the plane's
// samples (i, j) inside the shape (a rectangle's rows and columns,
// skimage.draw.polygon's, the ellipse's (r−cr)²/rr² + (c−cc)²/rc² < 1), each
// at P = centre + (j − (W−1)/2)·S·u + (i − (H−1)/2)·S·v, valued by the
// sample at floor(P/spacing + 0.5), those off the array left out.
const pyTurned = `
import json, sys, numpy as np
from skimage.draw import polygon
spec = json.load(open(sys.argv[2]))
a = np.fromfile(sys.argv[1], dtype=spec["dtype"]).reshape(spec["shape"])
pl = spec["plane"]
H, W, S = pl["h"], pl["w"], pl["pixel"]
c, u, v = np.array(pl["center"]), np.array(pl["u"]), np.array(pl["v"])
sp = np.array(spec["spacing"])
out = []
for q in spec["queries"]:
    if q["kind"] == "rect":
        r0, c0, r1, c1 = q["rect"]
        ii, jj = np.mgrid[max(r0, 0):min(r1, H), max(c0, 0):min(c1, W)]
        ii, jj = ii.ravel(), jj.ravel()
    elif q["kind"] == "ellipse":
        ii, jj = np.mgrid[0:H, 0:W]
        m = ((ii - q["cr"]) / q["rr"]) ** 2 + ((jj - q["cc"]) / q["rc"]) ** 2 < 1
        ii, jj = ii[m], jj[m]
    else:
        ii, jj = polygon(np.array(q["rows"]), np.array(q["cols"]), (H, W))
    A = ((jj - (W - 1) / 2) * S)[:, None]
    B = ((ii - (H - 1) / 2) * S)[:, None]
    P = c + A * u + B * v
    n = np.floor(P / sp + 0.5).astype(np.int64)
    ok = np.all((n >= 0) & (n < np.array(a.shape)), axis=1)
    n = n[ok]
    x = a[n[:, 0], n[:, 1], n[:, 2]].astype(np.float64)
    h = np.histogram(x, q["bins"], (q["lo"], q["hi"]))[0].tolist()
    out.append({"count": int(x.size), "sum": float(x.sum()), "mean": float(x.mean()), "std": float(x.std()),
                "min": float(x.min()), "max": float(x.max()), "hist": h, "outside": int((~ok).sum())})
print(json.dumps(out))
`

// TestRegionOnTurnedPlaneMatchesNumPy measures a rectangle, a polygon and
// an ellipse on a plane turned about two axes through anisotropic data,
// partly off the data, and compares with NumPy's nearest-sample figures;
// each chunk the region crosses is read once.
func TestRegionOnTurnedPlaneMatchesNumPy(t *testing.T) {
	testtool.RequirePython(t, "numpy", "skimage")
	for _, dt := range []loader.DType{loader.Uint16, loader.Float32} {
		t.Run(dt.String(), func(t *testing.T) {
			sp := []float64{2.5, 0.4, 0.3}
			s := newMem("ZYX", []int{14, 53, 61}, []int{3, 16, 13}, dt, sp, 11+uint64(dt))
			u, v, _ := oblique.Basis([]oblique.Turn{{Axis: 'x', Deg: 35}, {Axis: 'y', Deg: -20}})
			pl := &oblique.Plane{Center: oblique.Vec{16.1, 10.3, 9.1}, U: u, V: v, Pixel: 0.35, W: 83, H: 71}
			poly := Polygon{Vertices: []Pt{{3, 4}, {10.5, 70}, {60, 78.2}, {68, 2}, {30, 25}}}
			var rows, cols []float64
			for _, p := range poly.Vertices {
				rows, cols = append(rows, p.Row), append(cols, p.Col)
			}
			type tc struct {
				r  Region
				py map[string]any
			}
			cases := []tc{
				{Rect{5, 7, 60, 79}, map[string]any{"kind": "rect", "rect": []int{5, 7, 60, 79}}},
				{Rect{-4, -3, 90, 95}, map[string]any{"kind": "rect", "rect": []int{-4, -3, 90, 95}}},
				{poly, map[string]any{"kind": "polygon", "rows": rows, "cols": cols}},
				{Ellipse{Pt{35.2, 40.7}, 20.3, 33.1}, map[string]any{"kind": "ellipse", "cr": 35.2, "cc": 40.7, "rr": 20.3, "rc": 33.1}},
			}
			var qs []map[string]any
			for _, c := range cases {
				c.py["bins"], c.py["lo"], c.py["hi"] = 13, -100.0, 30000.0
				qs = append(qs, c.py)
			}
			dir := t.TempDir()
			raw := filepath.Join(dir, "a.raw")
			if err := os.WriteFile(raw, s.data, 0o644); err != nil {
				t.Fatal(err)
			}
			spec, _ := json.Marshal(map[string]any{"dtype": "<" + npType(dt), "shape": s.meta.Shape, "spacing": sp, "queries": qs,
				"plane": map[string]any{"h": pl.H, "w": pl.W, "pixel": pl.Pixel, "center": pl.Center, "u": pl.U, "v": pl.V}})
			qf := filepath.Join(dir, "q.json")
			if err := os.WriteFile(qf, spec, 0o644); err != nil {
				t.Fatal(err)
			}
			var ref []map[string]any
			if out := testtool.RunPython(t, pyTurned, raw, qf); json.Unmarshal(out, &ref) != nil {
				t.Fatalf("NumPy said %s", out)
			}
			for i, c := range cases {
				kind := c.py["kind"]
				s.reads.Store(0)
				var done, total int
				st, err := Compute(context.Background(), s, Query{Plane: Plane{Oblique: pl}, Region: c.r},
					Options{Workers: 3, Hist: &HistSpec{13, -100, 30000}, Progress: func(d, n int) { done, total = d, n }})
				if err != nil {
					t.Fatal(err)
				}
				g, r := st[0], ref[i]
				if g.Count != int64(r["count"].(float64)) {
					t.Fatalf("%s: count %d, NumPy %v", kind, g.Count, r["count"])
				}
				if i == 1 && r["outside"].(float64) == 0 {
					t.Fatalf("the whole plane lies on the data: nothing tests the samples off it")
				}
				for _, f := range []struct {
					name string
					v    float64
				}{{"sum", g.Sum}, {"mean", g.Mean}, {"std", g.Std}, {"min", g.Min}, {"max", g.Max}} {
					if !near(f.v, r[f.name].(float64)) {
						t.Errorf("%s: %s %v, NumPy %v", kind, f.name, f.v, r[f.name])
					}
				}
				for b, n := range r["hist"].([]any) {
					if g.Hist[b] != int64(n.(float64)) {
						t.Errorf("%s: histogram bin %d: %d, NumPy %v", kind, b, g.Hist[b], n)
					}
				}
				if want := float64(g.Count) * 0.35 * 0.35; !near(g.Area, want) || g.Unit != "micrometer" || g.Estimate {
					t.Errorf("%s: area %v %s (estimate %v), want %v micrometer", kind, g.Area, g.Unit, g.Estimate, want)
				}
				if n := int(s.reads.Load()); n != total || done != total || total == 0 {
					t.Errorf("%s: %d chunks read, progress %d of %d: each chunk once", kind, n, done, total)
				}
			}
		})
	}
}

// TestRegionOnTurnedPlaneStops: a measurement of a turned plane's region
// ends with the context, and a range of planes or a coarse level is
// refused.
func TestRegionOnTurnedPlaneStops(t *testing.T) {
	s := newMem("ZYX", []int{8, 40, 40}, []int{2, 8, 8}, loader.Uint8, nil, 5)
	u, v, _ := oblique.Basis([]oblique.Turn{{Axis: 'x', Deg: 40}})
	pl := Plane{Oblique: &oblique.Plane{Center: oblique.Vec{4, 20, 20}, U: u, V: v, Pixel: 1, W: 40, H: 40}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Compute(ctx, s, Query{Plane: pl, Region: Rect{0, 0, 40, 40}}, Options{}); err == nil {
		t.Error("a cancelled measurement returned no error")
	}
	if _, err := Compute(context.Background(), s, Query{Plane: pl, Region: Rect{0, 0, 40, 40}, From: 1, To: 3}, Options{}); err == nil {
		t.Error("a range of turned planes was measured")
	}
}

// TestTurnedRegionEstimate: a big region of a turned plane has a quick
// estimate from a coarse level, close to the level-0 figures.
func TestTurnedRegionEstimate(t *testing.T) {
	s := newMem("ZYX", []int{64, 1024, 1024}, []int{16, 128, 128}, loader.Uint16, nil, 2)
	pyr, err := levels.Open(s, levels.Options{CacheBytes: 256 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer pyr.Close()
	u, v, _ := oblique.Basis([]oblique.Turn{{Axis: 'x', Deg: 4}, {Axis: 'y', Deg: -3}})
	q := Query{Plane: Plane{Oblique: &oblique.Plane{Center: oblique.Vec{32, 500, 520}, U: u, V: v, Pixel: 1, W: 1100, H: 1100}},
		Region: Ellipse{Pt{550, 550}, 520, 540}}
	k := EstimateLevel(pyr.Meta(), q)
	if k == 0 {
		t.Fatalf("estimate level %d for a region of %d samples", k, 1040*1080)
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
	if !e.Estimate || x.Estimate || e.Level != k {
		t.Errorf("estimate marked %v (level %d), exact marked %v", e.Estimate, e.Level, x.Estimate)
	}
	if math.Abs(float64(e.Count-x.Count)) > 0.02*float64(x.Count) || math.Abs(e.Mean-x.Mean) > 0.01*x.Mean ||
		math.Abs(e.Area-x.Area) > 0.02*x.Area {
		t.Errorf("estimate count %d mean %v area %v; exact %d %v %v", e.Count, e.Mean, e.Area, x.Count, x.Mean, x.Area)
	}
	t.Logf("level %d: estimate count %d mean %v; exact %d %v", k, e.Count, e.Mean, x.Count, x.Mean)
}
