package stream

import (
	"bufio"
	"compress/bzip2"
	"io"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
)

// Codec is a way the stored bytes of an array are encoded. The zero Codec
// means raw (unencoded) bytes.
type Codec struct {
	// Name is the encoding's name in error messages.
	Name string
	// NewReader returns the decoded stream of r.
	NewReader func(r io.Reader) (io.Reader, error)
	// MaxRatio bounds the decoded bytes one encoded byte can produce; a
	// header claiming more than MaxRatio times the encoded size is wrong.
	MaxRatio int64
}

// Raw reports whether c is the raw (unencoded) codec.
func (c Codec) Raw() bool { return c.NewReader == nil }

// Plausible reports whether encoded bytes of this codec can decode to
// decoded bytes.
func (c Codec) Plausible(encoded, decoded int64) bool {
	if c.Raw() {
		return decoded <= encoded
	}
	return decoded/c.MaxRatio <= encoded
}

// Gzip is the gzip encoding (multi-member streams are read to the end).
var Gzip = Codec{Name: "gzip", NewReader: newGzip, MaxRatio: 1100}

// Zlib is the zlib (RFC 1950) encoding.
var Zlib = Codec{Name: "zlib", NewReader: newZlib, MaxRatio: 1100}

// Bzip2 is the bzip2 encoding. Its worst-case ratio is enormous, so its
// bound only rejects absurd sizes.
var Bzip2 = Codec{Name: "bzip2", NewReader: newBzip2, MaxRatio: 1 << 26}

func newGzip(r io.Reader) (io.Reader, error) {
	return gzip.NewReader(bufio.NewReaderSize(r, 1<<16))
}

func newZlib(r io.Reader) (io.Reader, error) {
	return zlib.NewReader(bufio.NewReaderSize(r, 1<<16))
}

func newBzip2(r io.Reader) (io.Reader, error) {
	return bzip2.NewReader(bufio.NewReaderSize(r, 1<<16)), nil
}
