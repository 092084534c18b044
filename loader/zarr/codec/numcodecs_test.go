package codec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"vastview/base/testtool"
)

// arraysPy defines the test arrays: smooth and noisy images of each dtype,
// incompressible bytes, odd element sizes (numpy void types give Blosc
// typesizes 3, 12, 16 and 24) and sizes that are no multiple of the block.
const arraysPy = `
import numpy as np
rng = np.random.default_rng(20240611)

def image(h, w, dtype, lo, hi, noise):
    y, x = np.mgrid[0:h, 0:w]
    v = lo + (hi - lo) * (0.5 + 0.5 * np.sin(x / 23.0) * np.cos(y / 17.0))
    v = v + rng.normal(0, noise, size=(h, w))
    info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else None
    if info is not None:
        v = np.clip(np.rint(v), info.min, info.max)
    return v.astype(dtype)

def voids(n, size):
    base = image(1, n * size, np.uint8, 0, 200, 3).tobytes()
    return np.frombuffer(base, dtype="V%d" % size)

ARRAYS = {
    "u1_smooth": image(61, 173, np.uint8, 10, 240, 2),
    "u2_image": image(97, 151, np.uint16, 100, 4000, 30),
    "u2_big": image(512, 700, np.uint16, 100, 60000, 200),
    "i4_signed": image(53, 89, np.int32, -70000, 70000, 500),
    "f4_smooth": image(47, 101, np.float32, -1, 1, 0.01),
    "f8_noisy": image(31, 67, np.float64, -1e3, 1e3, 50),
    "u1_random": rng.integers(0, 256, size=50001, dtype=np.uint8),
    "u2_random": rng.integers(0, 65536, size=12345, dtype=np.uint16),
    "i2_zeros": np.zeros(9000, dtype=np.int16),
    "v3_rgb": voids(4001, 3),
    "v12": voids(1111, 12),
    "v16": voids(777, 16),
    "v24": voids(555, 24),
    "u1_tiny": np.arange(5, dtype=np.uint8),
    "u2_empty": np.zeros(0, dtype=np.uint16),
}
`

// genPy encodes the arrays with numcodecs and writes N.raw / N.enc pairs to
// sys.argv[1], printing the cases as JSON.
const genPy = arraysPy + `
import json, os, sys
import numcodecs
from numcodecs import Blosc, Zlib, GZip, Zstd, LZ4, BZ2
numcodecs.blosc.use_threads = False
out = sys.argv[1]
cases = []

def emit(name, arr, codec):
    i = len(cases)
    with open(os.path.join(out, "%d.raw" % i), "wb") as f:
        f.write(np.ascontiguousarray(arr).tobytes())
    with open(os.path.join(out, "%d.enc" % i), "wb") as f:
        f.write(bytes(codec.encode(arr)))
    cases.append({"name": name, "config": codec.get_config()})

small = [k for k in ARRAYS if k != "u2_big"]
for cname in ["blosclz", "lz4", "lz4hc", "zlib", "zstd"]:
    for shuffle in [Blosc.NOSHUFFLE, Blosc.SHUFFLE, Blosc.BITSHUFFLE]:
        for key in small:
            for bs in [0, 256, 1000, 4096]:
                emit("%s/%d/%s/bs%d" % (cname, shuffle, key, bs), ARRAYS[key],
                     Blosc(cname=cname, clevel=5, shuffle=shuffle, blocksize=bs))
        for clevel in [1, 5, 9]:
            emit("%s/%d/u2_big/clevel%d" % (cname, shuffle, clevel), ARRAYS["u2_big"],
                 Blosc(cname=cname, clevel=clevel, shuffle=shuffle))
        emit("%s/%d/u2_image/clevel0" % (cname, shuffle), ARRAYS["u2_image"],
             Blosc(cname=cname, clevel=0, shuffle=shuffle))
for key in ARRAYS:
    for codec in [Zlib(level=1), Zlib(level=9), GZip(level=5), Zstd(level=1), Zstd(level=19),
                  LZ4(acceleration=1), LZ4(acceleration=50), BZ2(level=9)]:
        emit("%s/%s" % (json.dumps(codec.get_config(), sort_keys=True), key), ARRAYS[key], codec)
json.dump(cases, sys.stdout)
`

// refCase is one numcodecs-encoded array.
type refCase struct {
	Name   string          `json:"name"`
	Config json.RawMessage `json:"config"`
	raw    []byte
	enc    []byte
}

