package zarr

import (
	"context"
	"encoding/binary"
	"math"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"vastview/base/nd"
	"vastview/loader"
)

func bytesCodec(endian string) map[string]any {
	return map[string]any{"name": "bytes", "configuration": map[string]any{"endian": endian}}
}

func named(name string) map[string]any { return map[string]any{"name": name} }

func transposeCodec(order ...int) map[string]any {
	return map[string]any{"name": "transpose", "configuration": map[string]any{"order": order}}
}

func shardingCodec(inner []int, at string, codecs, index []map[string]any) map[string]any {
	return map[string]any{"name": "sharding_indexed", "configuration": map[string]any{
		"chunk_shape": inner, "codecs": codecs, "index_codecs": index, "index_location": at}}
}

// v3Image is a hand-built OME-NGFF 0.5 image or plain v3 array.
type v3Image struct {
	name   string
	group  bool // an OME-NGFF 0.5 group with the arrays as levels
	arrays []*v3Array
	axes   string
	fill   []byte // the fill value as one little-endian sample
}

// v3Images are the hand-built fixtures.
func v3Images() []*v3Image {
	u16 := func(v uint16) []byte { return binary.LittleEndian.AppendUint16(nil, v) }
	codecs := &v3Image{name: "codecs.ome.zarr", group: true, axes: "ZYX", fill: u16(1234), arrays: []*v3Array{
		{dir: "0", shape: []int{5, 37, 45}, chunk: []int{2, 16, 32},
			codecs: []map[string]any{bytesCodec("big"), named("gzip")},
			empty:  func(i []int) bool { return i[0] == 1 && i[1] == 1 && i[2] == 0 }},
		{dir: "1", shape: []int{5, 19, 23}, chunk: []int{2, 8, 8},
			codecs: []map[string]any{transposeCodec(2, 0, 1), bytesCodec("little"), named("zstd")},
			keys:   map[string]any{"name": "v2"}},
		{dir: "2", shape: []int{5, 10, 12}, chunk: []int{3, 4, 5},
			codecs: []map[string]any{bytesCodec("little"), named("crc32c")},
			keys:   map[string]any{"name": "default", "configuration": map[string]any{"separator": "."}}},
		{dir: "3", shape: []int{5, 5, 6}, chunk: []int{5, 5, 6},
			codecs: []map[string]any{transposeCodec(1, 0, 2), transposeCodec(2, 0, 1), bytesCodec("big")},
			keys:   map[string]any{"name": "v2", "configuration": map[string]any{"separator": "/"}}},
	}}
	for _, a := range codecs.arrays {
		a.dtype, a.fill = loader.Uint16, 1234
	}
	sharded := &v3Image{name: "sharded.ome.zarr", group: true, axes: "ZYX", fill: u16(0), arrays: []*v3Array{
		{dir: "0", shape: []int{5, 37, 45}, chunk: []int{2, 16, 32}, inner: []int{1, 8, 16},
			codecs: []map[string]any{shardingCodec([]int{1, 8, 16}, "end",
				[]map[string]any{bytesCodec("little"), named("zstd")},
				[]map[string]any{bytesCodec("little"), named("crc32c")})},
			empty: func(i []int) bool { return (i[0]+i[1]+i[2])%5 == 0 || (i[0] == 4 && i[1] < 2 && i[2] < 2) }},
		{dir: "1", shape: []int{5, 19, 23}, chunk: []int{4, 16, 16}, inner: []int{2, 8, 8},
			codecs: []map[string]any{shardingCodec([]int{2, 8, 8}, "start",
				[]map[string]any{transposeCodec(1, 2, 0), bytesCodec("big"), named("crc32c")},
				[]map[string]any{bytesCodec("big")})},
			empty: func(i []int) bool { return i[1] == 1 && i[2] == 2 }},
	}}
	for _, a := range sharded.arrays {
		a.dtype, a.fill = loader.Uint16, 0
	}
	f32 := &v3Image{name: "f32_plain.zarr", axes: "ZYX", fill: binary.LittleEndian.AppendUint32(nil, 0x3fc00000),
		arrays: []*v3Array{{dtype: loader.Float32, shape: []int{3, 20, 30}, chunk: []int{1, 8, 8},
			codecs: []map[string]any{bytesCodec("little"), named("gzip")}, fill: "0x3fc00000",
			names: []any{"z", "y", "x"}, empty: func(i []int) bool { return i[0] == 1 && i[1] == 1 && i[2] == 1 }}}}
	i16 := &v3Image{name: "i16_cyx.zarr", axes: "CYX", fill: binary.LittleEndian.AppendUint16(nil, uint16(0xffff-4)),
		arrays: []*v3Array{{dtype: loader.Int16, shape: []int{2, 17, 19}, chunk: []int{1, 8, 8},
			codecs: []map[string]any{bytesCodec("little")}, fill: -5,
			names: []any{"C", "y", "x"}, empty: func(i []int) bool { return i[0] == 0 && i[1] == 2 && i[2] == 2 }}}}
	u8 := &v3Image{name: "u8_other_names.zarr", axes: "CZYX", fill: []byte{0},
		arrays: []*v3Array{{dtype: loader.Uint8, shape: []int{2, 3, 10, 12}, chunk: []int{1, 2, 8, 8},
			codecs: []map[string]any{named("bytes")}, fill: 0, names: []any{"a", nil, "y", "x"}}}}
	u64 := &v3Image{name: "u64_sharded.zarr", axes: "ZYX", fill: binary.LittleEndian.AppendUint64(nil, 1<<60+3),
		arrays: []*v3Array{{dtype: loader.Uint64, shape: []int{3, 19, 21}, chunk: []int{2, 16, 16}, inner: []int{1, 8, 8},
			codecs: []map[string]any{shardingCodec([]int{1, 8, 8}, "end",
				[]map[string]any{bytesCodec("big"), named("zstd")}, []map[string]any{bytesCodec("little")})},
			fill: uint64(1<<60 + 3), names: []any{"z", "y", "x"},
			empty: func(i []int) bool { return (i[0]+i[1]+i[2])%3 == 0 }}}}
	imgs := []*v3Image{codecs, sharded, f32, i16, u8, u64}
	for i, img := range imgs {
		for k, a := range img.arrays {
			a.seed = uint64(100*i + k)
		}
	}
	return imgs
}

