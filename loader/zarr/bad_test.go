package zarr

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/loader"
	"vastview/loader/zarr/store"
)

const (
	zarray2 = `{"zarr_format": 2, "shape": [10, 20], "chunks": [5, 20], "dtype": "<u2",
		"compressor": null, "fill_value": 0, "order": "C", "filters": null}`
	ngffDoc = `{"multiscales": [{"version": "0.4", "axes": [{"name": "y", "type": "space"}, {"name": "x", "type": "space"}],
		"datasets": [{"path": "0", "coordinateTransformations": [{"type": "scale", "scale": [1, 1]}]},
		             {"path": "1", "coordinateTransformations": [{"type": "scale", "scale": [2, 2]}]}]}]}`
	array3 = `{"zarr_format": 3, "node_type": "array", "shape": [10, 20], "data_type": "uint16",
		"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [5, 20]}},
		"chunk_key_encoding": {"name": "default"}, "fill_value": 0,
		"codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}`
)

// withField replaces or adds one field of a JSON object document.
func withField(doc, field, value string) string {
	var m map[string]any
	if err := jsonUnmarshal(doc, &m); err != nil {
		panic(err)
	}
	var v any
	if err := jsonUnmarshal(value, &v); err != nil {
		panic(err)
	}
	m[field] = v
	return jsonMarshal(m)
}

