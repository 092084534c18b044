package zarr

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"

	"vastview/base/nd"
	"vastview/loader"
)

// This file builds Zarr v3 arrays by hand, following the Zarr v3
// specification in the encoding direction: codecs applied in list order,
// the sharding_indexed binary layout, chunk key encodings.

// v3Array is one array to write.
type v3Array struct {
	dir    string               // the array's folder under the root, "" for the root
	dtype  loader.DType         // uint8, int16, uint16, float32 or uint64
	shape  []int                // array shape
	chunk  []int                // chunk grid: the chunk, or the shard shape
	inner  []int                // inner chunk shape when sharded
	codecs []map[string]any     // the zarr.json codec list
	keys   map[string]any       // chunk_key_encoding; nil: default "/"
	fill   any                  // fill_value JSON
	names  []any                // dimension_names, or nil
	empty  func(idx []int) bool // read units not stored (chunks, or inner chunks)
	seed   uint64
}

// value is the sample at pos of the array with the given seed.
func value(seed uint64, pos []int) uint64 {
	h := seed*0x9E3779B97F4A7C15 + 1
	for _, p := range pos {
		h ^= uint64(p) + 0x632BE59BD9B4E019 + h<<6 + h>>2
		h *= 0xff51afd7ed558ccd
	}
	return h ^ h>>29
}

