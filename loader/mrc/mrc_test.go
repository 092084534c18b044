package mrc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// writeScript writes MRC files with mrcfile, each described by a case
// (name, dtype, shape, kind, voxel size, byte order, extended header
// bytes, whether to strip the MRC2014 "MAP " tag and machine stamp),
// and beside each the array mrcfile reads back as NAME.npy
// (little-endian; float16 widened to float32) and what mrcfile says of
// it as NAME.json.
const writeScript = `
import json, os, sys
import numpy as np
import mrcfile
out = sys.argv[1]
for c in json.loads(sys.argv[2]):
    shape = tuple(c["shape"])
    n = int(np.prod(shape))
    dt = np.dtype(c["dtype"])
    if dt.kind in "fc":
        data = (np.arange(n, dtype=np.float64).reshape(shape) * 0.37 - n / 7).astype(dt)
    else:
        info = np.iinfo(dt)
        data = (np.arange(n, dtype=np.int64) * 7919 % (int(info.max) - int(info.min) + 1) + int(info.min)).astype(dt).reshape(shape)
    if c["big"]:
        data = data.astype(dt.newbyteorder(">"))
    path = os.path.join(out, c["name"])
    with mrcfile.new(path, overwrite=True) as m:
        m.set_data(data)
        if c["kind"] == "stack":
            m.set_image_stack()
        elif c["kind"] == "volume":
            m.set_volume()
        if c["voxel"]:
            m.voxel_size = tuple(c["voxel"])
        if c["ext"]:
            m.set_extended_header(np.frombuffer(bytes(range(256)) * (c["ext"] // 256 + 1), dtype="V1")[:c["ext"]].copy())
    if c["old"]:
        with open(path, "r+b") as f:
            f.seek(208)
            f.write(b"\0" * 8)
    if c["stamp"]:
        with open(path, "r+b") as f:
            f.seek(212)
            f.write(c["stamp"].encode())
    with mrcfile.open(path, permissive=True) as m:
        d = m.data
        vs = m.voxel_size
        meta = {"shape": list(d.shape), "dtype": d.dtype.name, "stack": bool(m.is_image_stack()),
                "volume_stack": bool(m.is_volume_stack()), "voxel": [float(vs.x), float(vs.y), float(vs.z)],
                "mode": int(m.header.mode), "byteorder": m.header.mode.dtype.byteorder, "nsymbt": int(m.header.nsymbt)}
        if d.dtype.kind == "f" and d.dtype.itemsize == 2:
            d = d.astype(np.float32)
        np.save(path + ".npy", d.astype(d.dtype.newbyteorder("<")))
    with open(path + ".json", "w") as f:
        json.dump(meta, f)
`

type fixture struct {
	Name  string    `json:"name"`
	DType string    `json:"dtype"`
	Shape []int     `json:"shape"`
	Kind  string    `json:"kind"` // "stack", "volume" or "" (mrcfile's default for the shape)
	Voxel []float64 `json:"voxel"`
	Big   bool      `json:"big"`
	Ext   int       `json:"ext"`
	Old   bool      `json:"old"`
	Stamp string    `json:"stamp"` // a machine stamp to write over mrcfile's
}

// mrcfileSays is what mrcfile reads of a fixture.
type mrcfileSays struct {
	Shape       []int     `json:"shape"`
	DType       string    `json:"dtype"`
	Stack       bool      `json:"stack"`
	VolumeStack bool      `json:"volume_stack"`
	Voxel       []float64 `json:"voxel"`
	Mode        int       `json:"mode"`
	ByteOrder   string    `json:"byteorder"`
	NSymBT      int       `json:"nsymbt"`
}

// writeFixtures writes the cases with mrcfile into a new folder.
func writeFixtures(t testing.TB, cases []fixture) string {
	t.Helper()
	testtool.RequirePython(t, "mrcfile", "numpy")
	dir := t.TempDir()
	js, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	testtool.RunPython(t, writeScript, dir, string(js))
	return dir
}