// TestBadStores opens broken or unsupported stores: each gives one clear
// error of the right kind naming what is wrong, never a panic.
func TestBadStores(t *testing.T) {
	cases := []struct {
		name    string
		files   map[string]string
		unsup   bool     // an UnsupportedError rather than a FormatError
		inRead  bool     // opening works, reading chunk 0 fails
		message []string // parts of the message
	}{
		{name: "invalid JSON", files: map[string]string{".zarray": `{"zarr_format": 2, "shape": [10,`},
			message: []string{"zarr: .zarray: invalid JSON"}},
		{name: "wrong JSON type", files: map[string]string{".zarray": withField(zarray2, "shape", `"big"`)},
			message: []string{".zarray", `"shape"`, "a list"}},
		{name: "invalid group JSON", files: map[string]string{".zattrs": `{"multiscales": [}`, "0/.zarray": zarray2},
			message: []string{".zattrs: invalid JSON"}},
		{name: "no metadata", files: map[string]string{"0.0": "x"}, message: []string{"no Zarr metadata"}},
		{name: "group without image", files: map[string]string{".zgroup": `{"zarr_format": 2}`},
			message: []string{".zgroup", "without .zattrs"}},
		{name: "a level larger than level 0", files: map[string]string{".zattrs": ngffDoc, "0/.zarray": zarray2,
			"1/.zarray": withField(zarray2, "shape", "[100000, 100000]")},
			message: []string{"level 1", "must shrink"}},
		{name: "a level larger than its scale allows", files: map[string]string{".zattrs": ngffDoc, "0/.zarray": zarray2,
			"1/.zarray": withField(zarray2, "shape", "[10, 20]")},
			message: []string{"level 1", "must shrink"}},
		{name: "missing dataset", files: map[string]string{".zattrs": ngffDoc, "0/.zarray": zarray2},
			message: []string{"1/.zarray: missing", `dataset "1"`}},
		{name: "levels of different types", files: map[string]string{".zattrs": ngffDoc, "0/.zarray": zarray2,
			"1/.zarray": withField(zarray2, "dtype", `"<f4"`)}, message: []string{"level 1", "float32", "uint16"}},
		{name: "axes not ending in yx", files: map[string]string{".zattrs": `{"multiscales": [{"axes": [{"name": "x", "type": "space"}, {"name": "y", "type": "space"}],
			"datasets": [{"path": "0"}]}]}`, "0/.zarray": zarray2}, unsup: true, message: []string{"x,y"}},
		{name: "axis count", files: map[string]string{".zattrs": `{"multiscales": [{"axes": ["z", "y", "x"], "datasets": [{"path": "0"}]}]}`,
			"0/.zarray": zarray2}, message: []string{"3 axes for a 2-dimensional array"}},
		{name: "bad scale", files: map[string]string{".zattrs": `{"multiscales": [{"axes": ["y", "x"],
			"datasets": [{"path": "0", "coordinateTransformations": [{"type": "scale", "scale": [0, 1]}]}]}]}`,
			"0/.zarray": zarray2}, message: []string{`dataset "0"`, "not a positive number"}},
		{name: "dataset path escapes", files: map[string]string{".zattrs": `{"multiscales": [{"datasets": [{"path": "../x"}]}]}`},
			message: []string{`"../x"`, "not a relative path"}},
		{name: "unknown v2 compressor", files: map[string]string{".zarray": withField(zarray2, "compressor", `{"id": "snappy9"}`)},
			unsup: true, message: []string{"snappy9"}},
		{name: "filters", files: map[string]string{".zarray": withField(zarray2, "filters", `[{"id": "delta", "dtype": "<u2"}]`)},
			unsup: true, message: []string{`filter "delta"`}},
		{name: "datetime", files: map[string]string{".zarray": withField(zarray2, "dtype", `"<M8[ns]"`)},
			unsup: true, message: []string{`dtype "<M8[ns]"`}},
		{name: "complex", files: map[string]string{".zarray": withField(zarray2, "dtype", `"<c8"`)},
			unsup: true, message: []string{`"<c8"`}},
		{name: "structured", files: map[string]string{".zarray": withField(zarray2, "dtype", `[["a", "<u2"], ["b", "<f4"]]`)},
			unsup: true, message: []string{"structured dtype"}},
		{name: "v3 complex", files: map[string]string{"zarr.json": withField(array3, "data_type", `"complex128"`)},
			unsup: true, message: []string{`"complex128"`}},
		{name: "v3 unknown codec", files: map[string]string{"zarr.json": withField(array3, "codecs",
			`[{"name": "bytes"}, {"name": "fancy"}]`)}, unsup: true, message: []string{"fancy"}},
		{name: "v3 no bytes codec", files: map[string]string{"zarr.json": withField(array3, "codecs", `[]`)},
			message: []string{"no array-to-bytes codec"}},
		{name: "v3 nested sharding", files: map[string]string{"zarr.json": withField(array3, "codecs",
			`[{"name": "sharding_indexed", "configuration": {"chunk_shape": [5, 10], "index_codecs": [{"name": "bytes"}],
			"codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [5, 5], "index_codecs": [{"name": "bytes"}]}}]}}]`)},
			unsup: true, message: []string{"nested sharding"}},
		{name: "v3 inner chunk not dividing", files: map[string]string{"zarr.json": withField(array3, "codecs",
			`[{"name": "sharding_indexed", "configuration": {"chunk_shape": [2, 20], "index_codecs": [{"name": "bytes"}]}}]`)},
			message: []string{"does not divide"}},
		{name: "v3 storage transformer", files: map[string]string{"zarr.json": withField(array3, "storage_transformers", `[{"name": "x"}]`)},
			unsup: true, message: []string{"storage transformers"}},
		{name: "v3 bad transpose", files: map[string]string{"zarr.json": withField(array3, "codecs",
			`[{"name": "transpose", "configuration": {"order": [0, 0]}}, {"name": "bytes"}]`)},
			message: []string{"not a permutation"}},
		{name: "plate", files: map[string]string{".zattrs": `{"plate": {"rows": []}}`}, unsup: true, message: []string{"plate"}},
		{name: "negative shape", files: map[string]string{".zarray": withField(zarray2, "shape", `[-10, 20]`)},
			message: []string{"length -10"}},
		{name: "huge chunk", files: map[string]string{".zarray": withField(withField(zarray2, "chunks", `[65536, 65536]`), "shape", `[65536, 65536]`)},
			message: []string{"more than 2 GiB"}},
		{name: "fill value out of range", files: map[string]string{".zarray": withField(zarray2, "fill_value", `70000`)},
			message: []string{"fill_value 70000", "uint16"}},
		{name: "zarr format", files: map[string]string{".zarray": withField(zarray2, "zarr_format", `3`)},
			message: []string{"zarr_format is not 2"}},
		{name: "chunk of wrong size", files: map[string]string{".zarray": zarray2, "0.0": "0123456789"},
			inRead: true, message: []string{"chunk 0.0 decodes to 10 bytes, expected 200"}},
		{name: "corrupt compressed chunk", files: map[string]string{".zarray": withField(zarray2, "compressor", `{"id": "zlib", "level": 1}`),
			"0.0": "not zlib at all"}, inRead: true, message: []string{"chunk 0.0", "zlib"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := map[string][]byte{}
			for k, v := range c.files {
				files[k] = []byte(v)
			}
			src, err := OpenStore(context.Background(), newMemStore(files))
			if c.inRead {
				if err != nil {
					t.Fatal(err)
				}
				defer src.Close()
				l := src.Meta().Levels[0]
				err = src.ReadChunk(context.Background(), 0, make([]int, len(l.Shape)), make([]byte, l.ChunkBytes(src.Meta().DType)))
			} else if err == nil {
				src.Close()
			}
			t.Log(err)
			wantError(t, err, c.message...)
			if c.unsup && !isUnsupported(err) || !c.unsup && !isFormat(err) {
				t.Errorf("error %v (%T): wrong kind", err, err)
			}
		})
	}
}

