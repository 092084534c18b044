package n5

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"vastview/base/textutil"
	"vastview/loader"
	"vastview/loader/internal/rawvol"
	"vastview/loader/zarr/codec"
	"vastview/loader/zarr/store"
)

// maxAttrs bounds an attributes.json read.
const maxAttrs = 16 << 20

// maxDims is the most dimensions a dataset may have (T, C, Z, Y, X).
const maxDims = 5

// attrs is what an attributes.json says that the reader uses. Numbers
// that several tools write differently are kept raw.
type attrs struct {
	Dimensions  []int64         `json:"dimensions"`
	BlockSize   []int64         `json:"blockSize"`
	DataType    string          `json:"dataType"`
	Compression json.RawMessage `json:"compression"`
	// CompressionType is the N5 0.x way of naming the compression.
	CompressionType string `json:"compressionType"`

	Axes                []string        `json:"axes"`
	Units               []string        `json:"units"`
	Resolution          []float64       `json:"resolution"`
	PixelResolution     json.RawMessage `json:"pixelResolution"`
	DownsamplingFactors json.RawMessage `json:"downsamplingFactors"`
	Scales              json.RawMessage `json:"scales"`

	// info is what the store said of the attributes.json.
	info store.Info
}

// isDataset reports whether the attributes describe a dataset.
func (a *attrs) isDataset() bool { return a.Dimensions != nil }

func parseAttrs(b []byte) (*attrs, error) {
	var a attrs
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, formatError("attributes.json: %s", jsonErr(err))
	}
	return &a, nil
}

// dataTypes are N5's data types that the loader has.
var dataTypes = map[string]loader.DType{
	"uint8": loader.Uint8, "int8": loader.Int8, "uint16": loader.Uint16, "int16": loader.Int16,
	"uint32": loader.Uint32, "int32": loader.Int32, "uint64": loader.Uint64, "int64": loader.Int64, "float32": loader.Float32, "float64": loader.Float64,
}

// dataset is one N5 dataset: its dimensions and block size in C order
// (slowest first, the reverse of N5's lists) and how its blocks are
// stored.
type dataset struct {
	path  string // "/"-separated, relative to the root ("" for the root)
	shape []int
	block []int // the chunk: the block size, at most the array's size
	bs    []int // the block size (a zarr-python block may be as large)
	dtype loader.DType
	codec codec.Codec // nil: raw
	lz4   bool        // lz4: lz4-java's block stream or numcodecs' LZ4
	attrs *attrs
	// maxBlock is the bytes of samples in a whole block.
	maxBlock int64
	// err, when not nil, is why the blocks cannot be read (a compression
	// not supported): the dataset is listed, but does not open.
	err error
}

// maxBlockBytes bounds a block's samples, as loader.Meta.Validate bounds
// a chunk.
const maxBlockBytes = 1 << 31

// newDataset checks the dataset attributes a describe and returns it.
func newDataset(path string, a *attrs) (*dataset, error) {
	n := len(a.Dimensions)
	name := path
	if name == "" {
		name = "the root"
	}
	if n < 2 || n > maxDims {
		return nil, unsupported(fmt.Sprintf("dataset %s of %d dimensions", name, n))
	}
	if len(a.BlockSize) != n {
		return nil, formatError("dataset %s: %d dimensions but a block size of %d", name, n, len(a.BlockSize))
	}
	dt, ok := dataTypes[a.DataType]
	if !ok {
		return nil, unsupported(fmt.Sprintf("data type %q (dataset %s)", textutil.Clip(a.DataType), name))
	}
	d := &dataset{path: path, shape: make([]int, n), block: make([]int, n), bs: make([]int, n), dtype: dt, attrs: a}
	for i := 0; i < n; i++ {
		dim, bs := a.Dimensions[n-1-i], a.BlockSize[n-1-i]
		if dim < 1 || dim > math.MaxInt32 || bs < 1 || bs > math.MaxInt32 {
			return nil, formatError("dataset %s: dimensions %v, block size %v", name, a.Dimensions, a.BlockSize)
		}
		d.shape[i], d.block[i], d.bs[i] = int(dim), int(min(bs, dim)), int(bs)
	}
	if n, err := rawvol.ArrayBytes(d.bs, dt); err != nil || n > maxBlockBytes {
		return nil, formatError("dataset %s: blocks of %v samples are too large", name, a.BlockSize)
	}
	d.maxBlock = 1
	for _, v := range d.bs {
		d.maxBlock *= int64(v)
	}
	d.maxBlock *= int64(dt.Size())
	d.codec, d.lz4, d.err = compression(a)
	return d, nil
}

