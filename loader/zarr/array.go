package zarr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"vastview/base/textutil"
	"vastview/loader"
	"vastview/loader/zarr/codec"
)

// array is one Zarr array as this package reads it. It is immutable once
// parsed and safe for concurrent use.
type array struct {
	dir   string     // the array's key prefix: "" at the root, else ending in "/"
	shape []int      // samples per axis
	chunk []int      // the read unit: the chunk, or a shard's inner chunk
	typ   sampleType // stored sample type
	fill  []byte     // one little-endian sample of the fill value
	keys  keyEncoding
	pipe  pipeline  // decodes one read unit
	shard *sharding // nil unless the array is sharded
	names []string  // dimension names, when the metadata gives them
}

// pipeline decodes a stored chunk: bytes-to-bytes codecs undone in reverse
// order, then the byte order, then a transposition.
type pipeline struct {
	codecs []codec.Codec // bytes-to-bytes codecs, in encoding order
	big    bool          // samples are stored big-endian
	perm   []int         // encoded axis i is decoded axis perm[i]; nil: C order
}

// Limits on what metadata may describe.
const (
	maxDims       = 32
	maxAxisLen    = 1 << 50
	maxChunkBytes = 1 << 31
)

// zarrayV2 is a Zarr v2 .zarray document.
type zarrayV2 struct {
	ZarrFormat         *int            `json:"zarr_format"`
	Shape              []int64         `json:"shape"`
	Chunks             []int64         `json:"chunks"`
	DType              json.RawMessage `json:"dtype"`
	Compressor         json.RawMessage `json:"compressor"`
	FillValue          json.RawMessage `json:"fill_value"`
	Order              string          `json:"order"`
	Filters            json.RawMessage `json:"filters"`
	DimensionSeparator string          `json:"dimension_separator"`
}

// parseArrayV2 reads a .zarray document (and the array's .zattrs, which
// may be nil) for the array under dir.
func parseArrayV2(dir string, doc, attrs []byte) (*array, error) {
	var z zarrayV2
	if err := unmarshal(doc, &z); err != nil {
		return nil, err
	}
	if z.ZarrFormat == nil || *z.ZarrFormat != 2 {
		return nil, formatError("zarr_format is not 2")
	}
	a := &array{dir: dir}
	var err error
	if a.shape, a.chunk, err = shapes(z.Shape, z.Chunks); err != nil {
		return nil, err
	}
	if a.typ, err = dtypeV2(z.DType); err != nil {
		return nil, err
	}
	if err := checkChunkBytes(a.chunk, a.typ.dt); err != nil {
		return nil, err
	}
	if a.fill, err = fillValue(z.FillValue, a.typ); err != nil {
		return nil, err
	}
	if err := noFilters(z.Filters); err != nil {
		return nil, err
	}
	if a.keys, err = keyEncodingV2(z.DimensionSeparator); err != nil {
		return nil, err
	}
	a.pipe.big = a.typ.big
	switch z.Order {
	case "", "C":
	case "F":
		a.pipe.perm = reversed(len(a.shape))
	default:
		return nil, formatError("order %q is not \"C\" or \"F\"", textutil.Clip(z.Order))
	}
	if t := bytes.TrimSpace(z.Compressor); len(t) > 0 && string(t) != "null" {
		c, err := codec.FromV2(z.Compressor)
		if err != nil {
			return nil, err
		}
		if c != nil {
			a.pipe.codecs = []codec.Codec{c}
		}
	}
	a.names = arrayDimensions(attrs)
	return a, nil
}

// noFilters accepts a null or empty "filters" list and reports the ids of
// any others as unsupported.
func noFilters(raw json.RawMessage) error {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return nil
	}
	var fs []struct{ ID string }
	if err := json.Unmarshal(t, &fs); err != nil {
		return formatError("filters: %v", err)
	}
	if len(fs) == 0 {
		return nil
	}
	return unsupported("filter %q", textutil.Clip(fs[0].ID))
}

// arrayDimensions reads xarray's "_ARRAY_DIMENSIONS" from a v2 .zattrs.
func arrayDimensions(attrs []byte) []string {
	var a struct {
		Dims []string `json:"_ARRAY_DIMENSIONS"`
	}
	if len(attrs) == 0 || json.Unmarshal(attrs, &a) != nil {
		return nil
	}
	return a.Dims
}

// shapes checks an array's shape and chunk shape.
func shapes(shape, chunk []int64) ([]int, []int, error) {
	if len(shape) != len(chunk) {
		return nil, nil, formatError("shape %v and chunks %v differ in length", clipInts(shape), clipInts(chunk))
	}
	if len(shape) > maxDims {
		return nil, nil, formatError("%d dimensions is more than %d", len(shape), maxDims)
	}
	s, c := make([]int, len(shape)), make([]int, len(shape))
	for i := range shape {
		if shape[i] <= 0 || shape[i] > maxAxisLen {
			return nil, nil, formatError("shape %v: axis %d has length %d", clipInts(shape), i, shape[i])
		}
		if chunk[i] <= 0 || chunk[i] > maxChunkBytes {
			return nil, nil, formatError("chunk shape %v: axis %d has length %d", clipInts(chunk), i, chunk[i])
		}
		s[i], c[i] = int(shape[i]), int(chunk[i])
	}
	return s, c, nil
}

// checkChunkBytes refuses chunks of more than maxChunkBytes.
func checkChunkBytes(chunk []int, dt loader.DType) error {
	n := uint64(dt.Size())
	for _, c := range chunk {
		if uint64(c) > maxChunkBytes/n {
			return formatError("chunk shape %v holds more than 2 GiB", chunk)
		}
		n *= uint64(c)
	}
	return nil
}

// chunkBytes is the byte size of one read unit.
func (a *array) chunkBytes() int {
	n := a.typ.dt.Size()
	for _, c := range a.chunk {
		n *= c
	}
	return n
}

// grid is the number of read units along each axis.
func (a *array) grid() []int {
	g := make([]int, len(a.shape))
	for i := range a.shape {
		g[i] = (a.shape[i] + a.chunk[i] - 1) / a.chunk[i]
	}
	return g
}

// reversed is the permutation n-1, ..., 0.
func reversed(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = n - 1 - i
	}
	return p
}

// unmarshal decodes a JSON document, reporting errors as "invalid JSON".
func unmarshal(doc []byte, v any) error {
	err := json.Unmarshal(doc, v)
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &te) && te.Field != "":
		return formatError("field %q: a JSON %s where %s is expected", te.Field, te.Value, goKind(te.Type.Kind()))
	case errors.As(err, &te):
		return formatError("a JSON %s where an object is expected", te.Value)
	}
	return formatError("invalid JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
}

// goKind names what a Go kind holds in JSON terms.
func goKind(k reflect.Kind) string {
	switch k {
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.String:
		return "a string"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Bool:
		return "true or false"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "an integer"
}

// clipInts formats a list of lengths, shortened if long.
func clipInts(v []int64) string {
	if len(v) > 8 {
		return fmt.Sprint(v[:8])[:len(fmt.Sprint(v[:8]))-1] + " ...]"
	}
	return fmt.Sprint(v)
}
