package codec

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Codecs are stateless values: one of each serves every array.
var (
	theBlosc  Codec = bloscCodec{}
	theZlib   Codec = zlibCodec{}
	theGzip   Codec = gzipCodec{}
	theZstd   Codec = zstdCodec{}
	theLZ4    Codec = lz4Codec{}
	theBZ2    Codec = bz2Codec{}
	theLZMA   Codec = lzmaCodec{}
	theCRC32C Codec = crc32cCodec{}
)

// v2Codecs maps numcodecs ids to codecs.
var v2Codecs = map[string]Codec{
	"blosc": theBlosc,
	"zlib":  theZlib,
	"gzip":  theGzip,
	"zstd":  theZstd,
	"lz4":   theLZ4,
	"bz2":   theBZ2,
	"lzma":  theLZMA,
}

// FromV2 returns the codec for a Zarr v2 .zarray "compressor" object (JSON;
// nil or `null` -> nil Codec, meaning raw bytes). Known ids: "blosc",
// "zlib", "gzip", "zstd", "lz4" (numcodecs LZ4: 4-byte little-endian
// uncompressed size then an LZ4 block), "bz2", "lzma" (xz streams, numcodecs'
// default format). An unknown id is a
// *loader.UnsupportedError. The codecs' parameters (levels, shuffle) are
// not needed to decode and are not checked.
func FromV2(compressor json.RawMessage) (Codec, error) {
	raw := bytes.TrimSpace(compressor)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] != '{' {
		return nil, errorf("compressor is not a JSON object")
	}
	var c struct {
		ID *string `json:"id"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, errorf("compressor: %s", jsonErr(err))
	}
	if c.ID == nil {
		return nil, errorf(`compressor has no "id"`)
	}
	if *c.ID == "lzma" {
		if err := checkLZMA(raw); err != nil {
			return nil, err
		}
	}
	if k, ok := v2Codecs[*c.ID]; ok {
		return k, nil
	}
	return nil, unsupported("codec %q", *c.ID)
}

// checkLZMA accepts numcodecs' LZMA configurations whose streams are xz
// (format 1, its default); the others (lzma "alone", raw) are refused.
func checkLZMA(raw []byte) error {
	var c struct {
		Format *int `json:"format"`
	}
	if raw != nil {
		if err := json.Unmarshal(raw, &c); err != nil {
			return errorf("lzma codec: %s", jsonErr(err))
		}
	}
	if c.Format != nil && *c.Format != 1 {
		return unsupported("lzma codec of format %d (xz, format 1, is read)", *c.Format)
	}
	return nil
}

// FromV3 returns the codec for a Zarr v3 bytes->bytes codec entry: "gzip",
// "zstd", "blosc" (configuration: cname, clevel, shuffle "noshuffle" |
// "shuffle" | "bitshuffle", typesize, blocksize; checked, though a Blosc
// chunk describes itself), "crc32c" (verifies and strips the 4-byte
// CRC-32C), and the numcodecs codecs as zarr-python names them
// ("numcodecs.zlib", "numcodecs.lz4", "numcodecs.bz2", ...). An unknown name
// is a *loader.UnsupportedError.
func FromV3(name string, configuration json.RawMessage) (Codec, error) {
	raw := bytes.TrimSpace(configuration)
	if len(raw) == 0 || string(raw) == "null" {
		raw = nil
	} else if raw[0] != '{' {
		return nil, errorf("codec %q: configuration is not a JSON object", name)
	}
	switch name {
	case "gzip":
		return theGzip, nil
	case "zstd":
		return theZstd, nil
	case "crc32c":
		return theCRC32C, nil
	case "blosc":
		if err := checkBloscV3(raw); err != nil {
			return nil, err
		}
		return theBlosc, nil
	}
	if id, ok := strings.CutPrefix(name, "numcodecs."); ok {
		if id == "lzma" {
			if err := checkLZMA(raw); err != nil {
				return nil, err
			}
		}
		if k, ok := v2Codecs[id]; ok {
			return k, nil
		}
	}
	return nil, unsupported("codec %q", name)
}

// checkBloscV3 checks a v3 blosc configuration against the Zarr v3 spec.
func checkBloscV3(raw []byte) error {
	if raw == nil {
		return nil
	}
	var c struct {
		Cname     *string `json:"cname"`
		Clevel    *int    `json:"clevel"`
		Shuffle   *string `json:"shuffle"`
		Typesize  *int    `json:"typesize"`
		Blocksize *int    `json:"blocksize"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return errorf("blosc codec: %s", jsonErr(err))
	}
	if c.Cname != nil {
		switch *c.Cname {
		case "blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd":
		default:
			return errorf("blosc codec: unknown cname %q", *c.Cname)
		}
	}
	if c.Shuffle != nil {
		switch *c.Shuffle {
		case "noshuffle", "shuffle", "bitshuffle":
		default:
			return errorf("blosc codec: unknown shuffle %q", *c.Shuffle)
		}
	}
	for _, f := range []struct {
		name string
		v    *int
		max  int
	}{{"clevel", c.Clevel, 9}, {"typesize", c.Typesize, 1 << 30}, {"blocksize", c.Blocksize, 1 << 31}} {
		if f.v != nil && (*f.v < 0 || *f.v > f.max) {
			return errorf("blosc codec: %s %d is outside 0..%d", f.name, *f.v, f.max)
		}
	}
	return nil
}

// jsonErr shortens an encoding/json error to its message.
func jsonErr(err error) string {
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return msg
}