// compression returns the codec of the compression a names (nil: raw),
// as the codecs of numcodecs that decode the same streams.
func compression(a *attrs) (c codec.Codec, lz4 bool, err error) {
	typ := a.CompressionType
	var cfg struct {
		Type    string `json:"type"`
		UseZlib bool   `json:"useZlib"`
	}
	if raw := bytes.TrimSpace(a.Compression); len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &cfg); err != nil {
			return nil, false, formatError("compression: %s", jsonErr(err))
		}
		typ = cfg.Type
	}
	id := ""
	switch typ {
	case "", "raw":
		return nil, false, nil
	case "gzip":
		id = "gzip"
		if cfg.UseZlib {
			id = "zlib"
		}
	case "bzip2":
		id = "bz2"
	case "blosc", "zstd":
		id = typ
	case "lz4":
		id, lz4 = "lz4", true
	case "xz":
		id = "lzma"
	default:
		return nil, false, unsupported(fmt.Sprintf("compression %q", textutil.Clip(typ)))
	}
	c, err = codec.FromV2(json.RawMessage(`{"id":"` + id + `"}`))
	return c, lz4, err
}

// resolution is the size of one sample along each N5 dimension (fastest
// first) and its unit, from "resolution" (with "units") or n5-viewer's
// "pixelResolution" ({"dimensions": [...], "unit": "um"} or a plain
// list); nil when neither is given.
func (a *attrs) resolution() ([]float64, []string) {
	if len(a.Resolution) > 0 {
		return a.Resolution, a.Units
	}
	raw := bytes.TrimSpace(a.PixelResolution)
	if len(raw) == 0 {
		return nil, nil
	}
	var list []float64
	if json.Unmarshal(raw, &list) == nil {
		return list, a.Units
	}
	var pr struct {
		Dimensions []float64 `json:"dimensions"`
		Unit       string    `json:"unit"`
	}
	if json.Unmarshal(raw, &pr) != nil {
		return nil, nil
	}
	units := make([]string, len(pr.Dimensions))
	for i := range units {
		units[i] = pr.Unit
	}
	return pr.Dimensions, units
}

// factors parses a list of downsampling factors per N5 dimension
// ("downsamplingFactors" of a scale level: [2, 2, 1]) or, with level ≥ 0,
// the level's entry of a list of them (n5-viewer's "scales", BigDataViewer's
// "downsamplingFactors": [[1, 1, 1], [2, 2, 1], ...]).
func factors(raw json.RawMessage, level int) []float64 {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	if level < 0 {
		var f []float64
		if json.Unmarshal(raw, &f) != nil {
			return nil
		}
		return f
	}
	var ff [][]float64
	if json.Unmarshal(raw, &ff) != nil || level >= len(ff) {
		return nil
	}
	return ff[level]
}

// axesOf returns the axis letters of an array of n dimensions in C order:
// from the "axes" attribute (N5 order, fastest first) when it names each
// of x, y, z, c, t at most once and ends (in C order) in y, x; else YX,
// ZYX, CZYX or TCZYX.
func axesOf(a *attrs, n int) string {
	if len(a.Axes) == n {
		var b strings.Builder
		for i := n - 1; i >= 0; i-- {
			s := strings.ToUpper(strings.TrimSpace(a.Axes[i]))
			if len(s) != 1 || !strings.Contains("TCZYX", s) || strings.Contains(b.String(), s) {
				b.Reset()
				break
			}
			b.WriteString(s)
		}
		if s := b.String(); len(s) == n && strings.HasSuffix(s, "YX") {
			return s
		}
	}
	return "TCZYX"[maxDims-n:]
}

// unitName is the NGFF name of a unit as N5 attributes write it ("um",
// "nm", "µm", "micrometer"), or "".
func unitName(u string) string {
	if n := rawvol.UnitName(u); n != "" {
		return n
	}
	if f, _ := loader.UnitScale(u); f > 0 {
		return u
	}
	return ""
}

// jsonErr shortens an encoding/json error to its message.
func jsonErr(err error) string {
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return msg
}

func formatError(format string, args ...any) error {
	return loader.Errorf("n5", format, args...)
}

func unsupported(feature string) error {
	return &loader.UnsupportedError{Format: "n5", Feature: feature}
}
