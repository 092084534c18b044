package hdf5

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// TestStructures checks that the fixtures exercise what they are meant
// to: superblock and object header versions, group storage, and each
// chunk index, as HDF5 1.10 writes them.
func TestStructures(t *testing.T) {
	dir, _ := fixtures(t, "latest")
	edir, _ := fixtures(t, "core")
	open := func(p string) *File {
		h, err := OpenFile(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		return h
	}
	early, late := open(filepath.Join(edir, "earliest.h5")), open(filepath.Join(dir, "latest.h5"))
	if early.sbVer != 0 || late.sbVer != 3 {
		t.Errorf("superblock versions %d, %d; want 0, 3", early.sbVer, late.sbVer)
	}
	if h := open(filepath.Join(edir, "sizes44.h5")); h.offSize != 4 || h.lenSize != 4 {
		t.Errorf("sizes44.h5: %d-byte addresses, %d-byte lengths", h.offSize, h.lenSize)
	}
	if v := open(filepath.Join(dir, "v108.h5")).sbVer; v != 2 {
		t.Errorf("v108.h5: superblock version %d, want 2", v)
	}
	// A contiguous plane of 5 MB is read in bands of rows.
	src, err := loader.Open(context.Background(), filepath.Join(edir, "earliest.h5")+"#/contig_bands")
	if err != nil {
		t.Fatal(err)
	}
	if c := src.Meta().Levels[0].Chunk; c[1] >= src.Meta().Shape[1] || c[2] != src.Meta().Shape[2] {
		t.Errorf("contiguous chunk %v of %v, want bands of whole rows", c, src.Meta().Shape)
	}
	src.Close()
	ub := open(filepath.Join(edir, "userblock.h5"))
	if ub.base != 1024 {
		t.Errorf("user block: base %d, want 1024", ub.base)
	}
	lay := open(filepath.Join(dir, "layouts.h5"))
	want := map[string]int{
		"/single": indexSingle, "/single_gz": indexSingle, "/implicit": indexImplicit, "/implicit_max": indexImplicit,
		"/fixed": indexFixed, "/fixed_gz": indexFixed, "/fixed_max": indexFixed, "/fixed_paged": indexFixed, "/fixed_paged_gz": indexFixed,
		"/ext": indexExtArray, "/ext_gz": indexExtArray, "/ext_mid": indexExtArray,
		"/bt2": indexBTree2, "/bt2_gz": indexBTree2,
	}
	for p, idx := range want {
		d, err := lay.datasetAt(p)
		if err != nil || d == nil {
			t.Fatalf("%s: %v", p, err)
		}
		if d.layout != layoutChunked || d.index != idx {
			t.Errorf("%s: layout %d index %d, want chunked index %d", p, d.layout, d.index, idx)
		}
	}
	for _, c := range []struct {
		h       *File
		p       string
		layout  int
		objVer2 bool
	}{{early, "/a/b/data", layoutChunked, false}, {early, "/contig", layoutContiguous, false}, {early, "/compact2d", layoutCompact, false},
		{late, "/a/b/data", layoutChunked, true}} {
		d, err := c.h.datasetAt(c.p)
		if err != nil || d == nil {
			t.Fatalf("%s: %v", c.p, err)
		}
		if d.layout != c.layout || (c.layout == layoutChunked && d.index != indexBTree1 && !c.objVer2) {
			t.Errorf("%s: layout %d index %d", c.p, d.layout, d.index)
		}
		b, _ := c.h.readAt(d.obj.addr, 4, "header")
		if (string(b) == "OHDR") != c.objVer2 {
			t.Errorf("%s: object header %q", c.p, b)
		}
	}
	// Groups: a symbol table (earliest), dense links (latest, 12 links).
	for _, c := range []struct {
		h     *File
		p     string
		dense bool
	}{{early, "/many", false}, {late, "/many", true}, {lay, "/dense", true}} {
		o, err := c.h.lookup(c.p)
		if err != nil {
			t.Fatal(err)
		}
		if st := o.find(msgSymbolTable) != nil; st == c.dense {
			t.Errorf("%s: symbol table %v", c.p, st)
		}
		if c.dense {
			if o.find(msgLinkInfo) == nil || o.find(msgLink) != nil {
				t.Errorf("%s: links not dense", c.p)
			}
		}
		ls, err := c.h.links(o)
		if err != nil || len(ls) != 12 {
			t.Errorf("%s: %d links, %v", c.p, len(ls), err)
		}
	}
}

// TestBigGroup: a group of 1500 links (fractal heap with indirect blocks,
// a name index of two levels) lists the names h5py lists.
func TestBigGroup(t *testing.T) {
	dir, _ := fixtures(t, "latest")
	p := filepath.Join(dir, "biggroup.h5")
	names, err := os.ReadFile(p + ".names")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(string(names), "\n")
	h, err := OpenFile(p)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	o, err := h.lookup("/g")
	if err != nil {
		t.Fatal(err)
	}
	ls, err := h.links(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != len(want) {
		t.Fatalf("%d links, h5py %d", len(ls), len(want))
	}
	for i := range ls {
		if ls[i].name != want[i] {
			t.Fatalf("link %d %q, h5py %q", i, ls[i].name, want[i])
		}
	}
	m := o.find(msgLinkInfo)
	r := h.newReader(m.data)
	r.skip(2)
	fh, err := h.readFractalHeap(r.addr())
	if err != nil {
		t.Fatal(err)
	}
	if fh.rootRows == 0 {
		t.Error("the fractal heap's root is a direct block; the test wants an indirect one")
	}
}

// TestAttributes compares the attributes read with h5py's: variable and
// fixed-length strings and numbers, in a symbol-table group and in a
// group with dense links.
func TestAttributes(t *testing.T) {
	for _, which := range []string{"core", "latest"} {
		dir, _ := fixtures(t, which)
		name := map[string]string{"core": "earliest.h5", "latest": "latest.h5"}[which]
		p := filepath.Join(dir, name)
		out := testtool.RunPython(t, `
import sys, h5py
a = h5py.File(sys.argv[1], 'r')['a'].attrs
print(a['vlen']); print(a['fixed'].decode()); print(' '.join(repr(float(v)) for v in a['nums']))
`, p)
		want := strings.Split(strings.TrimSpace(string(out)), "\n")
		h, err := OpenFile(p)
		if err != nil {
			t.Fatal(err)
		}
		o, err := h.lookup("/a")
		if err != nil {
			t.Fatal(err)
		}
		a, err := h.attrs(o)
		if err != nil {
			t.Fatal(err)
		}
		nums := fields(want[2])
		if a["vlen"].Str != want[0] || a["fixed"].Str != want[1] || len(a["nums"].Nums) != len(nums) {
			t.Errorf("%s: attributes %+v, h5py %q", which, a, want)
		}
		for i := range nums {
			if a["nums"].Nums[i] != nums[i] {
				t.Errorf("%s: nums %v, h5py %v", which, a["nums"].Nums, nums)
			}
		}
		h.Close()
	}
}

// TestDenseAttributes: a dataset with 21 attributes keeps them in a
// fractal heap; each equals h5py's.
func TestDenseAttributes(t *testing.T) {
	dir, _ := fixtures(t, "latest")
	p := filepath.Join(dir, "layouts.h5")
	out := testtool.RunPython(t, `
import sys, json, h5py
a = h5py.File(sys.argv[1], 'r')['fixed'].attrs
print(json.dumps({k: (v if isinstance(v, str) else float(v)) for k, v in a.items()}))
`, p)
	var want map[string]any
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	h, err := OpenFile(p)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	o, err := h.lookup("/fixed")
	if err != nil {
		t.Fatal(err)
	}
	if o.find(msgAttrInfo) == nil || o.find(msgAttribute) != nil {
		t.Fatal("attributes are not stored densely")
	}
	got, err := h.attrs(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(want) != 21 {
		t.Fatalf("%d attributes, h5py %d", len(got), len(want))
	}
	for k, v := range want {
		switch v := v.(type) {
		case string:
			if got[k].Str != v {
				t.Errorf("%s = %q, h5py %q", k, got[k].Str, v)
			}
		case float64:
			if len(got[k].Nums) != 1 || got[k].Nums[0] != v {
				t.Errorf("%s = %v, h5py %v", k, got[k].Nums, v)
			}
		}
	}
}

// TestFletcherCorrupt: a chunk whose bytes changed after writing fails its
// Fletcher-32 checksum, as h5py's read does.
func TestFletcherCorrupt(t *testing.T) {
	testtool.RequirePython(t, "h5py", "numpy")
	p := filepath.Join(t.TempDir(), "f32.h5")
	testtool.RunPython(t, `
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], 'w') as f:
    f.create_dataset('d', data=np.arange(64 * 64, dtype='u2').reshape(64, 64), chunks=(32, 32), fletcher32=True)
`, p)
	h, err := OpenFile(p)
	if err != nil {
		t.Fatal(err)
	}
	d, err := h.datasetAt("/d")
	if err != nil || d == nil {
		t.Fatal(err)
	}
	loc, err := d.locate([]uint64{1, 0})
	h.Close()
	if err != nil || loc.addr == undef {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[loc.addr+10] ^= 0x40
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := testtool.RunPython(t, `
import sys, h5py
try:
    h5py.File(sys.argv[1], 'r')['d'][32:64, 0:32]
    print('read')
except OSError:
    print('refused')
`, p)
	if strings.TrimSpace(string(out)) != "refused" {
		t.Fatalf("h5py: %s", out)
	}
	src, err := loader.Open(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	buf := make([]byte, src.Meta().Levels[0].ChunkBytes(src.Meta().DType))
	if err := src.ReadChunk(context.Background(), 0, []int{0, 0}, buf); err != nil {
		t.Errorf("intact chunk: %v", err)
	}
	err = src.ReadChunk(context.Background(), 0, []int{1, 0}, buf)
	if err == nil || !strings.Contains(err.Error(), "Fletcher-32") {
		t.Errorf("corrupt chunk: %v", err)
	}
}

// TestAxes: ilastik's axistags name the axes; without them the shape
// decides (documented in axes()).
func TestAxes(t *testing.T) {
	testtool.RequirePython(t, "h5py", "numpy")
	dir := t.TempDir()
	p := filepath.Join(dir, "axes.h5")
	testtool.RunPython(t, `
import sys, json, h5py, numpy as np
with h5py.File(sys.argv[1], 'w') as f:
    d = f.create_dataset('tagged', data=np.zeros((3, 4, 5, 6), 'u1'))
    d.attrs['axistags'] = json.dumps({'axes': [{'key': k, 'typeFlags': 2} for k in 'tcyx']})
    f.create_dataset('small4', data=np.zeros((3, 4, 5, 6), 'u1'))
    f.create_dataset('big4', data=np.zeros((9, 4, 5, 6), 'u1'))
    f.create_dataset('five', data=np.zeros((2, 3, 4, 5, 6), 'u1'))
    f.create_dataset('three', data=np.zeros((4, 5, 6), 'u1'))
    f.create_dataset('one', data=np.zeros((6,), 'u1'))
    f['three'].attrs['element_size_um'] = np.array([2.5, 0.25, 0.125], 'f4')
    s = f.create_dataset('scaled', data=np.zeros((3, 4, 5, 6), 'u1'))
    for i, name in enumerate(['time', 'z', 'y', 'x']):
        f[name] = np.arange(s.shape[i], dtype='f4')
        f[name].make_scale(name)
        s.dims[i].attach_scale(f[name])
`, p)
	for sel, axes := range map[string]string{"/tagged": "TCYX", "/small4": "CZYX", "/big4": "TZYX", "/five": "TCZYX", "/three": "ZYX", "/scaled": "TZYX"} {
		src, err := loader.Open(context.Background(), p+"#"+sel)
		if err != nil {
			t.Fatal(err)
		}
		if got := src.Meta().Axes; got != axes {
			t.Errorf("%s: axes %s, want %s", sel, got, axes)
		}
		if sel == "/three" {
			m := src.Meta()
			if m.Spacing[0] != 2.5 || m.Spacing[1] != 0.25 || m.Spacing[2] != 0.125 || m.Units[0] != "micrometer" {
				t.Errorf("element_size_um: spacing %v %v", m.Spacing, m.Units)
			}
		}
		if n := len(src.Meta().Series); n != 6 {
			t.Errorf("%d series listed, want the 6 of 2 to 5 dimensions", n)
		}
		src.Close()
	}
}

// TestInt64 reads int64 and big-endian uint64 datasets, chunked and
// compressed, with values a float64 cannot hold, exactly as h5py does.
func TestInt64(t *testing.T) {
	testtool.RequirePython(t, "h5py", "numpy")
	dir := t.TempDir()
	p := filepath.Join(dir, "i64.h5")
	testtool.RunPython(t, `
import sys, h5py, numpy as np
rng = np.random.default_rng(5)
i8 = rng.integers(-2**63, 2**63 - 1, (9, 40, 50), dtype=np.int64, endpoint=True)
u8 = (2**60 + np.arange(30 * 20, dtype=np.uint64)).reshape(30, 20)
with h5py.File(sys.argv[1], 'w') as f:
    f.create_dataset('labels/i8', data=i8, chunks=(2, 16, 16), compression='gzip', shuffle=True)
    f.create_dataset('u8', data=u8.astype('>u8'))
i8.astype('<i8').tofile(sys.argv[1] + '.i8.raw')
u8.astype('<u8').tofile(sys.argv[1] + '.u8.raw')
`, p)
	for _, c := range []struct {
		sel, raw string
		dt       loader.DType
	}{{"#/labels/i8", ".i8.raw", loader.Int64}, {"#/u8", ".u8.raw", loader.Uint64}} {
		src, err := loader.Open(context.Background(), p+c.sel)
		if err != nil {
			t.Fatalf("%s: %v", c.sel, err)
		}
		if src.Meta().DType != c.dt {
			t.Errorf("%s: dtype %v, want %v", c.sel, src.Meta().DType, c.dt)
		}
		got, err := loader.ReadAll(context.Background(), src, 0, 1<<24)
		src.Close()
		want, _ := os.ReadFile(p + c.raw)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes (%v) differ from h5py's %d", c.sel, len(got), err, len(want))
		}
	}
}

// TestErrors: a file cut short gives one clear line.
func TestErrors(t *testing.T) {
	testtool.RequirePython(t, "h5py", "numpy")
	dir := t.TempDir()
	p := filepath.Join(dir, "small.h5")
	testtool.RunPython(t, `
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], 'w') as f:
    f.create_dataset('big', data=np.zeros((40, 50), 'u2'))
`, p)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.h5")
	os.WriteFile(cut, b[:len(b)/3], 0o644)
	_, err = loader.Open(context.Background(), cut)
	if err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("truncated: %v", err)
	}
}
