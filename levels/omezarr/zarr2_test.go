package omezarr

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// zarrScript reads each OME-Zarr folder in argv[1:] with zarr and dask: for
// every dataset listed in its multiscales metadata it dumps the array read
// by dask.array.from_zarr to PATH.K.raw (little-endian, C order) and prints
// its shape, dtype, Zarr chunks and compressor, with the group attributes.
const zarrScript = `
import sys, json, numpy as np, zarr, dask.array as da
res = {}
for path in sys.argv[1:]:
    g = zarr.open_group(path, mode='r')
    attrs = g.attrs.asdict()
    levels = []
    for k, ds in enumerate(attrs['multiscales'][0]['datasets']):
        a = np.asarray(da.from_zarr(path, component=ds['path']).compute())
        open('%s.%d.raw' % (path, k), 'wb').write(a.astype(a.dtype.newbyteorder('<')).tobytes())
        z = g[ds['path']]
        comp = z.compressor.get_config() if z.compressor is not None else None
        levels.append({'shape': list(a.shape), 'dtype': a.dtype.name, 'chunks': list(z.chunks), 'compressor': comp})
    res[path] = {'attrs': attrs, 'levels': levels}
json.dump(res, sys.stdout)
`

// zarrRead is what zarr and dask read from one output.
type zarrRead struct {
	Attrs  map[string]any `json:"attrs"`
	Levels []struct {
		Shape      []int          `json:"shape"`
		DType      string         `json:"dtype"`
		Chunks     []int          `json:"chunks"`
		Compressor map[string]any `json:"compressor"`
	} `json:"levels"`
}

// readWithZarr runs zarrScript over paths.
func readWithZarr(t *testing.T, paths ...string) map[string]zarrRead {
	t.Helper()
	testtool.RequirePython(t, "zarr", "dask.array", "numcodecs", "numpy")
	out := testtool.RunPython(t, zarrScript, paths...)
	var res map[string]zarrRead
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return res
}

// v2Case is one image written as OME-NGFF 0.4.
type v2Case struct {
	name string
	sp   spec
	opts Options
}

func v2Cases() []v2Case {
	geoms := []spec{
		{axes: "ZYX", shape: []int{13, 37, 29}, chunk: []int{4, 16, 8}, levels: 3,
			spacing: []float64{2, 0.5, 0.5}, origin: []float64{10, -3, 1.5},
			units: []string{"micrometer", "micrometer", "micrometer"}},
		{axes: "TCZYX", shape: []int{2, 3, 5, 21, 19}, chunk: []int{1, 1, 2, 8, 8}, levels: 3,
			spacing: []float64{0.25, 1, 3, 0.1, 0.1},
			units:   []string{"second", "", "nanometer", "nanometer", "nanometer"}},
		{axes: "CYX", shape: []int{2, 45, 33}, chunk: []int{1, 16, 16}, levels: 3,
			units: []string{"", "pixel", "millimeter"}},
	}
	var cs []v2Case
	i := 0
	for _, dt := range []loader.DType{loader.Uint8, loader.Uint16, loader.Float32} {
		for _, codec := range []string{"zstd", "gzip", "none"} {
			sp := geoms[i%len(geoms)]
			sp.dtype = dt
			sp.sparse = i == 1
			cs = append(cs, v2Case{fmt.Sprintf("%s_%s_%s", dt, codec, sp.axes), sp,
				Options{Codec: codec, Workers: 1 + i%3}})
			i++
		}
	}
	extra := []v2Case{
		{"int16_zcyx_transposed", spec{axes: "ZCYX", dtype: loader.Int16, shape: []int{7, 2, 19, 23},
			chunk: []int{3, 2, 8, 16}, levels: 3, units: []string{"micrometer", "", "micrometer", "micrometer"}},
			Options{Codec: "zstd", Level: 5, Type: "mean"}},
		{"float64_tzcyx_transposed", spec{axes: "TZCYX", dtype: loader.Float64, shape: []int{3, 4, 2, 9, 11},
			chunk: []int{2, 3, 2, 4, 4}, levels: 3, spacing: []float64{2, 1, 1, 0.5, 0.5},
			units: []string{"minute", "micrometer", "", "micrometer", "micrometer"}},
			Options{Codec: "gzip", Level: 9, Name: "hyper"}},
		{"int8_tyx_4levels", spec{axes: "TYX", dtype: loader.Int8, shape: []int{3, 67, 41},
			chunk: []int{2, 8, 8}, levels: 4}, Options{Codec: "zstd", Level: 19}},
		{"uint32_yx_chunk_larger", spec{axes: "YX", dtype: loader.Uint32, shape: []int{5, 70},
			chunk: []int{8, 32}, levels: 3}, Options{Codec: "none"}},
		{"int32_zyx_single", spec{axes: "ZYX", dtype: loader.Int32, shape: []int{3, 10, 12},
			chunk: []int{3, 10, 12}, levels: 1}, Options{Codec: "gzip"}},
	}
	return append(cs, extra...)
}

