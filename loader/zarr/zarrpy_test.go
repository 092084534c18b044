package zarr

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// zarrPyFixtures writes, for every spec in the JSON argv[2], a Zarr v2
// array or OME-NGFF 0.4 image under argv[1] with python-zarr (dask for
// the specs that ask for it), removes the chunk files listed in "drop",
// then reads every level back through zarr and dumps it as little-endian
// raw bytes (NAME.K.raw, labels as NAME.labels.K.raw). It prints the level
// shapes as JSON.
const zarrPyFixtures = `
import sys, json, os
import numpy as np, zarr, numcodecs, dask.array as da

out, specs = sys.argv[1], json.loads(sys.argv[2])
rng = np.random.default_rng(11)

def data(shape, dt):
    dt = np.dtype(dt)
    if dt.kind in 'ui':
        i = np.iinfo(dt)
        return rng.integers(i.min, i.max, shape, dtype=dt.newbyteorder('='), endpoint=True).astype(dt)
    return (rng.standard_normal(shape) * 1000).astype(dt)

def reduce(a, f, method):
    if method == 'dask':
        d = da.from_array(a, chunks=64)
        axes = {i: k for i, k in enumerate(f) if k > 1}
        return np.asarray(da.coarsen(np.mean, d, axes, trim_excess=True).astype(a.dtype))
    return a[tuple(slice(None, None, k) for k in f)]

def kwargs(s):
    kw = dict(chunks=s['chunks'], dtype=s['dtype'], order=s.get('order', 'C'), fill_value=s.get('fill', 0))
    kw['compressor'] = numcodecs.get_codec(dict(s['compressor'])) if s.get('compressor') else None
    if s.get('sep'):
        kw['dimension_separator'] = s['sep']
    return kw

def pyramid(s, shape):
    levels = [data(shape, s['dtype'])]
    for k in range(1, s['levels']):
        levels.append(reduce(levels[-1], s['factors'], s.get('method')))
    return levels

def write_image(path, s, levels):
    g = zarr.open_group(path, mode='w')
    for k, a in enumerate(levels):
        if s.get('method') == 'dask':
            z = g.create_dataset(str(k), shape=a.shape, **kwargs(s))
            da.from_array(a, chunks=tuple(s['chunks'])).to_zarr(z)
        else:
            g.create_dataset(str(k), data=a, **kwargs(s))
    ms = {'version': s['version'], 'name': s['name'],
          'datasets': [{'path': str(k)} for k in range(len(levels))]}
    if s.get('axes'):
        ms['axes'] = s['axes']
    for k, tr in enumerate(s.get('transforms') or []):
        ms['datasets'][k]['coordinateTransformations'] = tr
    if s.get('ms_transforms'):
        ms['coordinateTransformations'] = s['ms_transforms']
    g.attrs['multiscales'] = [ms]
    if s.get('omero'):
        g.attrs['omero'] = s['omero']
    return g

shapes = {}
for s in specs:
    path = os.path.join(out, s['name'])
    levels = pyramid(s, s['shape'])
    if s.get('plain'):
        z = zarr.open(path, mode='w', shape=s['shape'], **kwargs(s))
        z[...] = levels[0]
    else:
        write_image(path, s, levels)
    lab = s.get('labels')
    if lab:
        lg = zarr.open_group(os.path.join(path, 'labels'), mode='w')
        lg.attrs['labels'] = [lab['name']]
        ls = dict(s, dtype=lab['dtype'], compressor=None, method='stride', name=lab['name'])
        cells = np.repeat(np.repeat(rng.integers(0, lab['values'], (s['shape'][0] // 4 + 1, s['shape'][1] // 4 + 1)), 4, 0), 4, 1)
        cells = cells[:s['shape'][0], :s['shape'][1]].astype(lab['dtype'])
        if lab.get('base'):  # ids far above 2^53, one apart: exact only if read as integers
            cells = np.where(cells > 0, cells + np.array(lab['base'], dtype=lab['dtype']), cells).astype(lab['dtype'])
        llevels = [cells]
        for k in range(1, s['levels']):
            llevels.append(reduce(llevels[-1], s['factors'], 'stride'))
        lgi = write_image(os.path.join(path, 'labels', lab['name']), ls, llevels)
        lgi.attrs['image-label'] = {'version': s['version'], 'colors': lab['colors'], 'source': {'image': '../../'}}
    for key in s.get('drop') or []:
        os.remove(os.path.join(path, key))
    shapes[s['name']] = []
    def dump(zpath, n, prefix):
        for k in range(n):
            z = zarr.open(zpath if s.get('plain') else os.path.join(zpath, str(k)), mode='r')
            a = z[...]
            a.astype(a.dtype.newbyteorder('<')).tofile(os.path.join(out, prefix + '.%d.raw' % k))
            if prefix == s['name']:
                shapes[s['name']].append(list(a.shape))
    dump(path, 1 if s.get('plain') else len(levels), s['name'])
    if lab:
        dump(os.path.join(path, 'labels', lab['name']), s['levels'], s['name'] + '.labels')
print(json.dumps(shapes))
`