// putSample stores v as a little-endian sample of dt (floats: a finite
// value derived from v).
func putSample(b []byte, dt loader.DType, v uint64) {
	switch dt.Size() {
	case 1:
		b[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case 4:
		if dt == loader.Float32 {
			f := float32(int32(v>>40)) / 256
			binary.LittleEndian.PutUint32(b, math.Float32bits(f))
			return
		}
		binary.LittleEndian.PutUint32(b, uint32(v))
	case 8:
		binary.LittleEndian.PutUint64(b, v) // every bit: ids far above 2^53
	}
}

// unit returns the samples of read unit idx (C order over unitShape),
// with junk beyond the array's edge as writers may leave there.
func (a *v3Array) unit(idx, unitShape []int) []byte {
	es := a.dtype.Size()
	n := 1
	for _, c := range unitShape {
		n *= c
	}
	b := make([]byte, n*es)
	pos := make([]int, len(unitShape))
	local := make([]int, len(unitShape))
	for i := 0; i < n; i++ {
		inside := true
		for k := range local {
			pos[k] = idx[k]*unitShape[k] + local[k]
			inside = inside && pos[k] < a.shape[k]
		}
		if inside {
			putSample(b[i*es:], a.dtype, value(a.seed, pos))
		} else {
			for j := range es {
				b[i*es+j] = 0xA5
			}
		}
		nd.Next(local, unitShape)
	}
	return b
}

// expected is the whole array as the reader must present it: generated
// samples, and the fill value (fill, one sample) in units not stored.
func (a *v3Array) expected(unitShape []int, fill []byte) []byte {
	es := a.dtype.Size()
	n := 1
	for _, s := range a.shape {
		n *= s
	}
	b := make([]byte, n*es)
	pos := make([]int, len(a.shape))
	idx := make([]int, len(a.shape))
	for i := 0; i < n; i++ {
		for k := range pos {
			idx[k] = pos[k] / unitShape[k]
		}
		if a.empty != nil && a.empty(idx) {
			copy(b[i*es:], fill)
		} else {
			putSample(b[i*es:], a.dtype, value(a.seed, pos))
		}
		nd.Next(pos, a.shape)
	}
	return b
}

// encode applies a codec list (not sharding) to a unit of the given shape.
func encode(t testing.TB, codecs []map[string]any, data []byte, shape []int, es int) []byte {
	t.Helper()
	for _, c := range codecs {
		conf, _ := c["configuration"].(map[string]any)
		switch c["name"] {
		case "transpose":
			perm := append([]int(nil), conf["order"].([]int)...)
			data, shape = transposeEncode(data, shape, perm, es)
		case "bytes":
			if conf != nil && conf["endian"] == "big" {
				data = bytes.Clone(data)
				loader.SwapBytes(data, es)
			}
		case "gzip":
			var buf bytes.Buffer
			w := gzip.NewWriter(&buf)
			w.Write(data)
			w.Close()
			data = buf.Bytes()
		case "zstd":
			enc, _ := zstd.NewWriter(nil)
			data = enc.EncodeAll(data, nil)
			enc.Close()
		case "crc32c":
			data = binary.LittleEndian.AppendUint32(bytes.Clone(data), crc32.Checksum(data, crc32.MakeTable(crc32.Castagnoli)))
		default:
			t.Fatalf("test encoder has no codec %v", c["name"])
		}
	}
	return data
}

// transposeEncode permutes the axes of a C-order array: axis i of the
// result is axis perm[i] of the input.
func transposeEncode(data []byte, shape, perm []int, es int) ([]byte, []int) {
	n := len(shape)
	eshape := make([]int, n)
	for i, p := range perm {
		eshape[i] = shape[p]
	}
	stride := make([]int, n)
	stride[n-1] = 1
	for i := n - 2; i >= 0; i-- {
		stride[i] = stride[i+1] * shape[i+1]
	}
	out := make([]byte, len(data))
	e := make([]int, n)
	for o := 0; o < len(data)/es; o++ {
		src := 0
		for i, p := range perm {
			src += e[i] * stride[p]
		}
		copy(out[o*es:(o+1)*es], data[src*es:(src+1)*es])
		nd.Next(e, eshape)
	}
	return out, eshape
}

// write stores the array's zarr.json and chunks (or shards) under root.
func (a *v3Array) write(t testing.TB, root string) {
	t.Helper()
	dir := filepath.Join(root, filepath.FromSlash(a.dir))
	codecs := a.codecs
	var shardConf map[string]any
	if len(codecs) == 1 && codecs[0]["name"] == "sharding_indexed" {
		shardConf = codecs[0]["configuration"].(map[string]any)
	}
	meta := map[string]any{
		"zarr_format": 3, "node_type": "array", "shape": a.shape,
		"data_type":  a.dtype.String(),
		"chunk_grid": map[string]any{"name": "regular", "configuration": map[string]any{"chunk_shape": a.chunk}},
		"fill_value": a.fill, "codecs": codecs, "attributes": map[string]any{},
	}
	if a.keys != nil {
		meta["chunk_key_encoding"] = a.keys
	} else {
		meta["chunk_key_encoding"] = map[string]any{"name": "default", "configuration": map[string]any{"separator": "/"}}
	}
	if a.names != nil {
		meta["dimension_names"] = a.names
	}
	writeJSON(t, filepath.Join(dir, "zarr.json"), meta)
	grid := gridOf(a.shape, a.chunk)
	idx := make([]int, len(grid))
	for more := true; more; more = nd.Next(idx, grid) {
		var data []byte
		if shardConf != nil {
			data = a.shard(t, idx, shardConf)
		} else if a.empty == nil || !a.empty(idx) {
			data = encode(t, codecs, a.unit(idx, a.chunk), a.chunk, a.dtype.Size())
		}
		if data != nil {
			writeFile(t, filepath.Join(dir, filepath.FromSlash(keyOf(a.keys, idx))), data)
		}
	}
}

// shard encodes the shard at idx, or returns nil when all its inner
// chunks are empty.
func (a *v3Array) shard(t testing.TB, idx []int, conf map[string]any) []byte {
	inner := a.inner
	per := make([]int, len(inner))
	for i := range per {
		per[i] = a.chunk[i] / inner[i]
	}
	innerCodecs := conf["codecs"].([]map[string]any)
	indexCodecs := conf["index_codecs"].([]map[string]any)
	atStart := conf["index_location"] == "start"
	count := 1
	for _, p := range per {
		count *= p
	}
	indexSize := 16 * count
	for _, c := range indexCodecs {
		if c["name"] == "crc32c" {
			indexSize += 4
		}
	}
	var body []byte
	index := make([]byte, 16*count)
	off := 0
	if atStart {
		off = indexSize
	}
	local := make([]int, len(per))
	gidx := make([]int, len(per))
	stored := 0
	for s := 0; s < count; s++ {
		outside := false
		for k := range local {
			gidx[k] = idx[k]*per[k] + local[k]
			outside = outside || gidx[k]*inner[k] >= a.shape[k]
		}
		if outside || (a.empty != nil && a.empty(gidx)) {
			binary.LittleEndian.PutUint64(index[16*s:], ^uint64(0))
			binary.LittleEndian.PutUint64(index[16*s+8:], ^uint64(0))
		} else {
			c := encode(t, innerCodecs, a.unit(gidx, inner), inner, a.dtype.Size())
			binary.LittleEndian.PutUint64(index[16*s:], uint64(off+len(body)))
			binary.LittleEndian.PutUint64(index[16*s+8:], uint64(len(c)))
			body = append(body, c...)
			stored++
		}
		nd.Next(local, per)
	}
	if stored == 0 {
		return nil
	}
	enc := encode(t, indexCodecs, index, []int{count, 2}, 8)
	if len(enc) != indexSize {
		t.Fatalf("index encodes to %d bytes, want %d", len(enc), indexSize)
	}
	if atStart {
		return append(enc, body...)
	}
	return append(body, enc...)
}

// keyOf is the chunk key of idx under a chunk_key_encoding (nil: default
// with "/").
func keyOf(enc map[string]any, idx []int) string {
	name, sep := "default", "/"
	if enc != nil {
		name = enc["name"].(string)
		sep = "."
		if name == "default" {
			sep = "/"
		}
		if c, ok := enc["configuration"].(map[string]any); ok {
			sep = c["separator"].(string)
		}
	}
	var parts []string
	if name == "default" {
		parts = append(parts, "c")
	}
	for _, v := range idx {
		parts = append(parts, itoa(v))
	}
	return joinStrings(parts, sep)
}

func joinStrings(p []string, sep string) string {
	var b bytes.Buffer
	for i, s := range p {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(s)
	}
	return b.String()
}

func gridOf(shape, chunk []int) []int {
	g := make([]int, len(shape))
	for i := range g {
		g[i] = (shape[i] + chunk[i] - 1) / chunk[i]
	}
	return g
}

func writeJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, b)
}

func writeFile(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
