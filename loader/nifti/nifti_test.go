package nifti

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
	"vastview/loader/internal/loadertest"
)

// writeScript writes a NIfTI file with nibabel as the JSON spec in argv[1]
// says, to argv[2], then reads it back with nibabel and writes the stored
// (unscaled) samples in C order over the reversed NIfTI dimensions, i.e.
// (c, t, z, y, x), little-endian, to argv[3]; RGB voxels become a planar
// channel axis before y. It prints what nibabel reads from the header.
const writeScript = `
import sys, json, numpy as np, nibabel as nib
spec = json.loads(sys.argv[1]); out = sys.argv[2]
shape = spec["shape"]
rng = np.random.default_rng(7)
rgb = spec["dtype"] == "rgb"
if rgb:
    dt = np.dtype([("R", "u1"), ("G", "u1"), ("B", "u1")])
    arr = np.zeros(shape, dt)
    for k in "RGB":
        arr[k] = rng.integers(0, 255, size=shape, endpoint=True, dtype=np.uint8)
else:
    dt = np.dtype(spec["dtype"])
    if dt.kind == "f":
        arr = (rng.standard_normal(shape) * 1000).astype(dt)
    else:
        info = np.iinfo(dt)
        arr = rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dt)
cls = {"1": nib.Nifti1Image, "2": nib.Nifti2Image, "pair": nib.Nifti1Pair}[spec["kind"]]
hdr = cls.header_class(endianness=spec.get("endian", "<"))
hdr.set_data_dtype(dt)
zooms = spec.get("zooms", [1, 1, 1])
affine = np.diag(list(zooms[:3]) + [1.0])
affine[:3, 3] = spec.get("origin", [0, 0, 0])
img = cls(arr, affine, header=hdr)
z = list(zooms) + [1.0] * (len(shape) - len(zooms))
img.header.set_zooms(z[:len(shape)])
img.header.set_xyzt_units(spec.get("xyz", "unknown"), spec.get("t", "unknown"))
if "slope" in spec:
    img.header.set_slope_inter(spec["slope"], spec["inter"])
nib.save(img, out)
back = nib.load(out)
raw = np.asanyarray(back.dataobj.get_unscaled())
if rgb:
    raw = np.stack([raw[k] for k in "RGB"], axis=-1)  # (x, y, z, c)
    raw = raw.transpose(2, 3, 1, 0)                     # (z, c, y, x)
else:
    raw = raw.T
raw = raw.astype(raw.dtype.newbyteorder("<"))
open(sys.argv[3], "wb").write(raw.tobytes())
h = back.header
xyz, t = h.get_xyzt_units()
slope, inter = back.dataobj.slope, back.dataobj.inter
if slope is None or (float(slope), float(inter)) == (1.0, 0.0):
    slope = inter = None  # nibabel's way of saying the values are not scaled
print(json.dumps({
    "zooms": [float(z) for z in h.get_zooms()],
    "slope": None if slope is None else float(slope),
    "inter": None if inter is None else float(inter),
    "qoffset": [float(h["qoffset_x"]), float(h["qoffset_y"]), float(h["qoffset_z"])],
    "xyz": xyz, "t": t,
}))
`

type written struct {
	Zooms   []float64 `json:"zooms"`
	Slope   *float64  `json:"slope"`
	Inter   *float64  `json:"inter"`
	Qoffset []float64 `json:"qoffset"`
	XYZ     string    `json:"xyz"`
	T       string    `json:"t"`
}

// ngffUnit is the NGFF name of a nibabel unit name.
var ngffUnit = map[string]string{
	"mm": "millimeter", "micron": "micrometer", "meter": "meter",
	"sec": "second", "msec": "millisecond", "usec": "microsecond", "unknown": "",
}

type niftiCase struct {
	name  string
	file  string
	spec  map[string]any
	axes  string
	shape []int
	dtype loader.DType
}

