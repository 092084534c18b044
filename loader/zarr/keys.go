package zarr

import (
	"encoding/json"
	"strconv"
	"strings"

	"vastview/base/textutil"
)

// keyEncoding turns a chunk's grid index into its store key.
type keyEncoding struct {
	prefix string // "c" for Zarr v3's default encoding, "" otherwise
	sep    byte   // '/' or '.'
}

// key returns the key of chunk idx under the array's path dir ("" for
// the store's root, else ending in "/"): "dir/0.1.2", "dir/0/1/2",
// "dir/c/0/1/2", and for a 0-d array "dir/0" or "dir/c".
func (k keyEncoding) key(dir string, idx []int) string {
	var sb strings.Builder
	sb.Grow(len(dir) + 2 + 4*len(idx))
	sb.WriteString(dir)
	sb.WriteString(k.prefix)
	for i, v := range idx {
		if i > 0 || k.prefix != "" {
			sb.WriteByte(k.sep)
		}
		sb.WriteString(strconv.Itoa(v))
	}
	if len(idx) == 0 && k.prefix == "" {
		sb.WriteByte('0')
	}
	return sb.String()
}

// keyEncodingV2 reads a .zarray "dimension_separator" ("." when absent).
func keyEncodingV2(sep string) (keyEncoding, error) {
	switch sep {
	case "", ".":
		return keyEncoding{sep: '.'}, nil
	case "/":
		return keyEncoding{sep: '/'}, nil
	}
	return keyEncoding{}, formatError("dimension_separator %q is not \".\" or \"/\"", textutil.Clip(sep))
}

// keyEncodingV3 reads a zarr.json "chunk_key_encoding".
func keyEncodingV3(raw json.RawMessage) (keyEncoding, error) {
	var e struct {
		Name          string
		Configuration struct {
			Separator *string
		}
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &e); err != nil {
			return keyEncoding{}, formatError("chunk_key_encoding: %v", err)
		}
	}
	k := keyEncoding{}
	switch e.Name {
	case "", "default":
		k.prefix, k.sep = "c", '/'
	case "v2":
		k.sep = '.'
	default:
		return keyEncoding{}, unsupported("chunk key encoding %q", textutil.Clip(e.Name))
	}
	if s := e.Configuration.Separator; s != nil {
		switch *s {
		case ".", "/":
			k.sep = (*s)[0]
		default:
			return keyEncoding{}, formatError("chunk key separator %q is not \".\" or \"/\"", textutil.Clip(*s))
		}
	}
	return k, nil
}
