package zarr

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vastview/base/testtool"
	"vastview/levels/omezarr"
	"vastview/loader"
)

var updateSeeds = flag.Bool("seeds", false, "rewrite the fuzz seeds in testdata/seeds")

// seedDir holds small metadata documents and chunks made by python-zarr
// and by levels/omezarr: NAME.zarray, NAME.zattrs, NAME.zarr.json, and
// NAME.chunk for the first chunk of the array NAME describes.
var seedDir = filepath.Join("testdata", "seeds")

// seedScript writes tiny python-zarr arrays and groups into argv[1].
const seedScript = `
import sys, os, json
import numpy as np, zarr, numcodecs
d = sys.argv[1]
def arr(name, data, **kw):
    z = zarr.open(os.path.join(d, name), mode='w', shape=data.shape, dtype=data.dtype, chunks=data.shape, **kw)
    z[...] = data
a = np.arange(60, dtype='<u2').reshape(6, 10) * 997
arr('v2_blosc_lz4', a, compressor=numcodecs.Blosc('lz4', 5, 1))
arr('v2_blosc_bit', a, compressor=numcodecs.Blosc('zstd', 3, 2))
arr('v2_zstd_f_order', np.linspace(-1, 1, 60, dtype='<f4').reshape(3, 4, 5), compressor=numcodecs.Zstd(1), order='F', dimension_separator='/')
arr('v2_zlib_be', (np.arange(64, dtype='>i2') - 30).reshape(8, 8), compressor=numcodecs.Zlib(1), fill_value=-3)
arr('v2_raw_nan', np.ones((4, 4), dtype='<f8'), compressor=None, fill_value=np.nan)
arr('v2_lz4', np.arange(48, dtype='|u1').reshape(4, 12), compressor=numcodecs.LZ4())
g = zarr.open_group(os.path.join(d, 'v04_group'), mode='w')
g.attrs['multiscales'] = [{'version': '0.4', 'name': 'img',
    'axes': [{'name': 'c', 'type': 'channel'}, {'name': 'z', 'type': 'space', 'unit': 'micrometer'},
             {'name': 'y', 'type': 'space', 'unit': 'micrometer'}, {'name': 'x', 'type': 'space', 'unit': 'micrometer'}],
    'datasets': [{'path': str(k), 'coordinateTransformations': [{'type': 'scale', 'scale': [1, 2, 0.5 * 2**k, 0.5 * 2**k]},
        {'type': 'translation', 'translation': [0, 0, 0.25 * (2**k - 1), 0.25 * (2**k - 1)]}]} for k in range(3)],
    'coordinateTransformations': [{'type': 'scale', 'scale': [1, 1, 1, 1]}]}]
g.attrs['omero'] = {'channels': [{'label': 'DAPI', 'color': '0000FF', 'window': {'start': 0, 'end': 1000, 'min': 0, 'max': 65535}}]}
l = zarr.open_group(os.path.join(d, 'v04_label'), mode='w')
l.attrs['multiscales'] = [{'version': '0.4', 'axes': [{'name': 'y', 'type': 'space'}, {'name': 'x', 'type': 'space'}],
    'datasets': [{'path': '0', 'coordinateTransformations': [{'type': 'scale', 'scale': [1, 1]}]}]}]
l.attrs['image-label'] = {'version': '0.4', 'colors': [{'label-value': 1, 'rgba': [255, 0, 0, 255]}], 'source': {'image': '../../'}}
`

