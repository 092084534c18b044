package zarr

import (
	"bytes"
	"encoding/json"

	"vastview/base/textutil"
	"vastview/loader/zarr/codec"
)

// zarrJSON is a Zarr v3 zarr.json document, of an array or a group.
type zarrJSON struct {
	ZarrFormat *int            `json:"zarr_format"`
	NodeType   string          `json:"node_type"`
	Attributes json.RawMessage `json:"attributes"`

	Shape     []int64         `json:"shape"`
	DataType  json.RawMessage `json:"data_type"`
	ChunkGrid struct {
		Name          string `json:"name"`
		Configuration struct {
			ChunkShape []int64 `json:"chunk_shape"`
		} `json:"configuration"`
	} `json:"chunk_grid"`
	ChunkKeyEncoding    json.RawMessage   `json:"chunk_key_encoding"`
	FillValue           json.RawMessage   `json:"fill_value"`
	Codecs              []codecSpec       `json:"codecs"`
	StorageTransformers []json.RawMessage `json:"storage_transformers"`
	DimensionNames      []*string         `json:"dimension_names"`
}

// codecSpec is one entry of a codec list: a name and its configuration.
type codecSpec struct {
	Name          string          `json:"name"`
	Configuration json.RawMessage `json:"configuration"`
}

// UnmarshalJSON accepts the object form and the bare-name shorthand.
func (c *codecSpec) UnmarshalJSON(b []byte) error {
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '"' {
		return json.Unmarshal(t, &c.Name)
	}
	type plain codecSpec
	return json.Unmarshal(b, (*plain)(c))
}

// parseNodeV3 reads a zarr.json document and checks its format version.
func parseNodeV3(doc []byte) (*zarrJSON, error) {
	var z zarrJSON
	if err := unmarshal(doc, &z); err != nil {
		return nil, err
	}
	if z.ZarrFormat == nil || *z.ZarrFormat != 3 {
		return nil, formatError("zarr_format is not 3")
	}
	switch z.NodeType {
	case "array", "group":
	default:
		return nil, formatError("node_type %q is not \"array\" or \"group\"", textutil.Clip(z.NodeType))
	}
	return &z, nil
}

// parseArrayV3 reads an array's zarr.json for the array under dir.
func parseArrayV3(dir string, z *zarrJSON) (*array, error) {
	if z.NodeType != "array" {
		return nil, formatError("node_type is %q, not \"array\"", textutil.Clip(z.NodeType))
	}
	if len(z.StorageTransformers) > 0 {
		return nil, unsupported("storage transformers")
	}
	switch z.ChunkGrid.Name {
	case "regular":
	case "":
		return nil, formatError("chunk_grid has no name")
	default:
		return nil, unsupported("chunk grid %q", textutil.Clip(z.ChunkGrid.Name))
	}
	a := &array{dir: dir}
	var err error
	if a.shape, a.chunk, err = shapes(z.Shape, z.ChunkGrid.Configuration.ChunkShape); err != nil {
		return nil, err
	}
	if a.typ, err = dtypeV3(z.DataType); err != nil {
		return nil, err
	}
	if a.fill, err = fillValue(z.FillValue, a.typ); err != nil {
		return nil, err
	}
	if a.keys, err = keyEncodingV3(z.ChunkKeyEncoding); err != nil {
		return nil, err
	}
	if a.pipe, a.shard, err = parseChain(z.Codecs, a.chunk, a.typ, false); err != nil {
		return nil, err
	}
	if a.shard != nil {
		a.chunk = a.shard.inner
	}
	if err := checkChunkBytes(a.chunk, a.typ.dt); err != nil {
		return nil, err
	}
	if len(z.DimensionNames) == len(a.shape) {
		a.names = make([]string, len(a.shape))
		for i, n := range z.DimensionNames {
			if n != nil {
				a.names[i] = *n
			}
		}
	}
	return a, nil
}

