package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// TestFromV2 checks the compressor objects of Zarr v2 metadata.
func TestFromV2(t *testing.T) {
	for _, s := range []string{"", "null", " null\n"} {
		if k, err := FromV2(json.RawMessage(s)); k != nil || err != nil {
			t.Errorf("FromV2(%q) = %v, %v; want no codec", s, k, err)
		}
	}
	for id, name := range map[string]string{"blosc": "blosc", "zlib": "zlib", "gzip": "gzip", "zstd": "zstd", "lz4": "lz4", "bz2": "bz2"} {
		k, err := FromV2(json.RawMessage(`{"id": "` + id + `", "level": 1}`))
		if err != nil || k == nil || k.Name() != name {
			t.Errorf("FromV2(%s) = %v, %v", id, k, err)
		}
	}
	if k, err := FromV2(json.RawMessage(`{"id": "lzma", "format": 1, "preset": 1}`)); err != nil || k.Name() != "lzma" {
		t.Errorf("lzma: %v, %v", k, err)
	}
	_, err := FromV2(json.RawMessage(`{"id": "lzma", "format": 2}`))
	var ue *loader.UnsupportedError
	if !errors.As(err, &ue) || ue.Format != "zarr" || !strings.Contains(ue.Feature, "lzma codec of format 2") {
		t.Errorf("lzma format 2: %#v, want an UnsupportedError", err)
	}
	for s, want := range map[string]string{
		`[1, 2]`:           "compressor is not a JSON object",
		`{"level": 1}`:     `compressor has no "id"`,
		`{"id": 5}`:        "compressor: cannot unmarshal",
		`{"id": "zlib"`:    "compressor: unexpected end of JSON input",
		`"blosc"`:          "compressor is not a JSON object",
		`{"id": "snappy"}`: `unsupported codec "snappy"`,
	} {
		_, err := FromV2(json.RawMessage(s))
		wantErr(t, s, err, want)
	}
}

// TestFromV3 checks the bytes->bytes codec entries of Zarr v3 metadata.
func TestFromV3(t *testing.T) {
	for _, c := range []struct{ name, config, want string }{
		{"gzip", `{"level": 5}`, "gzip"},
		{"zstd", `{"level": 0, "checksum": false}`, "zstd"},
		{"crc32c", ``, "crc32c"},
		{"crc32c", `{}`, "crc32c"},
		{"blosc", `{"cname": "lz4", "clevel": 5, "shuffle": "bitshuffle", "typesize": 2, "blocksize": 0}`, "blosc"},
		{"blosc", `{"cname": "zstd", "clevel": 1, "shuffle": "noshuffle", "blocksize": 0}`, "blosc"},
		{"numcodecs.lz4", `{"acceleration": 1}`, "lz4"},
		{"numcodecs.zlib", `{"level": 1}`, "zlib"},
		{"numcodecs.bz2", `{"level": 1}`, "bz2"},
		{"numcodecs.lzma", `{}`, "lzma"},
	} {
		k, err := FromV3(c.name, json.RawMessage(c.config))
		if err != nil || k == nil || k.Name() != c.want {
			t.Errorf("FromV3(%s, %s) = %v, %v", c.name, c.config, k, err)
		}
	}
	for _, c := range []struct{ name, config, want string }{
		{"blosc", `{"cname": "lz5", "shuffle": "shuffle"}`, `blosc codec: unknown cname "lz5"`},
		{"blosc", `{"cname": "lz4", "shuffle": 1}`, "blosc codec: cannot unmarshal number"},
		{"blosc", `{"cname": "lz4", "shuffle": "byteshuffle"}`, `blosc codec: unknown shuffle "byteshuffle"`},
		{"blosc", `{"cname": "lz4", "clevel": 12}`, "blosc codec: clevel 12 is outside 0..9"},
		{"blosc", `{"typesize": -1}`, "blosc codec: typesize -1 is outside"},
		{"gzip", `[1]`, `codec "gzip": configuration is not a JSON object`},
		{"sharding_indexed", `{}`, `unsupported codec "sharding_indexed"`},
		{"numcodecs.delta", `{}`, `unsupported codec "numcodecs.delta"`},
	} {
		_, err := FromV3(c.name, json.RawMessage(c.config))
		wantErr(t, c.name+" "+c.config, err, c.want)
	}
}

// zarrPy writes Zarr v2 arrays with zarr-python, one per compressor, into
// sys.argv[1] and prints each array's folder and the bytes of its chunk 0.0.
const zarrPy = `
import json, os, sys
import numpy as np, zarr, numcodecs
from numcodecs import Blosc, Zstd, GZip, Zlib, LZ4, BZ2, LZMA
root = sys.argv[1]
y, x = np.mgrid[0:300, 0:200]
data = ((x * 37 + y * 11) % 4096 + (x * y) % 7).astype("<u2")
out = []
for i, comp in enumerate([None, "default", Blosc("zstd", 3, Blosc.BITSHUFFLE), Zstd(5), GZip(6), Zlib(3), LZ4(), BZ2(5), LZMA(preset=1)]):
    path = os.path.join(root, "a%d.zarr" % i)
    kw = {} if comp == "default" else {"compressor": comp}
    z = zarr.open(path, mode="w", shape=data.shape, chunks=(128, 96), dtype="<u2", **kw)
    z[:] = data
    chunk = os.path.join(root, "c%d.raw" % i)
    with open(chunk, "wb") as f:
        f.write(data[:128, :96].tobytes())
    out.append({"zarr": path, "chunk": chunk})
json.dump(out, sys.stdout)
`

// TestZarrV2 reads chunk 0.0 of arrays written by zarr-python 2 with each
// compressor, parsing the compressor from .zarray as the Zarr reader does.
func TestZarrV2(t *testing.T) {
	testtool.RequirePython(t, "zarr", "numcodecs", "numpy")
	var arrays []struct{ Zarr, Chunk string }
	if err := json.Unmarshal(testtool.RunPython(t, zarrPy, t.TempDir()), &arrays); err != nil {
		t.Fatal(err)
	}
	for _, a := range arrays {
		meta, err := os.ReadFile(filepath.Join(a.Zarr, ".zarray"))
		if err != nil {
			t.Fatal(err)
		}
		var zarray struct {
			Compressor json.RawMessage `json:"compressor"`
		}
		if err := json.Unmarshal(meta, &zarray); err != nil {
			t.Fatal(err)
		}
		stored, err := os.ReadFile(filepath.Join(a.Zarr, "0.0"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(a.Chunk)
		if err != nil {
			t.Fatal(err)
		}
		k, err := FromV2(zarray.Compressor)
		if err != nil {
			t.Fatalf("%s: %v", zarray.Compressor, err)
		}
		got := stored
		if k != nil {
			got, err = k.Decode(make([]byte, 0, len(want)), stored, len(want))
		}
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("compressor %s: %d bytes (%v), want the %d bytes written", zarray.Compressor, len(got), err, len(want))
		}
	}
}
