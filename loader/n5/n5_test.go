package n5

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// writeScript writes an N5 container with zarr-python's N5Store (and
// one dataset with its N5FSStore): one
// dataset per compressor numcodecs has (raw, gzip, zlib, bz2, lz4, blosc,
// zstd) and per data type, with edge blocks; an n5-viewer scale pyramid
// (s0, s1, s2 with downsamplingFactors and pixelResolution) and
// BigDataViewer setups (setup0/timepoint0/s0, s1 with the setup's
// downsamplingFactors; setup1 of timepoints 0, 1, 2 and 10). Beside the container, each dataset's array as
// zarr reads it (NAME.npy, little-endian, "/" in the path as "__") and a
// manifest of the datasets (manifest.json).
const writeScript = `
import json, os, sys, warnings
import numpy as np
import numcodecs
import zarr
warnings.simplefilter("ignore")
out = sys.argv[1]
root = os.path.join(out, "c.n5")
store = zarr.N5Store(root)
g = zarr.group(store=store)
manifest = []
def values(shape, dt):
    n = int(np.prod(shape))
    dt = np.dtype(dt)
    if dt.kind == "f":
        return (np.arange(n, dtype=np.float64).reshape(shape) * 0.25 - n / 3).astype(dt)
    info = np.iinfo(dt)
    span = min(int(info.max) - int(info.min) + 1, 1 << 40)
    return (np.arange(n, dtype=np.int64) * 7919 % span + int(info.min)).astype(dt).reshape(shape)
def save(path, a):
    np.save(os.path.join(out, path.replace("/", "__") + ".npy"), a[...].astype(a.dtype.newbyteorder("<")))
    manifest.append({"path": path, "shape": list(a.shape), "chunks": list(a.chunks), "dtype": a.dtype.name})
comps = {"raw": None, "gzip": numcodecs.GZip(5), "zlib": numcodecs.Zlib(3), "bz2": numcodecs.BZ2(2),
         "lz4": numcodecs.LZ4(), "blosc": numcodecs.Blosc("zstd", 3, numcodecs.Blosc.BITSHUFFLE), "zstd": numcodecs.Zstd(2),
         "xz": numcodecs.LZMA()}
for name, c in comps.items():
    a = g.create_dataset("comp/" + name, shape=(5, 13, 11), chunks=(2, 4, 8), dtype="uint16", compressor=c)
    a[:] = values(a.shape, a.dtype)
    save("comp/" + name, a)
for dt in ["uint8", "int8", "int16", "uint32", "int32", "float32", "float64"]:
    a = g.create_dataset("types/" + dt, shape=(7, 9), chunks=(4, 5), dtype=dt, compressor=numcodecs.GZip())
    a[:] = values(a.shape, a.dtype)
    save("types/" + dt, a)
pyr = g.create_group("pyramid")
pyr.attrs["scales"] = [[1, 1, 1], [2, 2, 1], [4, 4, 2]]
pyr.attrs["pixelResolution"] = {"dimensions": [0.5, 0.5, 2.0], "unit": "um"}
full = values((6, 24, 20), "uint16")
for k, f in enumerate([(1, 1, 1), (1, 2, 2), (2, 4, 4)]):
    level = full[::f[0], ::f[1], ::f[2]]
    a = pyr.create_dataset("s%d" % k, shape=level.shape, chunks=(2, 8, 8), dtype="uint16", compressor=numcodecs.GZip())
    a[:] = level
    a.attrs["downsamplingFactors"] = list(f[::-1])
    save("pyramid/s%d" % k, a)
setup = g.create_group("setup0")
setup.attrs["downsamplingFactors"] = [[1, 1, 1], [2, 2, 2]]
setup.attrs["dataType"] = "int16"
tp = setup.create_group("timepoint0")
full = values((8, 10, 12), "int16")
for k, f in enumerate([1, 2]):
    level = full[::f, ::f, ::f]
    a = tp.create_dataset("s%d" % k, shape=level.shape, chunks=(4, 4, 4), dtype="int16", compressor=numcodecs.Zstd())
    a[:] = level
    save("setup0/timepoint0/s%d" % k, a)
setup = g.create_group("setup1")
setup.attrs["downsamplingFactors"] = [[1, 1, 1], [2, 2, 1]]
setup.attrs["dataType"] = "uint8"
for t in [0, 1, 2, 10]:
    tp = setup.create_group("timepoint%d" % t)
    full = ((values((3, 10, 12), "uint8").astype(np.int64) + 40 * t) % 256).astype(np.uint8)
    for k, f in enumerate([1, 2]):
        level = full[:, ::f, ::f]
        a = tp.create_dataset("s%d" % k, shape=level.shape, chunks=(2, 4, 4), dtype="uint8", compressor=numcodecs.GZip())
        a[:] = level
        save("setup1/timepoint%d/s%d" % (t, k), a)
fs = zarr.open_group(zarr.N5FSStore(root), mode="a")
a = fs.create_dataset("fsstore/uint16", shape=(3, 10, 9), chunks=(2, 4, 4), dtype="uint16", compressor=numcodecs.GZip())
a[:] = values(a.shape, a.dtype)
save("fsstore/uint16", a)
with open(os.path.join(out, "manifest.json"), "w") as f:
    json.dump(manifest, f)
`

