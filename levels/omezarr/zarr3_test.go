package omezarr

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"vastview/loader"
)

// TestZarrV3FollowsSpec writes OME-NGFF 0.5 images and checks them against
// the Zarr v3 and OME-NGFF 0.5 specifications: the group and array
// zarr.json documents, chunk keys "k/c/i/j/..." within the chunk grid, the
// codec pipeline, and every sample decoded back from the chunk files.
func TestZarrV3FollowsSpec(t *testing.T) {
	cases := []v2Case{
		{"uint16_zyx_zstd", spec{axes: "ZYX", dtype: loader.Uint16, shape: []int{9, 37, 29},
			chunk: []int{4, 16, 8}, levels: 3, spacing: []float64{2, 0.5, 0.5}, origin: []float64{1, 2, 3},
			units: []string{"micrometer", "micrometer", "micrometer"}, sparse: true}, Options{Codec: "zstd", Type: "mean"}},
		{"float32_tczyx_gzip", spec{axes: "TCZYX", dtype: loader.Float32, shape: []int{2, 2, 5, 21, 19},
			chunk: []int{1, 2, 2, 8, 8}, levels: 3, units: []string{"millisecond", "", "", "", ""}},
			Options{Codec: "gzip", Level: 6, Name: "movie"}},
		{"uint8_zcyx_none", spec{axes: "ZCYX", dtype: loader.Uint8, shape: []int{5, 3, 19, 23},
			chunk: []int{2, 3, 8, 16}, levels: 2}, Options{Codec: "none", Workers: 1}},
		{"int8_tyx_tiny_chunks", spec{axes: "TYX", dtype: loader.Int8, shape: []int{3, 33, 17},
			chunk: []int{1, 4, 4}, levels: 4}, Options{Codec: "zstd", Level: 3}},
	}
	dir := t.TempDir()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := build(c.sp, uint64(100+i))
			if c.sp.sparse && emptyChunks(src, 0) == 0 {
				t.Fatal("sparse fixture without an all-zero chunk")
			}
			out := filepath.Join(dir, c.name+".ome.zarr")
			c.opts.Version = 3
			if err := Write(context.Background(), out, src, c.opts); err != nil {
				t.Fatal(err)
			}
			name := c.opts.Name
			if name == "" {
				name = c.name
			}
			checkV3Group(t, out, src.meta, name, c.opts.Type)
			for k := range src.meta.Levels {
				checkV3Array(t, out, k, src, c.opts)
			}
		})
	}
}

// checkV3Group checks the root zarr.json and that no Zarr v2 files exist.
func checkV3Group(t *testing.T, out string, m *loader.Meta, name, typ string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "zarr.json"))
	if err != nil {
		t.Fatal(err)
	}
	g := decodeJSON(t, b)
	if g["zarr_format"] != 3.0 || g["node_type"] != "group" || len(g) != 3 {
		t.Errorf("group zarr.json = %v", g)
	}
	attrs, _ := g["attributes"].(map[string]any)
	ome, _ := attrs["ome"].(map[string]any)
	if len(attrs) != 1 || ome["version"] != "0.5" || len(ome) != 2 {
		t.Fatalf("attributes = %v, want only ome with version 0.5 and multiscales", attrs)
	}
	checkMultiscales(t, ome["multiscales"], "0.5", m, name, typ)
	for _, f := range []string{".zgroup", ".zattrs", "0/.zarray"} {
		if _, err := os.Stat(filepath.Join(out, f)); err == nil {
			t.Errorf("Zarr v2 file %s in a v3 output", f)
		}
	}
}