// writeV3 writes img under root and returns its folder.
func (img *v3Image) write(t testing.TB, root string) string {
	t.Helper()
	dir := filepath.Join(root, img.name)
	for _, a := range img.arrays {
		a.write(t, dir)
	}
	if img.group {
		var ds []any
		for k := range img.arrays {
			ds = append(ds, map[string]any{"path": strconv.Itoa(k), "coordinateTransformations": []any{
				map[string]any{"type": "scale", "scale": img.scale(k)},
				map[string]any{"type": "translation", "translation": img.trans(k)},
			}})
		}
		writeJSON(t, filepath.Join(dir, "zarr.json"), map[string]any{
			"zarr_format": 3, "node_type": "group",
			"attributes": map[string]any{"ome": map[string]any{
				"version": "0.5",
				"multiscales": []any{map[string]any{"name": img.name, "datasets": ds,
					"axes": []any{
						map[string]any{"name": "z", "type": "space", "unit": "micrometer"},
						map[string]any{"name": "y", "type": "space", "unit": "micrometer"},
						map[string]any{"name": "x", "type": "space", "unit": "micrometer"},
					}}},
				"omero": map[string]any{"channels": []any{map[string]any{"label": "only", "color": "FFA500",
					"window": map[string]any{"start": 100, "end": 5000}}}},
			}},
		})
	}
	return dir
}