type entry struct {
	Path   string `json:"path"`
	Shape  []int  `json:"shape"`
	Chunks []int  `json:"chunks"`
	DType  string `json:"dtype"`
}

// writeContainer writes the container of writeScript into a new folder
// and returns the folder and the manifest.
func writeContainer(t testing.TB) (string, []entry) {
	t.Helper()
	testtool.RequirePython(t, "zarr", "numcodecs", "numpy")
	dir := t.TempDir()
	testtool.RunPython(t, writeScript, dir)
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m []entry
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return dir, m
}

// readLevel reads level l of src whole and compares it with the array
// zarr read, sample by sample.
func checkLevel(t *testing.T, src loader.Source, level int, npy string) {
	t.Helper()
	m := src.Meta()
	_, shape, want := testtool.ReadNPY(t, npy)
	if fmt.Sprint(shape) != fmt.Sprint(m.Levels[level].Shape) {
		t.Fatalf("level %d: shape %v, zarr's %v", level, m.Levels[level].Shape, shape)
	}
	got, err := loader.ReadAll(context.Background(), src, level, 1<<26)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("level %d: %d bytes, zarr's %d", level, len(got), len(want))
	}
	for i := 0; i < len(got)/m.DType.Size(); i++ {
		if g, w := m.DType.At(got, i), m.DType.At(want, i); g != w {
			t.Fatalf("level %d sample %d: %v, zarr reads %v", level, i, g, w)
		}
	}
}

// TestAgainstZarrPython opens every dataset zarr-python's N5Store wrote,
// each compressor and data type, by its folder and as a series of the
// container (by path and by index): the shape and chunks are zarr's (N5's fastest-first lists
// reversed) and every sample equals what zarr reads, edge blocks
// included; each dataset has one identity, whichever way it is opened,
// and no two datasets the same.
func TestAgainstZarrPython(t *testing.T) {
	dir, manifest := writeContainer(t)
	root := filepath.Join(dir, "c.n5")
	whole, err := loader.Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	defer whole.Close()
	series := whole.Meta().Series
	ids := map[loader.Identity]bool{}
	for _, e := range manifest {
		if strings.HasPrefix(e.Path, "pyramid/") || strings.HasPrefix(e.Path, "setup") {
			continue
		}
		t.Run(e.Path, func(t *testing.T) {
			for _, loc := range []string{filepath.Join(root, filepath.FromSlash(e.Path)), root + "#" + e.Path} {
				src, err := loader.Open(context.Background(), loc)
				if err != nil {
					t.Fatalf("%s: %v", loc, err)
				}
				defer src.Close()
				m := src.Meta()
				if m.Format != "n5" || m.DType.String() != e.DType || fmt.Sprint(m.Levels[0].Chunk) != fmt.Sprint(e.Chunks) ||
					m.Axes != "TCZYX"[5-len(e.Shape):] {
					t.Fatalf("%s: %s %s %v %s chunks %v; zarr: %v %s chunks %v", loc, m.Format, m.Axes, m.Shape, m.DType,
						m.Levels[0].Chunk, e.Shape, e.DType, e.Chunks)
				}
				checkLevel(t, src, 0, filepath.Join(dir, strings.ReplaceAll(e.Path, "/", "__")+".npy"))
				id, err := loader.SourceIdentity(loc, src)
				if err != nil {
					t.Fatal(err)
				}
				ids[id] = true
			}
			sel := ""
			for _, s := range series {
				if s.Name == e.Path && fmt.Sprint(s.Shape) == fmt.Sprint(e.Shape) {
					sel = s.Selector
				}
			}
			if sel == "" {
				t.Fatalf("not among the container's series %v", series)
			}
			byIndex, err := loader.Open(context.Background(), root+"#"+sel)
			if err != nil {
				t.Fatal(err)
			}
			defer byIndex.Close()
			checkLevel(t, byIndex, 0, filepath.Join(dir, strings.ReplaceAll(e.Path, "/", "__")+".npy"))
		})
	}
	if n := len(manifest) - 5 - 8; len(ids) != n { // less the pyramids' levels
		t.Errorf("%d identities for %d datasets, each opened two ways", len(ids), n)
	}
}