// TestBadShards reads damaged shards: a truncated index, a checksum
// mismatch, an index pointing beyond the shard.
func TestBadShards(t *testing.T) {
	a := &v3Array{dtype: loader.Uint16, shape: []int{16, 16}, chunk: []int{16, 16}, inner: []int{8, 8}, fill: 0,
		codecs: []map[string]any{shardingCodec([]int{8, 8}, "end",
			[]map[string]any{bytesCodec("little")},
			[]map[string]any{bytesCodec("little"), named("crc32c")})}, seed: 5}
	const indexBytes = 4*16 + 4
	cases := []struct {
		name    string
		damage  func(b []byte) []byte
		message []string
	}{
		{"truncated index", func(b []byte) []byte { return b[:40] }, []string{"shard c/0/0", "shorter than its 68-byte index"}},
		{"checksum", func(b []byte) []byte { b[len(b)-10] ^= 1; return b }, []string{"shard c/0/0", "crc32c", "checksum"}},
		{"offset beyond the end", func(b []byte) []byte {
			n := len(b) - indexBytes
			b[n+5] = 0x10 // chunk 0's offset now far beyond the end
			fixCRC(b[n:])
			return b
		}, []string{"chunk c/0/0 inner 0", "beyond the shard's end"}},
		{"chunk size", func(b []byte) []byte {
			n := len(b) - indexBytes
			b[n+8]-- // chunk 0 one byte shorter
			fixCRC(b[n:])
			return b
		}, []string{"chunk c/0/0 inner 0 decodes to 127 bytes, expected 128"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			a.write(t, dir)
			p := filepath.Join(dir, "c", "0", "0")
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, c.damage(b), 0o644); err != nil {
				t.Fatal(err)
			}
			src := open(t, dir)
			defer src.Close()
			err = src.ReadChunk(context.Background(), 0, []int{0, 0}, make([]byte, 128))
			t.Log(err)
			wantError(t, err, c.message...)
			if !isFormat(err) {
				t.Errorf("error %v (%T) is not a FormatError", err, err)
			}
		})
	}
}

// TestReadChunkRejects checks argument validation and cancellation.
func TestReadChunkRejects(t *testing.T) {
	src, err := OpenStore(context.Background(), newMemStore(map[string][]byte{".zarray": []byte(zarray2)}))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ctx := context.Background()
	buf := make([]byte, 200)
	for _, c := range []struct {
		level int
		idx   []int
		n     int
	}{{1, []int{0, 0}, 200}, {-1, []int{0, 0}, 200}, {0, []int{0}, 200}, {0, []int{2, 0}, 200},
		{0, []int{0, 1}, 200}, {0, []int{-1, 0}, 200}, {0, []int{0, 0}, 199}} {
		if err := src.ReadChunk(ctx, c.level, c.idx, buf[:c.n]); err == nil {
			t.Errorf("level %d chunk %v with %d bytes: no error", c.level, c.idx, c.n)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := src.ReadChunk(cctx, 0, []int{0, 0}, buf); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled read: %v", err)
	}
}

// fixCRC rewrites the CRC-32C that ends an encoded shard index.
func fixCRC(index []byte) {
	n := len(index) - 4
	binary.LittleEndian.PutUint32(index[n:], crc32.Checksum(index[:n], crc32.MakeTable(crc32.Castagnoli)))
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

func jsonMarshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestNetworkErrors passes a server's failure through, naming the key
// once, rather than taking it for a missing chunk.
func TestNetworkErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/img.zarr/.zarray":
			w.Write([]byte(zarray2))
		case "/img.zarr/0.0":
			http.Error(w, "disk on fire", http.StatusInternalServerError)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	st, err := store.NewHTTP(srv.URL+"/img.zarr", store.HTTPOptions{Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	src, err := OpenStore(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	buf := make([]byte, 200)
	err = src.ReadChunk(context.Background(), 0, []int{0, 0}, buf)
	if err == nil || loader.IsNotStored(err) || isFormat(err) {
		t.Fatalf("server error read as %v", err)
	}
	wantError(t, err, "zarr: ", "0.0", "500")
	if n := strings.Count(err.Error(), "/0.0"); n != 1 {
		t.Errorf("key named %d times: %v", n, err)
	}
	if err := src.ReadChunk(context.Background(), 0, []int{1, 0}, buf); !loader.IsNotStored(err) {
		t.Errorf("404: %v, want ErrNotStored", err)
	}
}

// TestWrongAddressIsNotFound opens an address where the server has
// nothing: the error says not found, and is fs.ErrNotExist.
func TestWrongAddressIsNotFound(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	_, err := Open(context.Background(), srv.URL+"/typo.ome.zarr")
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "not found") {
		t.Errorf("a wrong address: %v", err)
	}
}