var fixtures = []fixture{
	{Name: "int8.mrc", DType: "int8", Shape: []int{3, 20, 30}, Kind: "volume", Voxel: []float64{1.5, 2.5, 3.5}},
	{Name: "int16.mrcs", DType: "int16", Shape: []int{4, 17, 13}, Kind: "stack", Voxel: []float64{0.8, 0.8, 1}},
	{Name: "float32.map", DType: "float32", Shape: []int{5, 9, 11}, Kind: "volume", Voxel: []float64{1.1, 1.2, 1.3}},
	{Name: "uint16.st", DType: "uint16", Shape: []int{6, 8, 10}, Kind: "stack"},
	{Name: "float16.rec", DType: "float16", Shape: []int{4, 7, 9}, Kind: "volume", Voxel: []float64{2, 2, 2}},
	{Name: "single.mrc", DType: "float32", Shape: []int{12, 15}},
	{Name: "volstack.mrc", DType: "int16", Shape: []int{3, 4, 6, 5}, Voxel: []float64{4, 5, 6}},
	{Name: "big16.mrc", DType: "int16", Shape: []int{3, 10, 12}, Kind: "volume", Big: true, Voxel: []float64{1, 2, 3}},
	{Name: "bigf32.mrcs", DType: "float32", Shape: []int{2, 6, 7}, Kind: "stack", Big: true},
	{Name: "bigf16.mrc", DType: "float16", Shape: []int{2, 5, 6}, Kind: "volume", Big: true},
	{Name: "ext.ali", DType: "uint16", Shape: []int{3, 8, 9}, Kind: "stack", Ext: 1000},
	{Name: "old.mrc", DType: "int16", Shape: []int{2, 9, 8}, Kind: "volume", Old: true, Voxel: []float64{3, 3, 3}},
	{Name: "oldbig.mrc", DType: "float32", Shape: []int{2, 5, 4}, Kind: "volume", Old: true, Big: true},
	{Name: "wrongstamp.mrc", DType: "int16", Shape: []int{2, 6, 5}, Kind: "volume", Big: true, Stamp: "DD"},
}

// TestAgainstMrcfile opens files mrcfile wrote, in every mode it writes,
// both byte orders, with and without an extended header and the MRC2014
// tag: the axes and shape follow mrcfile's shape and its idea of an image
// stack, the voxel size is mrcfile's, and every sample equals what
// mrcfile reads (a machine stamp naming the wrong byte order as mrcfile's
// permissive mode reads it).
func TestAgainstMrcfile(t *testing.T) {
	dir := writeFixtures(t, fixtures)
	for _, c := range fixtures {
		t.Run(c.Name, func(t *testing.T) {
			path := filepath.Join(dir, c.Name)
			var says mrcfileSays
			js, err := os.ReadFile(path + ".json")
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(js, &says); err != nil {
				t.Fatal(err)
			}
			if c.Big && says.ByteOrder != ">" || c.Ext != says.NSymBT {
				t.Fatalf("mrcfile wrote byte order %q, extended header %d", says.ByteOrder, says.NSymBT)
			}
			head := make([]byte, 4096)
			fh, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			n, _ := fh.Read(head)
			fh.Close()
			if !Match(path, head[:n]) {
				t.Fatal("not matched")
			}
			src, err := loader.Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			m := src.Meta()
			wantAxes := map[int]string{2: "YX", 3: "ZYX", 4: "TZYX"}[len(says.Shape)]
			if says.Stack {
				wantAxes = "TYX"
			}
			wantType := says.DType
			if wantType == "float16" {
				wantType = "float32"
			}
			if m.Format != "mrc" || m.Axes != wantAxes || fmt.Sprint(m.Shape) != fmt.Sprint(says.Shape) || m.DType.String() != wantType {
				t.Fatalf("read %s %s %v %s; mrcfile: %v %s stack=%v", m.Format, m.Axes, m.Shape, m.DType, says.Shape, says.DType, says.Stack)
			}
			for i, a := range []byte("XYZ") {
				ax := m.AxisIndex(a)
				if ax < 0 {
					continue
				}
				want := says.Voxel[i]
				if a == 'Z' && says.Stack {
					continue
				}
				wantUnit := "angstrom"
				if want == 0 { // mrcfile's voxel size when the cell is not given
					want, wantUnit = 1, ""
				}
				if math.Abs(m.Spacing[ax]-want) > 1e-6*want || m.Units[ax] != wantUnit {
					t.Errorf("axis %c: spacing %v %s, mrcfile's voxel size %v Å", a, m.Spacing[ax], m.Units[ax], want)
				}
			}
			descr, shape, want := testtool.ReadNPY(t, path+".npy")
			if fmt.Sprint(shape) != fmt.Sprint(says.Shape) {
				t.Fatalf("npy %s %v", descr, shape)
			}
			got, err := loader.ReadAll(context.Background(), src, 0, 1<<24)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d bytes of samples, mrcfile reads %d", len(got), len(want))
			}
			for i := 0; i < len(got)/m.DType.Size(); i++ {
				if g, w := m.DType.At(got, i), m.DType.At(want, i); g != w && !(math.IsNaN(g) && math.IsNaN(w)) {
					t.Fatalf("sample %d: %v, mrcfile reads %v", i, g, w)
				}
			}
		})
	}
}