// TestPyramids opens an n5-viewer scale pyramid and a BigDataViewer
// setup that zarr wrote: one image each, with the stored levels, their
// samples zarr's, and the scales the downsampling factors and pixel
// resolution say.
func TestPyramids(t *testing.T) {
	dir, _ := writeContainer(t)
	root := filepath.Join(dir, "c.n5")
	for _, c := range []struct {
		loc     string
		npy     []string
		spacing string
		units   string
		scales  []string
	}{
		{filepath.Join(root, "pyramid"), []string{"pyramid__s0", "pyramid__s1", "pyramid__s2"},
			"[2 0.5 0.5]", "[micrometer micrometer micrometer]", []string{"[2 0.5 0.5]", "[2 1 1]", "[4 2 2]"}},
		{root + "#setup0/timepoint0", []string{"setup0__timepoint0__s0", "setup0__timepoint0__s1"},
			"[1 1 1]", "[  ]", []string{"[1 1 1]", "[2 2 2]"}},
	} {
		t.Run(c.loc, func(t *testing.T) {
			src, err := loader.Open(context.Background(), c.loc)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			m := src.Meta()
			if len(m.Levels) != len(c.npy) || m.Axes != "ZYX" || fmt.Sprint(m.Spacing) != c.spacing || fmt.Sprint(m.Units) != c.units {
				t.Fatalf("%d levels, axes %s, spacing %v %v", len(m.Levels), m.Axes, m.Spacing, m.Units)
			}
			for k, npy := range c.npy {
				if got := fmt.Sprint(m.Levels[k].Scale); got != c.scales[k] {
					t.Errorf("level %d: scale %s, want %s", k, got, c.scales[k])
				}
				checkLevel(t, src, k, filepath.Join(dir, npy+".npy"))
			}
		})
	}
}

// TestTruncatedEdgeBlock reads a dataset whose edge blocks are stored cut
// to the array, as the N5 libraries write them (zarr-python pads them to
// the block size): numpy rewrites zarr's raw edge blocks with the header
// giving their real size, one of them in the variable-length mode.
func TestTruncatedEdgeBlock(t *testing.T) {
	testtool.RequirePython(t, "zarr", "numpy")
	dir := t.TempDir()
	testtool.RunPython(t, `
import os, struct, sys
import numpy as np
import zarr
out = sys.argv[1]
root = os.path.join(out, "e.n5")
a = zarr.open(zarr.N5Store(root), mode="w", shape=(5, 7), chunks=(3, 4), dtype="int32", compressor=None)
v = (np.arange(35) * 101 - 1700).astype(np.int32).reshape(5, 7)
a[:] = v
for by in range(2):
    for bx in range(2):
        blk = v[by * 3:(by + 1) * 3, bx * 4:(bx + 1) * 4]
        h, w = blk.shape
        with open(os.path.join(root, str(bx), str(by)), "wb") as f:
            if bx == 1 and by == 0: # the variable-length mode, its element count after the size
                f.write(struct.pack(">HHIII", 1, 2, w, h, w * h) + blk.astype(">i4").tobytes())
            else:
                f.write(struct.pack(">HHII", 0, 2, w, h) + blk.astype(">i4").tobytes())
np.save(os.path.join(out, "e.npy"), v)
`, dir)
	src, err := Open(context.Background(), filepath.Join(dir, "e.n5"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	checkLevel(t, src, 0, filepath.Join(dir, "e.npy"))
}

// TestBadN5GivesOneClearError: a one-dimensional dataset, a block cut short, a block
// of the wrong number of dimensions and attributes that are not JSON are
// refused in one line saying why; a missing block reads as zeros and
// says it is not stored.
func TestBadN5GivesOneClearError(t *testing.T) {
	testtool.RequirePython(t, "zarr", "numcodecs", "numpy")
	dir := t.TempDir()
	testtool.RunPython(t, `
import os, sys, warnings
import numpy as np
import numcodecs
import zarr
warnings.simplefilter("ignore")
out = sys.argv[1]
for name, c, shape, dt in [("raw", None, (4, 6), "uint16"),
                           ("u64", None, (4, 6), "uint64"), ("line", None, (10,), "uint8")]:
    chunks = (2, 3) if len(shape) == 2 else shape
    a = zarr.open(zarr.N5Store(os.path.join(out, name + ".n5")), mode="w", shape=shape, chunks=chunks, dtype=dt, compressor=c)
    a[:] = 7
    if dt == "uint64":  # ids one apart above 2^60, which float64 cannot tell apart
        a[:] = 2**60 + np.arange(24, dtype=np.uint64).reshape(shape)
`, dir)
	raw := filepath.Join(dir, "raw.n5")
	u64, err := Open(context.Background(), filepath.Join(dir, "u64.n5"))
	if err != nil {
		t.Fatalf("uint64: %v", err)
	}
	got, err := loader.ReadAll(context.Background(), u64, 0, 1<<20)
	u64.Close()
	if err != nil || u64.Meta().DType != loader.Uint64 || len(got) != 8*24 {
		t.Fatalf("uint64: %v %d bytes, %v", u64.Meta().DType, len(got), err)
	}
	for i := range 24 {
		if v := binary.LittleEndian.Uint64(got[8*i:]); v != 1<<60+uint64(i) {
			t.Fatalf("uint64 sample %d is %d, want %d", i, v, uint64(1<<60+i))
		}
	}
	for name, want := range map[string]string{"line": "1 dimensions"} {
		_, err := Open(context.Background(), filepath.Join(dir, name+".n5"))
		var ue *loader.UnsupportedError
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") || !errors.As(err, &ue) {
			t.Errorf("%s: %v, want one line saying %q", name, err, want)
		}
	}
	src, err := Open(context.Background(), raw)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	buf := make([]byte, src.Meta().Levels[0].ChunkBytes(src.Meta().DType))
	read := func(x, y int) error { return src.ReadChunk(context.Background(), 0, []int{y, x}, buf) }
	block := filepath.Join(raw, "1", "0")
	b, err := os.ReadFile(block)
	if err != nil {
		t.Fatal(err)
	}
	if err := read(1, 0); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		data []byte
		want string
	}{
		{b[:len(b)-3], "bytes of samples"},
		{b[:6], "header"},
		{append([]byte{0, 0, 0, 3}, b[4:]...), "dimensions"},
		{append([]byte{0, 2}, b[2:]...), "mode"},
	} {
		os.WriteFile(block, c.data, 0o644)
		err := read(1, 0)
		var fe *loader.FormatError
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") || !errors.As(err, &fe) {
			t.Errorf("%v, want one line saying %q", err, c.want)
		}
	}
	os.Remove(block)
	buf[0] = 1
	if err := read(1, 0); !loader.IsNotStored(err) || buf[0] != 0 {
		t.Errorf("missing block: %v, first byte %d", err, buf[0])
	}
	os.WriteFile(filepath.Join(raw, attributesFile), []byte("{not json"), 0o644)
	if _, err := Open(context.Background(), raw); err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("bad attributes: %v", err)
	}
}