// pySpec is one fixture of zarrPyFixtures.
type pySpec struct {
	Name         string             `json:"name"`
	Version      string             `json:"version,omitempty"`
	Plain        bool               `json:"plain,omitempty"`
	Axes         []any              `json:"axes,omitempty"`
	Shape        []int              `json:"shape"`
	DType        string             `json:"dtype"`
	Chunks       []int              `json:"chunks"`
	Levels       int                `json:"levels"`
	Factors      []int              `json:"factors,omitempty"`
	Method       string             `json:"method,omitempty"`
	Compressor   map[string]any     `json:"compressor,omitempty"`
	Sep          string             `json:"sep,omitempty"`
	Order        string             `json:"order,omitempty"`
	Fill         any                `json:"fill,omitempty"`
	Drop         []string           `json:"drop,omitempty"`
	Transforms   [][]map[string]any `json:"transforms,omitempty"`
	MSTransforms []map[string]any   `json:"ms_transforms,omitempty"`
	Omero        map[string]any     `json:"omero,omitempty"`
	Labels       *pyLabels          `json:"labels,omitempty"`

	// What the reader must make of it.
	wantAxes     string
	wantUnits    []string
	wantDType    loader.DType
	wantScale    func(k int) []float64 // nil: unit scale, zero translation
	wantTrans    func(k int) []float64
	wantChannels []loader.Channel
	wantMode     string
	wantMissing  int // chunks of level 0 not stored
}

// pyLabels asks for a label image under labels/NAME.
type pyLabels struct {
	Name   string           `json:"name"`
	DType  string           `json:"dtype"`
	Values int              `json:"values"`
	Base   uint64           `json:"base,omitempty"`
	Colors []map[string]any `json:"colors"`
}

// ngffAxes builds an OME-NGFF 0.4 axes list for letters with units.
func ngffAxes(letters string, units ...string) []any {
	var out []any
	for i, l := range letters {
		a := map[string]any{"name": string(l + 'a' - 'A')}
		switch l {
		case 'T':
			a["type"] = "time"
		case 'C':
			a["type"] = "channel"
		default:
			a["type"] = "space"
		}
		if i < len(units) && units[i] != "" {
			a["unit"] = units[i]
		}
		out = append(out, a)
	}
	return out
}