// TestZarrV2ReadByZarrAndDask writes OME-NGFF 0.4 images of several types,
// codecs, axis orders and odd shapes, and checks that zarr and dask read
// every level with the source's shape, type and samples, and that the
// metadata follows OME-NGFF 0.4.
func TestZarrV2ReadByZarrAndDask(t *testing.T) {
	dir := t.TempDir()
	cases := v2Cases()
	var paths []string
	srcs := map[string]*memSource{}
	for i, c := range cases {
		src := build(c.sp, uint64(i+1))
		p := filepath.Join(dir, c.name+".ome.zarr")
		if err := Write(context.Background(), p, src, c.opts); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		paths = append(paths, p)
		srcs[p] = src
	}
	res := readWithZarr(t, paths...)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := paths[i]
			src, r := srcs[p], res[p]
			m := src.meta
			name := c.opts.Name
			if name == "" {
				name = c.name
			}
			checkMultiscales(t, r.Attrs["multiscales"], "0.4", m, name, c.opts.Type)
			if len(r.Levels) != len(m.Levels) {
				t.Fatalf("%d levels read, want %d", len(r.Levels), len(m.Levels))
			}
			order := ngffAxes(m.Axes)
			for k, l := range m.Levels {
				got := r.Levels[k]
				want, shape := transposed(m.DType, src.data[k], m.Axes, l.Shape, order)
				if got.DType != m.DType.String() || !reflect.DeepEqual(got.Shape, shape) {
					t.Fatalf("level %d: %s %v, want %s %v", k, got.DType, got.Shape, m.DType, shape)
				}
				if chunks := reorder(l.Chunk, m.Axes, order); !reflect.DeepEqual(got.Chunks, chunks) {
					t.Errorf("level %d: chunks %v, want %v", k, got.Chunks, chunks)
				}
				checkCompressor(t, got.Compressor, c.opts)
				data, err := os.ReadFile(fmt.Sprintf("%s.%d.raw", p, k))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(data, want) {
					t.Errorf("level %d: samples differ (%s)", k, firstDiff(m.DType, data, want))
				}
			}
		})
	}
}

// checkCompressor checks the numcodecs configuration zarr read.
func checkCompressor(t *testing.T, got map[string]any, opts Options) {
	t.Helper()
	level := opts.Level
	if level == 0 {
		level = 1
	}
	switch opts.Codec {
	case "none":
		if got != nil {
			t.Errorf("compressor %v, want none", got)
		}
	case "", "zstd", "gzip":
		id := opts.Codec
		if id == "" {
			id = "zstd"
		}
		if got["id"] != id || got["level"] != float64(level) {
			t.Errorf("compressor %v, want %s level %d", got, id, level)
		}
	}
}

// firstDiff describes the first differing sample.
func firstDiff(d loader.DType, got, want []byte) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d bytes, want %d", len(got), len(want))
	}
	for i := 0; i < len(want)/d.Size(); i++ {
		if g, w := get(d, got, i), get(d, want, i); g != w {
			return fmt.Sprintf("sample %d = %v, want %v", i, g, w)
		}
	}
	return "same"
}