// TestPacked4 reads a mode-101 file (mrcfile 1.4 writes none: numpy packs
// the samples two per byte, the first in the low nibble, each row of odd
// length padded to a byte, into a file mrcfile wrote as mode 0) as the
// uint8 samples numpy packed.
func TestPacked4(t *testing.T) {
	testtool.RequirePython(t, "mrcfile", "numpy")
	dir := t.TempDir()
	path := filepath.Join(dir, "p4.mrc")
	testtool.RunPython(t, `
import sys
import numpy as np
import mrcfile
path = sys.argv[1]
nz, ny, nx = 3, 5, 7
v = (np.arange(nz * ny * nx) * 5 % 16).astype(np.uint8).reshape(nz, ny, nx)
with mrcfile.new(path, overwrite=True) as m:
    m.set_data(np.zeros((nz, ny, (nx + 1) // 2), dtype=np.int8))
    m.voxel_size = (1, 2, 3)
pad = np.zeros((nz, ny, nx + 1), dtype=np.uint8)
pad[..., :nx] = v
packed = (pad[..., 0::2] | (pad[..., 1::2] << 4)).astype(np.uint8)
with open(path, "r+b") as f:
    f.seek(0)
    f.write(np.array([nx], "<i4").tobytes())
    f.seek(12)
    f.write(np.array([101], "<i4").tobytes())
    f.seek(28)
    f.write(np.array([nx], "<i4").tobytes())
    f.seek(1024)
    f.write(packed.tobytes())
np.save(path + ".npy", v)
`, path)
	src, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	m := src.Meta()
	if m.Axes != "ZYX" || fmt.Sprint(m.Shape) != "[3 5 7]" || m.DType != loader.Uint8 {
		t.Fatalf("meta %s %v %s", m.Axes, m.Shape, m.DType)
	}
	_, _, want := testtool.ReadNPY(t, path+".npy")
	got, err := loader.ReadAll(context.Background(), src, 0, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("samples %v, want %v", got, want)
	}
}

// TestBadMRCGivesOneClearError: a file cut short, complex samples and an
// unknown mode are refused, in one line saying why.
func TestBadMRCGivesOneClearError(t *testing.T) {
	dir := writeFixtures(t, []fixture{{Name: "f.mrc", DType: "int16", Shape: []int{4, 16, 16}, Kind: "volume"},
		{Name: "c.mrc", DType: "complex64", Shape: []int{2, 4, 4}, Kind: "volume"}})
	b, err := os.ReadFile(filepath.Join(dir, "f.mrc"))
	if err != nil {
		t.Fatal(err)
	}
	complex64, err := os.ReadFile(filepath.Join(dir, "c.mrc"))
	if err != nil {
		t.Fatal(err)
	}
	withMode := func(mode byte) []byte {
		c := bytes.Clone(b)
		c[offMode] = mode
		return c
	}
	withExt := bytes.Clone(b)
	withExt[offNSymBT+1] = 0x10 // a 4 KiB extended header the file lacks
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"cut.mrc", b[:len(b)-100], "truncated"},
		{"head.mrc", b[:600], "header"},
		{"ext.mrc", withExt, "truncated"},
		{"complex.mrc", complex64, "complex"},
		{"mode3.mrc", withMode(3), "complex"},
		{"mode9.mrc", withMode(9), "mode 9"},
	}
	for _, c := range cases {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(context.Background(), path)
		var fe *loader.FormatError
		var ue *loader.UnsupportedError
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") ||
			!errors.As(err, &fe) && !errors.As(err, &ue) {
			t.Errorf("%s: %v, want one line saying %q", c.name, err, c.want)
		}
	}
}

// TestAxisOrderNoted: a file whose MAPC/MAPR/MAPS put its axes in another
// order (mrcfile writes the header field as asked) is shown as stored,
// and info says so.
func TestAxisOrderNoted(t *testing.T) {
	testtool.RequirePython(t, "mrcfile", "numpy")
	path := filepath.Join(t.TempDir(), "swapped.mrc")
	testtool.RunPython(t, `
import sys
import numpy as np
import mrcfile
with mrcfile.new(sys.argv[1]) as m:
    m.set_data(np.arange(2 * 3 * 4, dtype=np.int16).reshape(2, 3, 4))
    m.header.mapc, m.header.mapr, m.header.maps = 2, 1, 3
`, path)
	src, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if n := src.Meta().Notes; len(n) != 1 || !strings.Contains(n[0], "2/1/3") {
		t.Errorf("notes %q", n)
	}
}