// checkV3Array checks level k's zarr.json and chunk files.
func checkV3Array(t *testing.T, out string, k int, src *memSource, opts Options) {
	t.Helper()
	m := src.meta
	l := m.Levels[k]
	order := ngffAxes(m.Axes)
	shape, chunk := reorder(l.Shape, m.Axes, order), reorder(l.Chunk, m.Axes, order)
	b, err := os.ReadFile(filepath.Join(out, strconv.Itoa(k), "zarr.json"))
	if err != nil {
		t.Fatal(err)
	}
	bytesCodec := map[string]any{"name": "bytes", "configuration": map[string]any{"endian": "little"}}
	if m.DType.Size() == 1 {
		bytesCodec = map[string]any{"name": "bytes"}
	}
	codecs := []any{bytesCodec}
	level := float64(max(opts.Level, 1))
	switch opts.Codec {
	case "zstd":
		codecs = append(codecs, map[string]any{"name": "zstd",
			"configuration": map[string]any{"level": level, "checksum": false}})
	case "gzip":
		codecs = append(codecs, map[string]any{"name": "gzip",
			"configuration": map[string]any{"level": level}})
	}
	var names []any
	for _, a := range order {
		names = append(names, strings.ToLower(string(a)))
	}
	want := map[string]any{
		"zarr_format": 3.0, "node_type": "array", "shape": ints(shape), "data_type": m.DType.String(),
		"chunk_grid": map[string]any{"name": "regular",
			"configuration": map[string]any{"chunk_shape": ints(chunk)}},
		"chunk_key_encoding": map[string]any{"name": "default",
			"configuration": map[string]any{"separator": "/"}},
		"fill_value": 0.0, "codecs": codecs, "attributes": map[string]any{}, "dimension_names": names,
	}
	if got := decodeJSON(t, b); !reflect.DeepEqual(got, want) {
		t.Errorf("level %d zarr.json\n got %v\nwant %v", k, got, want)
	}
	data, n := readV3Chunks(t, filepath.Join(out, strconv.Itoa(k)), m.DType, shape, chunk, opts.Codec)
	if empty := emptyChunks(src, k); n+empty != count(l.Grid()) {
		t.Errorf("level %d: %d chunk files and %d all-zero chunks, want %d chunks", k, n, empty, count(l.Grid()))
	}
	ref, _ := transposed(m.DType, src.data[k], m.Axes, l.Shape, order)
	if !bytes.Equal(data, ref) {
		t.Errorf("level %d: samples differ (%s)", k, firstDiff(m.DType, data, ref))
	}
}

// readV3Chunks assembles an array from the chunk files under dir (keys
// "c/i/j/..."), and counts the chunk files, failing on any other file, a key outside the grid, or a
// chunk that does not decode to the full chunk size.
func readV3Chunks(t *testing.T, dir string, d loader.DType, shape, chunk []int, codec string) ([]byte, int) {
	t.Helper()
	es := d.Size()
	csize := count(chunk) * es
	out := make([]byte, count(shape)*es)
	files := 0
	grid := make([]int, len(shape))
	for i := range grid {
		grid[i] = (shape[i] + chunk[i] - 1) / chunk[i]
	}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if rel == "zarr.json" {
			return nil
		}
		if len(parts) != len(shape)+1 || parts[0] != "c" {
			t.Fatalf("unexpected file %s", rel)
		}
		idx := make([]int, len(shape))
		for i, s := range parts[1:] {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 || n >= grid[i] {
				t.Fatalf("chunk key %s outside the grid %v", rel, grid)
			}
			idx[i] = n
		}
		raw := decodeChunk(t, p, codec, csize)
		files++
		forEach(chunk, func(q []int) {
			off := 0
			for i := range q {
				g := idx[i]*chunk[i] + q[i]
				if g >= shape[i] {
					return
				}
				off = off*shape[i] + g
			}
			co := 0
			for i := range q {
				co = co*chunk[i] + q[i]
			}
			copy(out[off*es:(off+1)*es], raw[co*es:(co+1)*es])
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, files
}

// emptyChunks counts the chunks of level k whose samples are all zero.
func emptyChunks(src *memSource, k int) int {
	l := src.meta.Levels[k]
	buf := make([]byte, l.ChunkBytes(src.meta.DType))
	n := 0
	forEach(l.Grid(), func(idx []int) {
		if err := src.ReadChunk(context.Background(), k, idx, buf); err != nil {
			panic(err)
		}
		if bytes.Count(buf, []byte{0}) == len(buf) {
			n++
		}
	})
	return n
}

// decodeChunk reads and decodes one chunk file. Zstd frames must state
// their content size.
func decodeChunk(t *testing.T, p, codec string, size int) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var raw []byte
	switch codec {
	case "zstd":
		var h zstd.Header
		if err := h.Decode(b); err != nil || !h.HasFCS || h.FrameContentSize != uint64(size) {
			t.Fatalf("%s: zstd header %+v (%v), want content size %d", p, h, err, size)
		}
		dec, _ := zstd.NewReader(nil)
		defer dec.Close()
		raw, err = dec.DecodeAll(b, nil)
	case "gzip":
		var r *gzip.Reader
		if r, err = gzip.NewReader(bytes.NewReader(b)); err == nil {
			raw, err = io.ReadAll(r)
		}
	default:
		raw = b
	}
	if err != nil || len(raw) != size {
		t.Fatalf("%s: %d bytes decoded (%v), want %d", p, len(raw), err, size)
	}
	return raw
}