var niftiCases = []niftiCase{
	{"uint8-3d", "a.nii", map[string]any{"kind": "1", "dtype": "uint8", "shape": []int{7, 5, 3},
		"zooms": []float64{0.5, 0.7, 2.0}, "xyz": "mm", "origin": []float64{10, -20, 30.5}},
		"ZYX", []int{3, 5, 7}, loader.Uint8},
	{"int16-3d-gz-scaled", "b.nii.gz", map[string]any{"kind": "1", "dtype": "int16", "shape": []int{9, 6, 4},
		"zooms": []float64{0.5, 0.7, 2.0}, "xyz": "mm", "slope": 2.5, "inter": -10},
		"ZYX", []int{4, 6, 9}, loader.Int16},
	{"int16-3d-bigendian", "c.nii", map[string]any{"kind": "1", "dtype": "int16", "shape": []int{8, 5, 3},
		"endian": ">", "zooms": []float64{1.5, 1.5, 3}, "xyz": "micron"},
		"ZYX", []int{3, 5, 8}, loader.Int16},
	{"float32-4d-gz-time", "d.nii.gz", map[string]any{"kind": "1", "dtype": "float32", "shape": []int{6, 5, 4, 3},
		"zooms": []float64{0.5, 0.7, 2.0, 1.5}, "xyz": "mm", "t": "sec"},
		"TZYX", []int{3, 4, 5, 6}, loader.Float32},
	{"float64-3d", "e.nii", map[string]any{"kind": "1", "dtype": "float64", "shape": []int{5, 4, 3},
		"zooms": []float64{0.5, 0.7, 2.0}, "xyz": "mm"},
		"ZYX", []int{3, 4, 5}, loader.Float64},
	{"nifti2-int32-4d-bigendian-gz", "f.nii.gz", map[string]any{"kind": "2", "dtype": "int32", "shape": []int{5, 4, 3, 2},
		"endian": ">", "zooms": []float64{0.25, 0.5, 1, 100}, "xyz": "micron", "t": "msec"},
		"TZYX", []int{2, 3, 4, 5}, loader.Int32},
	{"pair-uint16", "g.img", map[string]any{"kind": "pair", "dtype": "uint16", "shape": []int{6, 5, 4},
		"zooms": []float64{0.5, 0.7, 2.0}, "xyz": "mm"},
		"ZYX", []int{4, 5, 6}, loader.Uint16},
	{"pair-gz-int8", "h.img.gz", map[string]any{"kind": "pair", "dtype": "int8", "shape": []int{6, 5, 4}},
		"ZYX", []int{4, 5, 6}, loader.Int8},
	{"uint32-2d", "i.nii", map[string]any{"kind": "1", "dtype": "uint32", "shape": []int{7, 5}},
		"YX", []int{5, 7}, loader.Uint32},
	{"vector-5d", "j.nii", map[string]any{"kind": "1", "dtype": "float32", "shape": []int{6, 5, 4, 1, 3}},
		"CZYX", []int{3, 4, 5, 6}, loader.Float32},
	{"vector-time-5d-gz", "k.nii.gz", map[string]any{"kind": "1", "dtype": "uint16", "shape": []int{6, 5, 4, 2, 3}},
		"CTZYX", []int{3, 2, 4, 5, 6}, loader.Uint16},
	{"int64-3d-gz", "m.nii.gz", map[string]any{"kind": "1", "dtype": "int64", "shape": []int{7, 5, 3}},
		"ZYX", []int{3, 5, 7}, loader.Int64},
	{"nifti2-uint64-bigendian", "n.nii", map[string]any{"kind": "2", "dtype": "uint64", "shape": []int{6, 5, 4},
		"endian": ">"}, "ZYX", []int{4, 5, 6}, loader.Uint64},
	{"rgb24", "l.nii", map[string]any{"kind": "1", "dtype": "rgb", "shape": []int{6, 5, 4}},
		"ZCYX", []int{4, 3, 5, 6}, loader.Uint8},
}

func TestNibabel(t *testing.T) {
	testtool.RequirePython(t, "nibabel", "numpy")
	for _, c := range niftiCases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, c.file)
			spec, _ := json.Marshal(c.spec)
			out := testtool.RunPython(t, writeScript, string(spec), path, path+".expected")
			var w written
			if err := json.Unmarshal(out, &w); err != nil {
				t.Fatalf("python output %q: %v", out, err)
			}
			want, err := os.ReadFile(path + ".expected")
			if err != nil {
				t.Fatal(err)
			}
			checkCase(t, c, path, &w, want)
		})
	}
}

// readPlanesConcurrently opens path afresh and reads its planes from
// several goroutines in different orders, while any decoding is still
// under way, comparing each with its part of want.
func readPlanesConcurrently(t *testing.T, path string, want []byte) {
	src, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	l := src.Meta().Levels[0]
	grid := l.Grid()
	size := l.ChunkBytes(src.Meta().DType)
	planes := len(want) / size
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			dst := make([]byte, size)
			for i := 0; i < planes; i++ {
				k := (i*(2*g+1) + g) % planes // a different order per goroutine
				idx := make([]int, len(grid))
				for a, r := len(grid)-1, k; a >= 0; a-- {
					idx[a], r = r%grid[a], r/grid[a]
				}
				if err := src.ReadChunk(context.Background(), 0, idx, dst); err != nil {
					t.Error(err)
					return
				}
				if string(dst) != string(want[k*size:(k+1)*size]) {
					t.Errorf("plane %v differs", idx)
					return
				}
			}
		}(g)
	}
	wg.Wait()
}

