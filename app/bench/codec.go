package bench

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"vastview/loader/zarr/codec"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// benchPython is the interpreter with numcodecs (Debian's python3-numcodecs).
var benchPython = "/usr/bin/python3"

// benchBlosc are the Blosc configurations measured, encoded by numcodecs.
var benchBlosc = []struct {
	name, cname, shuffle string
	clevel               int
}{
	{"blosc_lz4_shuffle", "lz4", "SHUFFLE", 5}, // numcodecs' and zarr's default
	{"blosc_lz4_bitshuffle", "lz4", "BITSHUFFLE", 5},
	{"blosc_lz4_noshuffle", "lz4", "NOSHUFFLE", 5},
	{"blosc_blosclz_shuffle", "blosclz", "SHUFFLE", 5},
	{"blosc_zstd_shuffle", "zstd", "SHUFFLE", 3},
	{"blosc_zstd_bitshuffle", "zstd", "BITSHUFFLE", 3},
	{"blosc_zlib_shuffle", "zlib", "SHUFFLE", 5},
	{"blosc_memcpyed", "lz4", "SHUFFLE", 0},
}

// codecCase is one encoded form of the benchmark image.
type codecCase struct {
	name  string
	codec codec.Codec
	enc   []byte
}

// benchImage returns a 4096x2048 uint16 image (16 MiB, little-endian): a
// smooth background with bright blobs and sensor-like noise.
func benchImage() []byte {
	const w, h = 4096, 2048
	r := rand.New(rand.NewPCG(11, 12))
	img := make([]byte, 2*w*h)
	for y := range h {
		for x := range w {
			v := 1200 + 700*math.Sin(float64(x)/180)*math.Cos(float64(y)/130)
			dx, dy := float64(x%256-128), float64(y%256-128)
			v += 9000 * math.Exp(-(dx*dx+dy*dy)/800)
			v += 12 * r.NormFloat64()
			binary.LittleEndian.PutUint16(img[2*(y*w+x):], uint16(max(0, min(65535, v))))
		}
	}
	return img
}

// benchScript encodes sys.argv[1] (raw little-endian uint16) with each Blosc
// configuration given after it (name:cname:shuffle:clevel) into sys.argv[2].
const benchScript = `
import os, sys
import numpy as np
import numcodecs
from numcodecs import Blosc
numcodecs.blosc.use_threads = False
data = np.fromfile(sys.argv[1], dtype="<u2")
for spec in sys.argv[3:]:
    name, cname, shuffle, clevel = spec.split(":")
    codec = Blosc(cname=cname, clevel=int(clevel), shuffle=getattr(Blosc, shuffle))
    with open(os.path.join(sys.argv[2], name), "wb") as f:
        f.write(bytes(codec.encode(data)))
`

// codecCases encodes img with every measured codec: Blosc through numcodecs
// (Debian's python3), the others in Go.
func codecCases(img []byte) ([]codecCase, error) {
	dir, err := os.MkdirTemp("", "vastview-codec-bench")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	rawPath := filepath.Join(dir, "image.raw")
	if err := os.WriteFile(rawPath, img, 0o644); err != nil {
		return nil, err
	}
	args := []string{"-c", benchScript, rawPath, dir}
	for _, c := range benchBlosc {
		args = append(args, fmt.Sprintf("%s:%s:%s:%d", c.name, c.cname, c.shuffle, c.clevel))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, benchPython, args...).CombinedOutput(); err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("encoding Blosc needs %s with numcodecs (Debian: apt install python3-numcodecs): %v", benchPython, err)
		}
		msg := strings.TrimSpace(string(out))
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		return nil, fmt.Errorf("encoding Blosc with %s and numcodecs failed: %s", benchPython, msg)
	}
	var cases []codecCase
	for _, c := range benchBlosc {
		enc, err := os.ReadFile(filepath.Join(dir, c.name))
		if err != nil {
			return nil, err
		}
		cases = append(cases, codecCase{c.name, numcodec("blosc"), enc})
	}
	goEnc, err := goEncodings(img)
	if err != nil {
		return nil, err
	}
	return append(cases, goEnc...), nil
}

// numcodec is the decoder of the numcodecs codec id.
func numcodec(id string) codec.Codec {
	c, err := codec.FromV2(json.RawMessage(`{"id":"` + id + `"}`))
	if err != nil {
		panic(err) // the ids used here are all known
	}
	return c
}

// goEncodings encodes img as gzip, zlib, zstd and numcodecs LZ4 in Go.
func goEncodings(img []byte) ([]codecCase, error) {
	var gz, zl bytes.Buffer
	gw, _ := gzip.NewWriterLevel(&gz, 5)
	zw, _ := zlib.NewWriterLevel(&zl, 5)
	for _, w := range []interface {
		Write([]byte) (int, error)
		Close() error
	}{gw, zw} {
		if _, err := w.Write(img); err != nil {
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
	}
	ze, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	zs := ze.EncodeAll(img, nil)
	l4 := make([]byte, 4+lz4.CompressBlockBound(len(img)))
	binary.LittleEndian.PutUint32(l4, uint32(len(img)))
	n, err := lz4.CompressBlock(img, l4[4:], nil)
	if err != nil {
		return nil, err
	}
	return []codecCase{
		{"gzip", numcodec("gzip"), gz.Bytes()},
		{"zlib", numcodec("zlib"), zl.Bytes()},
		{"zstd", numcodec("zstd"), zs},
		{"lz4", numcodec("lz4"), l4[:4+n]},
	}, nil
}

// benchCodec measures decoding a 16 MiB uint16 image with each codec on one
// goroutine and reports, per codec, the best-of-7 throughput
// ("codec.<name>.decode", MB/s of decoded bytes), the ratio to a copy() of
// the same bytes timed alternately with it ("codec.<name>.ratio_to_copy"),
// and the compression ratio; then the best copy() ("codec.copy", MB/s).
// Blosc buffers are made by numcodecs in /usr/bin/python3, which must exist.
func benchCodec(report func(name string, value float64, unit string)) error {
	const runs = 7
	img := benchImage()
	cases, err := codecCases(img)
	if err != nil {
		return err
	}
	dst := make([]byte, len(img))
	cp := make([]byte, len(img))
	copyBest := 0.0
	for _, c := range cases {
		var dec, copied time.Duration
		for i := range runs {
			t0 := time.Now()
			copy(cp, img)
			t1 := time.Now()
			out, err := c.codec.Decode(dst, c.enc, len(img))
			t2 := time.Now()
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			if i == 0 && !bytes.Equal(out, img) {
				return fmt.Errorf("%s: decoded image differs from the original", c.name)
			}
			if i == 0 || t1.Sub(t0) < copied {
				copied = t1.Sub(t0)
			}
			if i == 0 || t2.Sub(t1) < dec {
				dec = t2.Sub(t1)
			}
		}
		mbps := float64(len(img)) / dec.Seconds() / 1e6
		copyMBps := float64(len(img)) / copied.Seconds() / 1e6
		copyBest = max(copyBest, copyMBps)
		report("codec."+c.name+".decode", mbps, "MB/s")
		report("codec."+c.name+".ratio_to_copy", mbps/copyMBps, "x")
		report("codec."+c.name+".compression", float64(len(img))/float64(len(c.enc)), "x")
	}
	report("codec.copy", copyBest, "MB/s")
	return nil
}