// pyramidTransforms gives per-level scale and translation for levels made
// by block means of factors f: scale0*f^k, and translation0 shifted by
// (f^k-1)/2 samples of level 0.
func pyramidTransforms(levels int, scale0, trans0 []float64, f []int) (tr [][]map[string]any, scale, trans func(k int) []float64) {
	scale = func(k int) []float64 {
		s := make([]float64, len(scale0))
		for i := range s {
			s[i] = scale0[i] * math.Pow(float64(f[i]), float64(k))
		}
		return s
	}
	trans = func(k int) []float64 {
		t := make([]float64, len(scale0))
		for i := range t {
			t[i] = trans0[i] + (math.Pow(float64(f[i]), float64(k))-1)/2*scale0[i]
		}
		return t
	}
	for k := range levels {
		tr = append(tr, []map[string]any{
			{"type": "scale", "scale": scale(k)},
			{"type": "translation", "translation": trans(k)},
		})
	}
	return tr, scale, trans
}

func blosc(cname string, shuffle int) map[string]any {
	return map[string]any{"id": "blosc", "cname": cname, "clevel": 5, "shuffle": shuffle, "blocksize": 0}
}

// pySpecs are the python-zarr fixtures.
func pySpecs() []*pySpec {
	var specs []*pySpec

	// CZYX uint16, Blosc lz4 with byte shuffle, "/" keys, levels by dask
	// coarsen, a multiscale-level scale on top of the datasets', omero.
	a := &pySpec{Name: "czyx_u16_blosc.ome.zarr", Version: "0.4",
		Axes:  ngffAxes("CZYX", "", "micrometer", "micrometer", "micrometer"),
		Shape: []int{3, 37, 101, 77}, DType: "<u2", Chunks: []int{1, 8, 32, 32}, Levels: 3,
		Factors: []int{1, 1, 2, 2}, Method: "dask", Compressor: blosc("lz4", 1), Sep: "/",
		MSTransforms: []map[string]any{{"type": "scale", "scale": []float64{1, 0.5, 1, 1}}},
		Omero: map[string]any{"channels": []any{
			map[string]any{"label": "DAPI", "color": "0000FF", "window": map[string]any{"start": 10, "end": 3000, "min": 0, "max": 65535}, "active": true},
			map[string]any{"label": "GFP", "color": "00ff00", "window": map[string]any{"start": 0, "end": 40000}, "active": false},
			map[string]any{"label": "mCherry", "color": "FF00FF"},
		}, "rdefs": map[string]any{"defaultT": 0, "defaultZ": 18, "model": "greyscale"}},
		wantAxes: "CZYX", wantUnits: []string{"", "micrometer", "micrometer", "micrometer"}, wantDType: loader.Uint16,
		wantChannels: []loader.Channel{
			{Label: "DAPI", Color: [3]uint8{0, 0, 255}, HasColor: true, Lo: 10, Hi: 3000, HasWindow: true},
			{Label: "GFP", Color: [3]uint8{0, 255, 0}, HasColor: true, Lo: 0, Hi: 40000, HasWindow: true, Hidden: true},
			{Label: "mCherry", Color: [3]uint8{255, 0, 255}, HasColor: true},
		}, wantMode: loader.ChannelsGray}
	var sc, tr func(int) []float64
	a.Transforms, sc, tr = pyramidTransforms(3, []float64{1, 2, 0.5, 0.5}, []float64{0, 1, 3, -2}, a.Factors)
	a.wantScale = func(k int) []float64 { s := sc(k); s[1] *= 0.5; return s }
	a.wantTrans = func(k int) []float64 { t := tr(k); t[1] *= 0.5; return t }
	specs = append(specs, a)

	// TCZYX float32, zstd, "." keys, levels written by zarr.
	b := &pySpec{Name: "tczyx_f32_zstd.ome.zarr", Version: "0.4",
		Axes:  ngffAxes("TCZYX", "second", "", "nanometer", "nanometer", "nanometer"),
		Shape: []int{1, 2, 5, 33, 40}, DType: "<f4", Chunks: []int{1, 1, 2, 16, 16}, Levels: 2,
		Factors: []int{1, 1, 1, 2, 2}, Method: "stride", Compressor: map[string]any{"id": "zstd", "level": 3}, Sep: ".",
		// omero as OMERO writes it ("color" model), with parts of the wrong
		// JSON type that are left out: the image still opens.
		Omero: map[string]any{"id": 1, "channels": []any{
			map[string]any{"label": 7, "color": []int{1}, "window": map[string]any{"start": "low", "end": 2}, "active": "no"},
			map[string]any{"label": "Cy5", "color": "FFFFFF", "window": map[string]any{"start": -1.5, "end": 2.25, "min": -10, "max": 10},
				"active": false, "family": "linear", "coefficient": 1, "inverted": false},
		}, "rdefs": map[string]any{"model": "color"}},
		wantAxes: "TCZYX", wantUnits: []string{"second", "", "nanometer", "nanometer", "nanometer"}, wantDType: loader.Float32,
		wantChannels: []loader.Channel{
			{},
			{Label: "Cy5", Color: [3]uint8{255, 255, 255}, HasColor: true, Lo: -1.5, Hi: 2.25, HasWindow: true, Hidden: true},
		}, wantMode: loader.ChannelsComposite}
	b.Transforms, b.wantScale, b.wantTrans = pyramidTransforms(2, []float64{2.5, 1, 300, 100, 100}, []float64{0, 0, 0, 0, 0}, b.Factors)
	specs = append(specs, b)

	// YX uint8, zlib, default separator (no dimension_separator key).
	c := &pySpec{Name: "yx_u8_zlib.ome.zarr", Version: "0.4", Axes: ngffAxes("YX"),
		Shape: []int{50, 70}, DType: "|u1", Chunks: []int{16, 32}, Levels: 2, Factors: []int{2, 2}, Method: "stride",
		Compressor: map[string]any{"id": "zlib", "level": 1},
		wantAxes:   "YX", wantUnits: []string{"", ""}, wantDType: loader.Uint8}
	c.Transforms, c.wantScale, c.wantTrans = pyramidTransforms(2, []float64{1, 1}, []float64{0, 0}, c.Factors)
	specs = append(specs, c)

	// ZYX int16 in Fortran order, uncompressed.
	d := &pySpec{Name: "zyx_i16_f_order.ome.zarr", Version: "0.4", Axes: ngffAxes("ZYX"),
		Shape: []int{7, 19, 23}, DType: "<i2", Chunks: []int{3, 8, 8}, Levels: 1, Factors: []int{1, 1, 1},
		Order: "F", Sep: "/", wantAxes: "ZYX", wantUnits: []string{"", "", ""}, wantDType: loader.Int16}
	d.Transforms, d.wantScale, d.wantTrans = pyramidTransforms(1, []float64{1, 1, 1}, []float64{0, 0, 0}, d.Factors)
	specs = append(specs, d)

	// Big-endian uint16, Blosc zstd with bit shuffle.
	e := &pySpec{Name: "zyx_be_u2.ome.zarr", Version: "0.4", Axes: ngffAxes("ZYX"),
		Shape: []int{5, 30, 29}, DType: ">u2", Chunks: []int{2, 16, 16}, Levels: 2, Factors: []int{1, 2, 2},
		Method: "stride", Compressor: blosc("zstd", 2),
		wantAxes: "ZYX", wantUnits: []string{"", "", ""}, wantDType: loader.Uint16}
	e.Transforms, e.wantScale, e.wantTrans = pyramidTransforms(2, []float64{1, 1, 1}, []float64{0, 0, 0}, e.Factors)
	specs = append(specs, e)

	// A plain array with fill value 7 and two chunks not stored.
	f := &pySpec{Name: "plain_u16_fill.zarr", Plain: true, Shape: []int{40, 50}, DType: "<u2",
		Chunks: []int{16, 16}, Levels: 1, Compressor: map[string]any{"id": "zlib", "level": 1},
		Fill: 7, Drop: []string{"0.1", "2.3"}, wantAxes: "YX", wantDType: loader.Uint16, wantMissing: 2}
	specs = append(specs, f)

	// float64 with fill NaN and a chunk missing; big-endian, Blosc blosclz.
	g := &pySpec{Name: "zyx_f8_nan.ome.zarr", Version: "0.4", Axes: ngffAxes("ZYX"),
		Shape: []int{3, 20, 21}, DType: ">f8", Chunks: []int{2, 8, 8}, Levels: 1, Factors: []int{1, 1, 1},
		Compressor: blosc("blosclz", 1), Fill: "NaN", Sep: "/", Drop: []string{"0/1/1/2"},
		wantAxes: "ZYX", wantUnits: []string{"", "", ""}, wantDType: loader.Float64, wantMissing: 1}
	g.Transforms, g.wantScale, g.wantTrans = pyramidTransforms(1, []float64{1, 1, 1}, []float64{0, 0, 0}, g.Factors)
	specs = append(specs, g)

	// An image with a label image of uint32 cells.
	h := &pySpec{Name: "with_labels.ome.zarr", Version: "0.4", Axes: ngffAxes("YX", "micrometer", "micrometer"),
		Shape: []int{45, 38}, DType: "|u1", Chunks: []int{16, 16}, Levels: 2, Factors: []int{2, 2}, Method: "stride",
		Compressor: map[string]any{"id": "lz4", "acceleration": 1},
		Labels: &pyLabels{Name: "cells", DType: "<u4", Values: 7, Colors: []map[string]any{
			{"label-value": 1, "rgba": []int{255, 0, 0, 255}},
			{"label-value": 5, "rgba": []int{0, 128, 255, 128}},
		}},
		wantAxes: "YX", wantUnits: []string{"micrometer", "micrometer"}, wantDType: loader.Uint8}
	h.Transforms, h.wantScale, h.wantTrans = pyramidTransforms(2, []float64{0.25, 0.25}, []float64{0, 0}, h.Factors)
	specs = append(specs, h)

	// 64-bit integers: big-endian int64 over their whole range, Blosc;
	// uint64 labels one apart above 2^60, beside a uint16 image.
	i8 := &pySpec{Name: "zyx_be_i8.ome.zarr", Version: "0.4", Axes: ngffAxes("ZYX"),
		Shape: []int{3, 21, 30}, DType: ">i8", Chunks: []int{2, 8, 16}, Levels: 2, Factors: []int{1, 2, 2},
		Method: "stride", Compressor: blosc("lz4", 1),
		wantAxes: "ZYX", wantUnits: []string{"", "", ""}, wantDType: loader.Int64}
	i8.Transforms, i8.wantScale, i8.wantTrans = pyramidTransforms(2, []float64{1, 1, 1}, []float64{0, 0, 0}, i8.Factors)
	specs = append(specs, i8)
	u8 := &pySpec{Name: "with_u8_labels.ome.zarr", Version: "0.4", Axes: ngffAxes("YX"),
		Shape: []int{33, 27}, DType: "<u2", Chunks: []int{16, 16}, Levels: 2, Factors: []int{2, 2}, Method: "stride",
		Labels: &pyLabels{Name: "cells", DType: "<u8", Values: 7, Base: 1<<60 + 1, Colors: []map[string]any{
			{"label-value": 1, "rgba": []int{255, 0, 0, 255}},
			{"label-value": 5, "rgba": []int{0, 128, 255, 128}},
		}},
		wantAxes: "YX", wantUnits: []string{"", ""}, wantDType: loader.Uint16}
	u8.Transforms, u8.wantScale, u8.wantTrans = pyramidTransforms(2, []float64{1, 1}, []float64{0, 0}, u8.Factors)
	specs = append(specs, u8)
	// A plain uint64 array whose fill value float64 cannot hold, a chunk
	// not stored.
	pf := &pySpec{Name: "plain_u8_fill.zarr", Plain: true, Shape: []int{20, 24}, DType: "<u8",
		Chunks: []int{8, 8}, Levels: 1, Compressor: map[string]any{"id": "zstd", "level": 1},
		Fill: uint64(1<<63 + 1), Drop: []string{"1.2"}, wantAxes: "YX", wantDType: loader.Uint64, wantMissing: 1}
	specs = append(specs, pf)

	// OME-NGFF 0.3: axes as names, no transformations.
	v := &pySpec{Name: "v03.ome.zarr", Version: "0.3", Axes: []any{"z", "y", "x"},
		Shape: []int{4, 20, 30}, DType: "|i1", Chunks: []int{2, 16, 16}, Levels: 2, Factors: []int{1, 2, 2},
		Method: "stride", Compressor: map[string]any{"id": "gzip", "level": 1},
		wantAxes: "ZYX", wantUnits: []string{"", "", ""}, wantDType: loader.Int8,
		wantScale: func(k int) []float64 { return []float64{1, float64(int(1) << k), float64(int(1) << k)} },
		wantTrans: func(k int) []float64 { f := float64(int(1)<<k-1) / 2; return []float64{0, f, f} }}
	specs = append(specs, v)
	return specs
}