func checkCase(t *testing.T, c niftiCase, path string, w *written, want []byte) {
	readPlanesConcurrently(t, path, want)
	src, err := loader.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	m := src.Meta()
	if m.Format != "nifti" || m.Axes != c.axes || !slices.Equal(m.Shape, c.shape) || m.DType != c.dtype {
		t.Fatalf("meta %s %q %v %v, want nifti %q %v %v", m.Format, m.Axes, m.Shape, m.DType, c.axes, c.shape, c.dtype)
	}
	zoomOf := map[byte]int{'X': 0, 'Y': 1, 'Z': 2, 'T': 3}
	for i := range m.Axes {
		a := m.Axes[i]
		wantSpacing, wantUnit := 1.0, ""
		if k, ok := zoomOf[a]; ok && k < len(w.Zooms) {
			wantSpacing = w.Zooms[k]
			if a == 'T' {
				wantUnit = ngffUnit[w.T]
			} else {
				wantUnit = ngffUnit[w.XYZ]
			}
		}
		if m.Spacing[i] != wantSpacing || m.Units[i] != wantUnit {
			t.Errorf("axis %c: spacing %v %q, want %v %q", a, m.Spacing[i], m.Units[i], wantSpacing, wantUnit)
		}
		if k, ok := zoomOf[a]; ok && k < 3 && m.Levels[0].Translation[i] != w.Qoffset[k] {
			t.Errorf("axis %c: translation %v, want %v", a, m.Levels[0].Translation[i], w.Qoffset[k])
		}
	}
	if got, want := m.DataFiles, pairFiles(c, path); !slices.Equal(got, want) {
		t.Errorf("data files %q, want %q", got, want)
	}
	if hdr := pairFiles(c, path); hdr != nil {
		src, err := loader.Open(context.Background(), hdr[0])
		if err != nil {
			t.Fatal(err)
		}
		if got := src.Meta().DataFiles; !slices.Equal(got, []string{path}) {
			t.Errorf("the header's data files %q, want %q", got, path)
		}
		src.Close()
	}
	if _, ok := c.spec["slope"]; ok && w.Slope == nil {
		t.Fatal("nibabel stored no scale")
	}
	switch {
	case w.Slope == nil && m.ValueScale != nil:
		t.Errorf("value scale %+v, want none", *m.ValueScale)
	case w.Slope != nil && (m.ValueScale == nil || m.ValueScale.Slope != *w.Slope || m.ValueScale.Intercept != *w.Inter):
		t.Errorf("value scale %+v, want %v %v", m.ValueScale, *w.Slope, *w.Inter)
	}
	got, err := loader.ReadAll(context.Background(), src, 0, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("samples differ from nibabel's (%d vs %d bytes)", len(got), len(want))
	}
}

// pairFiles returns what Meta.DataFiles lists for case c opened at path:
// the header of a pair, nothing for a single file.
func pairFiles(c niftiCase, path string) []string {
	if c.spec["kind"] != "pair" {
		return nil
	}
	return []string{strings.Replace(path, ".img", ".hdr", 1)}
}

// writeNii writes a minimal little-endian NIfTI-1 file through nibabel and
// returns its bytes, for the tests that damage it.
func writeNii(t *testing.T, dir string) []byte {
	t.Helper()
	testtool.RequirePython(t, "nibabel", "numpy")
	path := filepath.Join(dir, "base.nii")
	spec := `{"kind": "1", "dtype": "uint16", "shape": [8, 6, 4]}`
	testtool.RunPython(t, writeScript, spec, path, path+".expected")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBadFiles(t *testing.T) {
	dir := t.TempDir()
	good := writeNii(t, dir)
	le := func(b []byte, off int, v uint32) []byte {
		b = append([]byte(nil), b...)
		b[off], b[off+1], b[off+2], b[off+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		return b
	}
	le16 := func(b []byte, off int, v uint16) []byte {
		b = append([]byte(nil), b...)
		b[off], b[off+1] = byte(v), byte(v>>8)
		return b
	}
	cases := []struct {
		name   string
		data   []byte
		unsupp bool
		want   string
	}{
		{"truncated data", good[:len(good)-10], false, "truncated"},
		{"truncated header", good[:200], false, "header"},
		{"zero dim", le16(good, 42, 0), false, "dim[1]"},
		{"negative dim", le16(good, 44, 0xffff), false, "dim[2]"},
		{"dim0 out of range", le16(good, 40, 9), false, "dim[0]"},
		{"huge dims", le16(le16(le16(good, 42, 30000), 44, 30000), 46, 30000), false, "truncated"},
		{"complex", le16(good, 70, 32), true, "complex"},
		{"unknown datatype", le16(good, 70, 3), false, "datatype"},
		{"vox_offset beyond file", le(good, 108, 0x4f000000), false, "truncated"}, // 2^31
		{"vox_offset fraction", le(good, 108, 0x43b04000), false, "vox_offset"},   // 352.5
		{"6-D", le16(le16(good, 40, 6), 52, 2), true, "6-D"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".nii")
			loadertest.WriteFile(t, path, c.data)
			loadertest.BadFile(t, path, Open, false, c.unsupp, c.want)
		})
	}
}

// TestZeroVoxOffset checks that a single file whose vox_offset lies inside
// the header is read from just after the header, as niftilib does.
func TestZeroVoxOffset(t *testing.T) {
	dir := t.TempDir()
	b := writeNii(t, dir)
	want, err := os.ReadFile(filepath.Join(dir, "base.nii.expected"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 108; i < 112; i++ {
		b[i] = 0
	}
	path := filepath.Join(dir, "zero.nii")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	got, err := loader.ReadAll(context.Background(), src, 0, 1<<20)
	if err != nil || string(got) != string(want) {
		t.Fatalf("samples differ from nibabel's: %v", err)
	}
}