// parseChain reads a codec list for chunks of the given shape: array-to-
// array codecs (transpose), one array-to-bytes codec (bytes, or
// sharding_indexed unless nested), then bytes-to-bytes codecs.
func parseChain(specs []codecSpec, chunk []int, st sampleType, nested bool) (pipeline, *sharding, error) {
	var p pipeline
	var sh *sharding
	i := 0
	for ; i < len(specs) && specs[i].Name == "transpose"; i++ {
		perm, err := transposeOrder(specs[i].Configuration, len(chunk))
		if err != nil {
			return p, nil, err
		}
		p.perm = compose(p.perm, perm)
	}
	if isIdentity(p.perm) {
		p.perm = nil
	}
	if i == len(specs) {
		return p, nil, formatError("codecs have no array-to-bytes codec (\"bytes\")")
	}
	switch s := specs[i]; s.Name {
	case "bytes", "endian":
		big, err := bigEndian(s.Configuration)
		if err != nil {
			return p, nil, err
		}
		p.big = big && st.dt.Size() > 1
	case "sharding_indexed":
		if nested {
			return p, nil, unsupported("nested sharding")
		}
		if p.perm != nil {
			return p, nil, unsupported("transpose before sharding_indexed")
		}
		var err error
		if sh, p, err = parseSharding(s.Configuration, chunk, st); err != nil {
			return p, nil, err
		}
		if i+1 < len(specs) {
			return p, nil, unsupported("codec %q after sharding_indexed", textutil.Clip(specs[i+1].Name))
		}
		return p, sh, nil
	default:
		return p, nil, unsupported("codec %q", textutil.Clip(s.Name))
	}
	for _, s := range specs[i+1:] {
		switch s.Name {
		case "bytes", "endian", "transpose", "sharding_indexed":
			return p, nil, formatError("codec %q after the array-to-bytes codec", s.Name)
		}
		c, err := codec.FromV3(s.Name, s.Configuration)
		if err != nil {
			return p, nil, err
		}
		p.codecs = append(p.codecs, c)
	}
	return p, sh, nil
}

// bigEndian reads the "bytes" codec's configuration: whether it says
// "big" (it may be absent for one-byte samples).
func bigEndian(conf json.RawMessage) (bool, error) {
	var c struct{ Endian *string }
	if len(bytes.TrimSpace(conf)) > 0 {
		if err := json.Unmarshal(conf, &c); err != nil {
			return false, formatError("bytes codec: %v", err)
		}
	}
	if c.Endian == nil {
		return false, nil
	}
	switch *c.Endian {
	case "little":
		return false, nil
	case "big":
		return true, nil
	}
	return false, formatError("bytes codec: endian %q is not \"little\" or \"big\"", textutil.Clip(*c.Endian))
}

// transposeOrder reads a transpose codec's "order": a permutation of the
// n axes, or the older "C" and "F".
func transposeOrder(conf json.RawMessage, n int) ([]int, error) {
	var c struct{ Order json.RawMessage }
	if err := json.Unmarshal(conf, &c); err != nil {
		return nil, formatError("transpose codec: %v", err)
	}
	var s string
	if json.Unmarshal(c.Order, &s) == nil {
		switch s {
		case "C":
			return nil, nil
		case "F":
			return reversed(n), nil
		}
		return nil, formatError("transpose order %q is not a permutation", textutil.Clip(s))
	}
	var perm []int
	if err := json.Unmarshal(c.Order, &perm); err != nil || !isPermutation(perm, n) {
		return nil, formatError("transpose order %s is not a permutation of %d axes", textutil.Clip(string(c.Order)), n)
	}
	return perm, nil
}

// isPermutation reports whether p is a permutation of 0..n-1.
func isPermutation(p []int, n int) bool {
	if len(p) != n {
		return false
	}
	seen := make([]bool, n)
	for _, v := range p {
		if v < 0 || v >= n || seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}

// compose returns the permutation of applying first, then second: the
// axis i after both is the original axis first[second[i]].
func compose(first, second []int) []int {
	if first == nil {
		return second
	}
	if second == nil {
		return first
	}
	out := make([]int, len(second))
	for i, s := range second {
		out[i] = first[s]
	}
	return out
}

// isIdentity reports whether p maps every axis to itself.
func isIdentity(p []int) bool {
	for i, v := range p {
		if v != i {
			return false
		}
	}
	return true
}