// TestAxesAndResolution reads the axis names and sample sizes a dataset's
// attributes give, as the N5 tools write them (fastest first: "axes"
// ["x", "y", "c"] is a C, Y, X array in zarr's order), with the units.
func TestAxesAndResolution(t *testing.T) {
	testtool.RequirePython(t, "zarr", "numpy")
	dir := t.TempDir()
	root := filepath.Join(dir, "a.n5")
	testtool.RunPython(t, `
import sys
import numpy as np
import zarr
a = zarr.open(zarr.N5Store(sys.argv[1]), mode="w", shape=(2, 6, 8), chunks=(1, 6, 8), dtype="uint8")
a[:] = np.arange(96).reshape(2, 6, 8)
a.attrs["axes"] = ["x", "y", "c"]
a.attrs["resolution"] = [0.25, 0.5, 1]
a.attrs["units"] = ["nm", "nm", ""]
np.save(sys.argv[1] + ".npy", a[...])
`, root)
	src, err := Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	m := src.Meta()
	if m.Axes != "CYX" || fmt.Sprint(m.Spacing) != "[1 0.5 0.25]" || fmt.Sprint(m.Units) != "[ nanometer nanometer]" {
		t.Fatalf("axes %s, spacing %v %v", m.Axes, m.Spacing, m.Units)
	}
	checkLevel(t, src, 0, root+".npy")
}

// TestTimepoints opens a BigDataViewer setup of four timepoints that zarr
// wrote: one image whose T axis runs over the timepoints in the order of
// their numbers, each level's samples those zarr reads of each timepoint.
func TestTimepoints(t *testing.T) {
	dir, _ := writeContainer(t)
	src, err := loader.Open(context.Background(), filepath.Join(dir, "c.n5")+"#setup1")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	m := src.Meta()
	if m.Axes != "TZYX" || fmt.Sprint(m.Shape) != "[4 3 10 12]" || len(m.Levels) != 2 || fmt.Sprint(m.Levels[1].Scale) != "[1 1 2 2]" {
		t.Fatalf("axes %s shape %v, %d levels %+v", m.Axes, m.Shape, len(m.Levels), m.Levels)
	}
	for k := range m.Levels {
		var want []byte
		for _, tp := range []int{0, 1, 2, 10} {
			_, _, b := testtool.ReadNPY(t, filepath.Join(dir, fmt.Sprintf("setup1__timepoint%d__s%d.npy", tp, k)))
			want = append(want, b...)
		}
		got, err := loader.ReadAll(context.Background(), src, k, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("level %d differs from zarr's timepoints", k)
		}
	}
}