// numcodecsCases encodes the test arrays with numcodecs.
func numcodecsCases(t *testing.T) []refCase {
	t.Helper()
	testtool.RequirePython(t, "numcodecs", "numpy")
	dir := t.TempDir()
	var cases []refCase
	if err := json.Unmarshal(testtool.RunPython(t, genPy, dir), &cases); err != nil {
		t.Fatal(err)
	}
	for i := range cases {
		var err error
		if cases[i].raw, err = os.ReadFile(filepath.Join(dir, fmt.Sprintf("%d.raw", i))); err != nil {
			t.Fatal(err)
		}
		if cases[i].enc, err = os.ReadFile(filepath.Join(dir, fmt.Sprintf("%d.enc", i))); err != nil {
			t.Fatal(err)
		}
	}
	return cases
}

// TestNumcodecs decodes what numcodecs encoded and compares byte for byte,
// with and without a destination buffer and from several goroutines, and
// checks the size limit.
func TestNumcodecs(t *testing.T) {
	cases := numcodecsCases(t)
	seen := map[string]int{}
	for _, c := range cases {
		k, err := FromV2(c.Config)
		if err != nil || k == nil {
			t.Fatalf("%s: FromV2(%s) = %v, %v", c.Name, c.Config, k, err)
		}
		got, err := k.Decode(nil, c.enc, len(c.raw))
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		if !bytes.Equal(got, c.raw) {
			t.Errorf("%s: decoded %d bytes differ from the %d written (first at %d)", c.Name, len(got), len(c.raw), firstDiff(got, c.raw))
			continue
		}
		dst := make([]byte, 3, len(c.raw)+7)
		got, err = k.Decode(dst, c.enc, len(c.raw))
		if err != nil || !bytes.Equal(got, c.raw) {
			t.Errorf("%s: decoding into a buffer: %v", c.Name, err)
		} else if len(c.raw) > 0 && &got[0] != &dst[0] {
			t.Errorf("%s: result is not in dst's storage", c.Name)
		}
		if len(c.raw) > 0 {
			if _, err := k.Decode(nil, c.enc, len(c.raw)-1); err == nil {
				t.Errorf("%s: no error with a limit one byte below the decoded size", c.Name)
			}
		}
		seen[k.Name()]++
	}
	for _, name := range []string{"blosc", "zlib", "gzip", "zstd", "lz4", "bz2"} {
		if seen[name] == 0 {
			t.Errorf("no %s case ran", name)
		}
	}
	checkBloscPaths(t, cases)
	checkConcurrent(t, cases)
}

// checkConcurrent decodes all cases from several goroutines at once.
func checkConcurrent(t *testing.T, cases []refCase) {
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := g; i < len(cases); i += 4 {
				c := cases[i]
				k, _ := FromV2(c.Config)
				got, err := k.Decode(nil, c.enc, len(c.raw))
				if err != nil || !bytes.Equal(got, c.raw) {
					t.Errorf("%s, decoded concurrently: %v", c.Name, err)
				}
			}
		})
	}
	wg.Wait()
}

// checkBloscPaths checks that the numcodecs cases reach every Blosc path:
// each compressor, shuffle kind, split and unsplit blocks, memcpyed
// buffers, many blocks and leftover blocks.
func checkBloscPaths(t *testing.T, cases []refCase) {
	paths := map[string]bool{}
	for _, c := range cases {
		if !strings.Contains(string(c.Config), `"blosc"`) || len(c.enc) < bloscHeaderSize {
			continue
		}
		h, err := parseBloscHeader(c.enc, len(c.raw))
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if h.nbytes == 0 {
			continue
		}
		if h.flags&flagMemcpyed != 0 {
			paths["memcpyed"] = true
			continue
		}
		paths[fmt.Sprintf("compressor%d", h.flags>>5)] = true
		paths[fmt.Sprintf("shuffle%d", h.flags&(flagShuffle|flagBitShuffle))] = true
		if h.flags&flagDontSplit == 0 && h.typesize > 1 {
			paths["split"] = true
		}
		if h.flags&flagDontSplit != 0 && h.typesize > 1 {
			paths["unsplit"] = true
		}
		if h.nbytes%h.blocksize != 0 {
			paths["leftover"] = true
		}
		if h.nblocks > 8 {
			paths["many blocks"] = true
		}
		if h.typesize > maxSplits {
			paths["typesize>16"] = true
		}
	}
	for _, p := range []string{"memcpyed", "compressor0", "compressor1", "compressor3", "compressor4",
		"shuffle0", "shuffle1", "shuffle4", "split", "unsplit", "leftover", "many blocks", "typesize>16"} {
		if !paths[p] {
			t.Errorf("no numcodecs case takes the %s path", p)
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