// pyFixtures writes the python-zarr fixtures once per test binary run.
func pyFixtures(t *testing.T) (string, []*pySpec, map[string][][]int) {
	t.Helper()
	testtool.RequirePython(t, "zarr", "numcodecs", "dask", "numpy")
	dir := t.TempDir()
	specs := pySpecs()
	js, err := json.Marshal(specs)
	if err != nil {
		t.Fatal(err)
	}
	out := testtool.RunPython(t, zarrPyFixtures, dir, string(js))
	var shapes map[string][][]int
	if err := json.Unmarshal(out, &shapes); err != nil {
		t.Fatalf("python output %q: %v", out, err)
	}
	return dir, specs, shapes
}

// TestPythonZarr reads every python-zarr fixture from a folder and over
// HTTP and compares metadata and every sample of every level with what
// zarr itself reads back.
func TestPythonZarr(t *testing.T) {
	dir, specs, shapes := pyFixtures(t)
	base := fileServer(t, dir)
	for _, sp := range specs {
		for _, where := range []string{"folder", "http"} {
			t.Run(sp.Name+"/"+where, func(t *testing.T) {
				loc := filepath.Join(dir, sp.Name)
				if where == "http" {
					loc = base + "/" + sp.Name
				}
				src, err := loader.Open(context.Background(), loc)
				if err != nil {
					t.Fatal(err)
				}
				defer src.Close()
				checkPyMeta(t, src.Meta(), sp, shapes[sp.Name])
				checkPyData(t, src, filepath.Join(dir, sp.Name), sp.wantMissing)
				if sp.Labels != nil {
					checkPyLabels(t, loc, filepath.Join(dir, sp.Name), sp)
				}
			})
		}
	}
}

