package cli

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
)

// measureFixtures writes an anisotropic ZYX volume with tifffile (uint16,
// ImageJ spacing 0.25 µm in X and Y, 1.5 µm in Z) and a CZYX OME-Zarr with
// zarr-python in chunks of 2×9×11 (float32, scale 2, 0.5, 0.3), then
// prints, for every query of argv[2], the figures NumPy and
// scikit-image compute: rect/box/polygon statistics and profile_line.
const measureFixtures = `
import sys, json, numpy as np, tifffile, zarr
from skimage.draw import polygon
from skimage.measure import profile_line
d = sys.argv[1]
rng = np.random.default_rng(5)
a = rng.integers(0, 60000, (9, 47, 53), dtype=np.uint16)
tifffile.imwrite(d + '/s.tif', a, imagej=True, resolution=(1/0.25, 1/0.25),
                 metadata={'spacing': 1.5, 'unit': 'um', 'axes': 'ZYX'})
b = (rng.random((2, 7, 40, 45)) * 1000 - 200).astype(np.float32)
g = zarr.open_group(d + '/z.ome.zarr', mode='w')
g.create_dataset('0', data=b, chunks=(1, 2, 9, 11))
g.attrs['multiscales'] = [{'version': '0.4', 'axes': [{'name': 'c', 'type': 'channel'},
    {'name': 'z', 'type': 'space', 'unit': 'micrometer'}, {'name': 'y', 'type': 'space', 'unit': 'micrometer'},
    {'name': 'x', 'type': 'space', 'unit': 'micrometer'}],
    'datasets': [{'path': '0', 'coordinateTransformations': [{'type': 'scale', 'scale': [1, 2, 0.5, 0.3]}]}]}]
data = {'s.tif': (a, (1.5, 0.25, 0.25)), 'z.ome.zarr': (b, (2, 0.5, 0.3))}
out = []
for q in json.loads(sys.argv[2]):
    arr, sp = data[q['file']]
    if arr.ndim == 4:
        arr = arr[q.get('c', 0)]
    z = q.get('z', 0)
    if 'line' in q:
        y0, x0, y1, x1 = q['line']
        p = profile_line(arr[z].astype(np.float64), (y0, x0), (y1, x1), linewidth=q.get('width', 1),
                         order=1, mode='constant', reduce_func=np.mean)
        n = len(p)
        length = np.hypot((y1 - y0) * sp[1], (x1 - x0) * sp[2])
        out.append({'profile': p.tolist(), 'distance': (np.arange(n) / max(n - 1, 1) * length).tolist()})
        continue
    if 'rect' in q:
        y0, x0, y1, x1 = q['rect']
        v = arr[z, y0:y1, x0:x1]
        size = sp[1] * sp[2]
    elif 'box' in q:
        z0, y0, x0, z1, y1, x1 = q['box']
        v = arr[z0:z1, y0:y1, x0:x1]
        size = sp[0] * sp[1] * sp[2]
    else:
        rr, cc = polygon(np.array(q['rows']), np.array(q['cols']), arr[z].shape)
        v = arr[z][rr, cc]
        size = sp[1] * sp[2]
    v = v.astype(np.float64)
    out.append({'count': int(v.size), 'sum': float(v.sum()), 'mean': float(v.mean()), 'std': float(v.std()),
                'min': float(v.min()), 'max': float(v.max()), 'size': v.size * size})
print(json.dumps(out))
`

