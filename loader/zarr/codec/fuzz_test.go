package codec

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var regenSeeds = flag.Bool("regen-seeds", false, "rewrite the fuzz seeds in testdata/ with numcodecs")

// seedArray is the smooth array behind the committed fuzz seeds; the
// memcpyed seed stores a short prefix.
const (
	seedArray = `(1000 + 300 * np.sin(np.arange(1000) / 60.0)).astype("<u2") // 2 * 2`
	seedShort = `(1000 + 300 * np.sin(np.arange(1000) / 60.0)).astype("<u2")[:101]`
	seedBytes = `(np.arange(1000) // 7 % 50).astype("u1")`
)

// seedConfigs name the numcodecs configs of the committed seeds.
var seedConfigs = map[string]string{
	"blosclz_noshuffle.blosc": `{"id": "blosc", "cname": "blosclz", "clevel": 5, "shuffle": 0, "blocksize": 256}`,
	"blosclz_shuffle.blosc":   `{"id": "blosc", "cname": "blosclz", "clevel": 9, "shuffle": 1, "blocksize": 256}`,
	"lz4_bitshuffle.blosc":    `{"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 2, "blocksize": 256}`,
	"lz4hc_shuffle.blosc":     `{"id": "blosc", "cname": "lz4hc", "clevel": 5, "shuffle": 1, "blocksize": 256}`,
	"zlib_shuffle.blosc":      `{"id": "blosc", "cname": "zlib", "clevel": 5, "shuffle": 1, "blocksize": 256}`,
	"zstd_bitshuffle.blosc":   `{"id": "blosc", "cname": "zstd", "clevel": 5, "shuffle": 2, "blocksize": 256}`,
	"memcpyed.blosc":          `{"id": "blosc", "cname": "lz4", "clevel": 0, "shuffle": 1, "blocksize": 0}`,
	"zlib.bin":                `{"id": "zlib", "level": 5}`,
	"gzip.bin":                `{"id": "gzip", "level": 5}`,
	"zstd.bin":                `{"id": "zstd", "level": 3}`,
	"lz4.bin":                 `{"id": "lz4", "acceleration": 1}`,
	"bz2.bin":                 `{"id": "bz2", "level": 1}`,
	"lzma.bin":                `{"id": "lzma", "format": 1, "preset": 1}`,
	"lzma_delta.bin":          `{"id": "lzma", "filters": [{"id": 3, "dist": 2}, {"id": 33, "preset": 1}]}`,
}

// seedExpr returns the array a seed holds.
func seedExpr(name string) string {
	switch name {
	case "memcpyed.blosc":
		return seedShort
	case "blosclz_noshuffle.blosc":
		return seedBytes
	}
	return seedArray
}

// TestSeeds checks that the committed seeds are what numcodecs writes for
// the seed array (rewriting them with -regen-seeds) and that they decode.
func TestSeeds(t *testing.T) {
	var names []string
	var encs []encoding
	for name, config := range seedConfigs {
		names = append(names, name)
		encs = append(encs, encoding{seedExpr(name), config}, encoding{seedExpr(name), `null`})
	}
	got := numcodecsEncode(t, encs...)
	for i, name := range names {
		enc, want := got[2*i], got[2*i+1]
		path := filepath.Join("testdata", name)
		if *regenSeeds {
			if err := os.WriteFile(path, enc, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		seed, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		k, err := FromV2(json.RawMessage(seedConfigs[name]))
		if err != nil {
			t.Fatal(err)
		}
		dec, err := k.Decode(nil, seed, len(want))
		if err != nil || !bytes.Equal(dec, want) {
			t.Errorf("seed %s: %d bytes (%v), want the %d-byte seed array", name, len(dec), err, len(want))
		}
	}
}

// fuzzDst is the destination buffer reused by fuzz runs (a fuzz function
// runs one input at a time in each process).
var fuzzDst = make([]byte, 1<<20)

// checkDecode runs a decoder on fuzzed input and checks the contract: an
// error is one line; a result is no longer than limit (at most 1 MiB) and
// sits in dst's storage when that is large enough.
func checkDecode(t *testing.T, decode func(dst, src []byte, limit int) ([]byte, error), data []byte, limit int) []byte {
	t.Helper()
	for _, dst := range [][]byte{nil, fuzzDst[:0:limit]} {
		out, err := decode(dst, data, limit)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of several lines: %q", err)
			}
			continue
		}
		if len(out) > limit {
			t.Fatalf("%d bytes decoded, limit %d", len(out), limit)
		}
		if cap(dst) >= len(out) && len(out) > 0 && &out[0] != &dst[:1][0] {
			t.Fatalf("result not in dst's storage")
		}
		if dst == nil {
			return out
		}
	}
	return nil
}

// FuzzBlosc decodes arbitrary bytes as a Blosc buffer: it must return an
// error or exactly the size the header gives, never panic or read or write
// out of bounds.
func FuzzBlosc(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*.blosc"))
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		const limit = 1 << 20
		out := checkDecode(t, Blosc, data, limit)
		if out != nil && len(out) != int(binary.LittleEndian.Uint32(data[4:])) {
			t.Fatalf("%d bytes decoded, header says %d", len(out), binary.LittleEndian.Uint32(data[4:]))
		}
	})
}

// FuzzCodecs parses a v2 compressor or v3 codec config and decodes
// arbitrary bytes with the codec it names.
func FuzzCodecs(f *testing.F) {
	for name, config := range seedConfigs {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(config, uint16(len(b)*4), b)
	}
	f.Add(`{"cname": "lz4", "shuffle": "shuffle", "clevel": 3}`, uint16(100), []byte{2, 1, 0x21, 2})
	f.Add(`crc32c`, uint16(5), []byte("abcde\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, config string, limit uint16, data []byte) {
		if len(data) > 1<<20 || len(config) > 4096 {
			return
		}
		k, err := FromV2(json.RawMessage(config))
		if err != nil || k == nil {
			name := "blosc"
			if !strings.HasPrefix(config, "{") {
				name, config = config, ""
			}
			if k, err = FromV3(name, json.RawMessage(config)); err != nil {
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("error of several lines: %q", err)
				}
				return
			}
		}
		checkDecode(t, k.Decode, data, int(limit))
	})
}