// checkPyLabels opens a fixture's label image, both by its own path and
// through the labels group, and checks it is presented as labels with the
// palette of its image-label colours.
func checkPyLabels(t *testing.T, loc, path string, sp *pySpec) {
	for _, sub := range []string{"/labels/" + sp.Labels.Name, "/labels"} {
		src, err := loader.Open(context.Background(), loc+sub)
		if err != nil {
			t.Fatalf("%s: %v", sub, err)
		}
		m := src.Meta()
		st, err := dtypeV2(json.RawMessage(strconv.Quote(sp.Labels.DType)))
		if err != nil {
			t.Fatal(err)
		}
		if !m.Label || m.Format != "ome-zarr" || m.DType != st.dt || m.Axes != sp.wantAxes {
			t.Errorf("%s: label %v format %q dtype %v axes %q", sub, m.Label, m.Format, m.DType, m.Axes)
		}
		want := make([][3]uint16, 6)
		want[1] = [3]uint16{0xffff, 0, 0}
		want[5] = [3]uint16{0, 0x8080, 0xffff}
		if !reflect.DeepEqual(m.Palette, want) {
			t.Errorf("%s: palette %v, want %v", sub, m.Palette, want)
		}
		for k, l := range m.Levels {
			got, _ := readLevel(t, src, k)
			want, err := os.ReadFile(path + ".labels." + itoa(k) + ".raw")
			if err != nil {
				t.Fatal(err)
			}
			sameSamples(t, sub+" level "+itoa(k), got, want, m.DType, l.Shape)
		}
		src.Close()
	}
}