func (img *v3Image) scale(k int) []float64 {
	f := math.Pow(2, float64(k))
	return []float64{2, 0.5 * f, 0.5 * f}
}

func (img *v3Image) trans(k int) []float64 {
	f := math.Pow(2, float64(k))
	return []float64{-1, 10 + (f-1)/4, 20 + (f-1)/4}
}

// TestZarrV3ByHand reads hand-built Zarr v3 arrays and OME-NGFF 0.5
// images (every codec combination the reader supports, sharding with the
// index at either end, chunk key encodings, fill values, missing chunks)
// from a folder and over HTTP.
func TestZarrV3ByHand(t *testing.T) {
	root := t.TempDir()
	imgs := v3Images()
	for _, img := range imgs {
		img.write(t, root)
	}
	base := fileServer(t, root)
	for _, img := range imgs {
		for _, where := range []string{"folder", "http"} {
			t.Run(img.name+"/"+where, func(t *testing.T) {
				loc := filepath.Join(root, img.name)
				if where == "http" {
					loc = base + "/" + img.name
				}
				src, err := loader.Open(context.Background(), loc)
				if err != nil {
					t.Fatal(err)
				}
				defer src.Close()
				checkV3Image(t, src, img)
			})
		}
	}
}

func checkV3Image(t *testing.T, src loader.Source, img *v3Image) {
	t.Helper()
	m := src.Meta()
	a0 := img.arrays[0]
	format := "zarr"
	if img.group {
		format = "ome-zarr"
	}
	if m.Format != format || m.Axes != img.axes || m.DType != a0.dtype || !reflect.DeepEqual(m.Shape, a0.shape) {
		t.Errorf("format %q axes %q dtype %v shape %v, want %q %q %v %v", m.Format, m.Axes, m.DType, m.Shape, format, img.axes, a0.dtype, a0.shape)
	}
	if len(m.Levels) != len(img.arrays) {
		t.Fatalf("%d levels, want %d", len(m.Levels), len(img.arrays))
	}
	if img.group {
		if want := []string{"micrometer", "micrometer", "micrometer"}; !reflect.DeepEqual(m.Units, want) {
			t.Errorf("units %v", m.Units)
		}
		want := []loader.Channel{{Label: "only", Color: [3]uint8{255, 165, 0}, HasColor: true, Lo: 100, Hi: 5000, HasWindow: true}}
		if !reflect.DeepEqual(m.Channels, want) {
			t.Errorf("channels %+v, want %+v", m.Channels, want)
		}
	}
	for k, a := range img.arrays {
		l := m.Levels[k]
		unit := a.chunk
		if a.inner != nil {
			unit = a.inner
		}
		if !reflect.DeepEqual(l.Shape, a.shape) || !reflect.DeepEqual(l.Chunk, unit) {
			t.Errorf("level %d: shape %v chunk %v, want %v %v", k, l.Shape, l.Chunk, a.shape, unit)
		}
		if img.group && (!close(l.Scale, img.scale(k)) || !close(l.Translation, img.trans(k))) {
			t.Errorf("level %d: scale %v translation %v, want %v %v", k, l.Scale, l.Translation, img.scale(k), img.trans(k))
		}
		got, missing := readLevel(t, src, k)
		sameSamples(t, "level "+strconv.Itoa(k), got, a.expected(unit, img.fill), m.DType, a.shape)
		if want := countEmpty(a, unit); missing != want {
			t.Errorf("level %d: %d units not stored, want %d", k, missing, want)
		}
	}
}

// countEmpty counts the read units of a that are not stored.
func countEmpty(a *v3Array, unit []int) int {
	if a.empty == nil {
		return 0
	}
	grid := gridOf(a.shape, unit)
	idx := make([]int, len(grid))
	n := 0
	for more := true; more; more = nd.Next(idx, grid) {
		if a.empty(idx) {
			n++
		}
	}
	return n
}