// TestMeasureMatchesNumPyAndScikitImage runs measure --json on a tifffile
// volume and a zarr-python OME-Zarr (anisotropic, chunked) and compares
// every figure with NumPy's, polygons with skimage.draw.polygon's samples
// and lines with skimage.measure.profile_line (several widths, lines at
// angles, ends on and beyond the edges), distances in physical units.
func TestMeasureMatchesNumPyAndScikitImage(t *testing.T) {
	testtool.RequirePython(t, "tifffile", "zarr", "numpy", "skimage")
	dir := t.TempDir()
	type query struct {
		Args []string       // the options of measure
		Py   map[string]any // the query for the fixture script
	}
	var qs []query
	add := func(file string, py map[string]any, args ...string) {
		py["file"] = file
		qs = append(qs, query{append([]string{filepath.Join(dir, file), "--json"}, args...), py})
	}
	for _, f := range []string{"s.tif", "z.ome.zarr"} {
		c := 0
		if f == "z.ome.zarr" {
			c = 1
		}
		cs := []string{"--c", itoa(c)}
		add(f, map[string]any{"rect": []int{3, 4, 30, 41}, "z": 5, "c": c}, append(cs, "--z", "5", "--rect", "3,4,30,41")...)
		add(f, map[string]any{"rect": []int{0, 0, 40, 45}, "z": 0, "c": c}, append(cs, "--rect", "0,0,40,45")...)
		add(f, map[string]any{"box": []int{1, 2, 3, 6, 33, 40}, "c": c}, append(cs, "--box", "1,2,3,6,33,40")...)
		add(f, map[string]any{"rows": []float64{2, 2, 20, 35.5, 20}, "cols": []float64{2, 30, 30, 16.2, 2}, "z": 3, "c": c},
			append(cs, "--z", "3", "--polygon", "2,2;2,30;20,30;35.5,16.2;20,2")...)
		for _, l := range []struct {
			yx    [4]float64
			width int
		}{
			{[4]float64{3, 4, 30, 40}, 1},
			{[4]float64{3, 4, 30, 40}, 3},
			{[4]float64{0, 0, 39, 44}, 4},
			{[4]float64{-3, 10, 45.5, 12}, 5},
			{[4]float64{20, 44, 20, 0}, 2},
			{[4]float64{38, 7.3, 1.2, 30.9}, 7},
		} {
			spec := strings.Join([]string{ftoa(l.yx[0]), ftoa(l.yx[1]), ftoa(l.yx[2]), ftoa(l.yx[3])}, ",")
			add(f, map[string]any{"line": l.yx, "width": l.width, "z": 2, "c": c},
				append(cs, "--z", "2", "--line", spec, "--width", itoa(l.width))...)
		}
	}
	var pyQs []map[string]any
	for _, q := range qs {
		pyQs = append(pyQs, q.Py)
	}
	js, _ := json.Marshal(pyQs)
	var refs []map[string]any
	if err := json.Unmarshal(testtool.RunPython(t, measureFixtures, dir, string(js)), &refs); err != nil {
		t.Fatal(err)
	}
	for i, q := range qs {
		out := mustRun(t, append([]string{"measure"}, q.Args...)...)
		var got map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("measure %v: %v: %s", q.Args, err, out)
		}
		ref := refs[i]
		if got["unit"] != "micrometer" {
			t.Errorf("measure %v: unit %v", q.Args, got["unit"])
		}
		if _, ok := q.Py["line"]; ok {
			for _, k := range []string{"profile", "distance"} {
				g, w := got[k].([]any), ref[k].([]any)
				if len(g) != len(w) {
					t.Fatalf("measure %v: %d %s values, NumPy %d", q.Args, len(g), k, len(w))
				}
				for j := range w {
					if !close9(g[j].(float64), w[j].(float64)) {
						t.Fatalf("measure %v: %s[%d] = %v, NumPy %v", q.Args, k, j, g[j], w[j])
					}
				}
			}
			continue
		}
		for _, k := range []string{"count", "sum", "mean", "std", "min", "max"} {
			if !close9(got[k].(float64), ref[k].(float64)) {
				t.Errorf("measure %v: %s %v, NumPy %v", q.Args, k, got[k], ref[k])
			}
		}
		size := "area"
		if _, ok := q.Py["box"]; ok {
			size = "volume"
		}
		if v, ok := got[size].(float64); !ok || !close9(v, ref["size"].(float64)) {
			t.Errorf("measure %v: %s %v, want %v", q.Args, size, got[size], ref["size"])
		}
	}
}

// close9 reports whether a and b agree within float64 rounding.
func close9(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

func ftoa(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// TestMeasureTableAndErrors checks the readable table without --json and
// that mistakes are one line on stderr with status 1.
func TestMeasureTableAndErrors(t *testing.T) {
	testtool.RequirePython(t, "tifffile", "numpy")
	dir := t.TempDir()
	src := filepath.Join(dir, "s.tif")
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
tifffile.imwrite(sys.argv[1], np.full((3, 10, 12), 7, np.uint8), imagej=True, resolution=(2, 2), metadata={'spacing': 2.0, 'unit': 'um', 'axes': 'ZYX'})
`, src)
	out := mustRun(t, "measure", src, "--box", "0,0,0,2,4,5")
	rows := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		rows[f[0]] = strings.Join(f[1:], " ")
	}
	want := map[string]string{"count": "40", "sum": "280", "mean": "7", "std": "0", "min": "7", "max": "7", "volume": "20 micrometer³"}
	for k, v := range want {
		if rows[k] != v {
			t.Errorf("table: %s %q, want %q:\n%s", k, rows[k], v, out)
		}
	}
	out = mustRun(t, "measure", src, "--line", "0,0,0,4")
	if !strings.Contains(out, "distance (micrometer)") || strings.Count(out, "\n") != 6 {
		t.Errorf("profile table:\n%s", out)
	}
	for _, args := range [][]string{
		{"measure", src},
		{"measure", src, "--rect", "1,2,3"},
		{"measure", src, "--rect", "0,0,4,4", "--line", "0,0,3,3"},
		{"measure", src, "--rect", "4,0,2,4"},
		{"measure", src, "--box", "0,0,0,9,4,4"},
		{"measure", src, "--z", "7", "--rect", "0,0,4,4"},
		{"measure", src, "--c", "2", "--rect", "0,0,4,4"},
		{"measure", src, "--t", "1", "--rect", "0,0,4,4"},
		{"measure", src, "--t", "1", "--line", "0,0,3,3"},
		{"measure", src, "--z", "3", "--line", "0,0,3,3"},
		{"measure", src, "--polygon", "1,1;2,2"},
		{"measure", src, "--line", "0,0,3,3", "--width", "0"},
		{"measure", filepath.Join(dir, "none.tif"), "--rect", "0,0,4,4"},
	} {
		code, o, e := vv(args...)
		if code != 1 || o != "" || strings.Count(strings.TrimSpace(e), "\n") != 0 || strings.Contains(e, "panic") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, o, e)
		}
	}
}