// checkPyMeta compares the reader's metadata with the fixture's.
func checkPyMeta(t *testing.T, m *loader.Meta, sp *pySpec, shapes [][]int) {
	t.Helper()
	format := "ome-zarr"
	if sp.Plain {
		format = "zarr"
	}
	if m.Format != format || m.Axes != sp.wantAxes || m.DType != sp.wantDType {
		t.Errorf("format %q axes %q dtype %v, want %q %q %v", m.Format, m.Axes, m.DType, format, sp.wantAxes, sp.wantDType)
	}
	units := sp.wantUnits
	if units == nil {
		units = make([]string, len(sp.Shape))
	}
	if !reflect.DeepEqual(m.Units, units) {
		t.Errorf("units %q, want %q", m.Units, units)
	}
	if len(m.Levels) != len(shapes) {
		t.Fatalf("%d levels, want %d", len(m.Levels), len(shapes))
	}
	if !reflect.DeepEqual(m.Shape, sp.Shape) {
		t.Errorf("shape %v, want %v", m.Shape, sp.Shape)
	}
	for k, l := range m.Levels {
		if !reflect.DeepEqual(l.Shape, shapes[k]) || !reflect.DeepEqual(l.Chunk, sp.Chunks) {
			t.Errorf("level %d: shape %v chunk %v, want %v %v", k, l.Shape, l.Chunk, shapes[k], sp.Chunks)
		}
		scale, trans := ones(len(sp.Shape)), make([]float64, len(sp.Shape))
		if sp.wantScale != nil {
			scale, trans = sp.wantScale(k), sp.wantTrans(k)
		}
		if !close(l.Scale, scale) || !close(l.Translation, trans) {
			t.Errorf("level %d: scale %v translation %v, want %v %v", k, l.Scale, l.Translation, scale, trans)
		}
	}
	if !close(m.Spacing, m.Levels[0].Scale) {
		t.Errorf("spacing %v is not level 0's scale %v", m.Spacing, m.Levels[0].Scale)
	}
	if !reflect.DeepEqual(m.Channels, sp.wantChannels) {
		t.Errorf("channels %+v, want %+v", m.Channels, sp.wantChannels)
	}
	if m.ChannelMode != sp.wantMode {
		t.Errorf("channel mode %q, want %q", m.ChannelMode, sp.wantMode)
	}
	if m.Label || m.Palette != nil {
		t.Errorf("an image taken for labels: label %v palette %v", m.Label, m.Palette)
	}
}

// checkPyData compares every level with zarr's own reading of it.
func checkPyData(t *testing.T, src loader.Source, path string, wantMissing int) {
	t.Helper()
	m := src.Meta()
	for k, l := range m.Levels {
		got, missing := readLevel(t, src, k)
		want, err := os.ReadFile(path + "." + itoa(k) + ".raw")
		if err != nil {
			t.Fatal(err)
		}
		sameSamples(t, "level "+itoa(k), got, want, m.DType, l.Shape)
		if k == 0 && missing != wantMissing {
			t.Errorf("level 0: %d chunks not stored, want %d", missing, wantMissing)
		}
	}
}

func ones(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

// close reports whether two vectors agree to rounding.
func close(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-9*math.Max(1, math.Abs(b[i])) {
			return false
		}
	}
	return true
}

func itoa(i int) string { return strconv.Itoa(i) }