// TestWriteSeeds rewrites the fuzz seeds when run with -seeds.
func TestWriteSeeds(t *testing.T) {
	if !*updateSeeds {
		t.Skip("run with -seeds to rewrite testdata/seeds")
	}
	tmp := t.TempDir()
	testtool.RequirePython(t, "zarr", "numcodecs", "numpy")
	testtool.RunPython(t, seedScript, tmp)
	os.RemoveAll(seedDir)
	os.MkdirAll(seedDir, 0o755)
	copySeed := func(name, from, as string) {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(seedDir, name+"."+as), b)
	}
	for _, n := range []string{"v2_blosc_lz4", "v2_blosc_bit", "v2_zlib_be", "v2_raw_nan", "v2_lz4"} {
		copySeed(n, filepath.Join(tmp, n, ".zarray"), "zarray")
		copySeed(n, filepath.Join(tmp, n, "0.0"), "chunk")
	}
	copySeed("v2_zstd_f_order", filepath.Join(tmp, "v2_zstd_f_order", ".zarray"), "zarray")
	copySeed("v2_zstd_f_order", filepath.Join(tmp, "v2_zstd_f_order", "0", "0", "0"), "chunk")
	copySeed("v04_group", filepath.Join(tmp, "v04_group", ".zattrs"), "zattrs")
	copySeed("v04_label", filepath.Join(tmp, "v04_label", ".zattrs"), "zattrs")

	src := newGenSource(loader.Uint16, 3)
	out := filepath.Join(tmp, "own.ome.zarr")
	if err := omezarr.Write(context.Background(), out, src, omezarr.Options{Version: 3, Codec: "zstd"}); err != nil {
		t.Fatal(err)
	}
	copySeed("v05_group", filepath.Join(out, "zarr.json"), "zarr.json")
	copySeed("v3_own_zstd", filepath.Join(out, "2", "zarr.json"), "zarr.json")
	copySeed("v3_own_zstd", filepath.Join(out, "2", "c", "0", "0", "0", "0"), "chunk")
	sh := &v3Array{dtype: loader.Uint16, shape: []int{10, 12}, chunk: []int{8, 8}, inner: []int{4, 4}, fill: 0,
		codecs: []map[string]any{shardingCodec([]int{4, 4}, "end",
			[]map[string]any{bytesCodec("little"), named("gzip")},
			[]map[string]any{bytesCodec("little"), named("crc32c")})},
		empty: func(i []int) bool { return i[0] == 1 && i[1] == 0 }, seed: 9}
	sdir := filepath.Join(tmp, "sharded")
	sh.write(t, sdir)
	copySeed("v3_sharded", filepath.Join(sdir, "zarr.json"), "zarr.json")
	copySeed("v3_sharded", filepath.Join(sdir, "c", "0", "0"), "chunk")
}

// seeds returns the seed files with the given extension, by name.
func seeds(f *testing.F, ext string) map[string][]byte {
	paths, _ := filepath.Glob(filepath.Join(seedDir, "*."+ext))
	if len(paths) == 0 {
		f.Fatalf("no *.%s seeds in %s (run go test -run TestWriteSeeds -seeds)", ext, seedDir)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(p), "."+ext)] = b
	}
	return out
}

// FuzzMetadata parses arbitrary .zarray, .zattrs and zarr.json documents:
// no panic, and what parses describes a valid array or image.
func FuzzMetadata(f *testing.F) {
	for _, b := range seeds(f, "zarray") {
		f.Add(uint8(0), b)
	}
	for _, b := range seeds(f, "zattrs") {
		f.Add(uint8(1), b)
	}
	for _, b := range seeds(f, "zarr.json") {
		f.Add(uint8(2), b)
	}
	f.Fuzz(func(t *testing.T, kind uint8, doc []byte) {
		if len(doc) > 64<<10 {
			return
		}
		switch kind % 3 {
		case 0:
			if a, err := parseArrayV2("0/", doc, doc); err == nil {
				checkArray(t, a)
			}
		case 1:
			fuzzAttrs(t, doc)
		case 2:
			z, err := parseNodeV3(doc)
			if err != nil {
				return
			}
			if z.NodeType == "group" {
				fuzzAttrs(t, z.Attributes)
			} else if a, err := parseArrayV3("", z); err == nil {
				checkArray(t, a)
			}
		}
	})
}

// checkArray checks what a parsed array promises.
func checkArray(t *testing.T, a *array) {
	if a.chunkBytes() <= 0 || a.chunkBytes() > maxChunkBytes || len(a.fill) != a.typ.dt.Size() {
		t.Fatalf("array with chunk %v of %v, fill %v", a.chunk, a.typ.dt, a.fill)
	}
	if axes, err := axesByNames(a.names, len(a.shape)); err == nil {
		m := loader.NewMeta("zarr", axes, a.shape, a.typ.dt, a.chunk, nil, nil)
		if err := m.Validate(); err != nil && !strings.Contains(err.Error(), "too large") {
			t.Fatalf("array metadata invalid: %v", err)
		}
	}
}

// fuzzAttrs parses group attributes and builds an image's metadata over
// arrays of matching rank.
func fuzzAttrs(t *testing.T, doc []byte) {
	a, err := parseAttrs(doc)
	if err != nil {
		return
	}
	a.ImageLabel.palette()
	a.Omero.channels(3)
	if len(a.Multiscales) == 0 || len(a.Multiscales[0].Datasets) > maxLevels {
		return
	}
	ms := &a.Multiscales[0]
	n := len(ms.Axes)
	if n == 0 {
		n = 3
	}
	var arrays []*array
	for k := range ms.Datasets {
		shape := make([]int, n)
		for i := range shape {
			shape[i] = 64 >> min(k, 5)
		}
		arrays = append(arrays, &array{shape: shape, chunk: shape, typ: sampleType{dt: loader.Uint16}})
	}
	if len(arrays) == 0 {
		return
	}
	m, err := multiscaleMeta(ms, arrays)
	if err != nil {
		return
	}
	if err := m.Validate(); err != nil {
		t.Fatalf("image metadata invalid: %v", err)
	}
}

// FuzzStore opens a store of one array's metadata and its first chunk (or
// shard) and reads the whole array: no panic, no hang, and either data or
// one error.
func FuzzStore(f *testing.F) {
	chunks := seeds(f, "chunk")
	for name, b := range seeds(f, "zarray") {
		f.Add(false, b, chunks[name])
	}
	for name, b := range seeds(f, "zarr.json") {
		f.Add(true, b, chunks[name])
	}
	f.Fuzz(func(t *testing.T, v3 bool, meta, chunk []byte) {
		if len(meta) > 16<<10 || len(chunk) > 64<<10 {
			return
		}
		name := ".zarray"
		if v3 {
			name = "zarr.json"
		}
		st := newMemStore(map[string][]byte{name: meta})
		src, err := OpenStore(context.Background(), st)
		if err != nil {
			return
		}
		defer src.Close()
		a := src.levels[0]
		st.put(a.keys.key("", make([]int, len(a.shape))), chunk)
		if err := src.Meta().Validate(); err != nil {
			t.Fatalf("opened an invalid array: %v", err)
		}
		chunks := 1
		for _, g := range a.grid() {
			chunks *= g
		}
		if a.chunkBytes() > 1<<20 || chunks > 4096 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_, err = loader.ReadAll(ctx, &tolerant{Source: src}, 0, 4<<20)
		if ctx.Err() != nil {
			t.Fatalf("reading hangs: %v", err)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("error spans lines: %q", err)
		}
	})
}

// TestSeeds reads the first chunk of every seed array: the seeds are
// real, readable stores.
func TestSeeds(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(seedDir, "*.chunk"))
	if len(paths) == 0 {
		t.Fatal("no seeds")
	}
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".chunk")
		chunk, _ := os.ReadFile(p)
		meta, err := os.ReadFile(filepath.Join(seedDir, name+".zarray"))
		key := ".zarray"
		if err != nil {
			meta, _ = os.ReadFile(filepath.Join(seedDir, name+".zarr.json"))
			key = "zarr.json"
		}
		st := newMemStore(map[string][]byte{key: meta})
		src, err := OpenStore(context.Background(), st)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		a := src.levels[0]
		st.put(a.keys.key("", make([]int, len(a.shape))), chunk)
		dst := make([]byte, a.chunkBytes())
		if err := src.ReadChunk(context.Background(), 0, make([]int, len(a.shape)), dst); err != nil && !loader.IsNotStored(err) {
			t.Errorf("%s: %v", name, err)
		}
		src.Close()
	}
}
