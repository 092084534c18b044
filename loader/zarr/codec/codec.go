// Package codec decodes the compressed chunks of Zarr arrays: the Zarr v2
// "compressor" codecs of numcodecs (blosc, zlib, gzip, zstd, lz4, bz2) and
// the Zarr v3 bytes-to-bytes codecs (blosc, gzip, zstd, crc32c).
//
// Blosc is decoded by hand (its container, BloscLZ and the byte and bit
// shuffles); the other formats use klauspost/compress, pierrec/lz4 and the
// standard library. Every length read from a chunk is checked before it is
// used, and no decoder allocates more than the caller's limit for its output.
// Built with GOEXPERIMENT=simd on amd64, the byte unshuffles of 2- and
// 4-byte elements use AVX2.
package codec

import (
	"fmt"

	"vastview/loader"
)

// Codec decodes one stored chunk (bytes -> bytes). Implementations are safe
// for concurrent use.
type Codec interface {
	// Decode decodes src. The result is written into dst's storage when
	// cap(dst) is large enough (dst may be nil) and returned. A decoded size
	// over limit is an error (never allocate more than limit).
	Decode(dst, src []byte, limit int) ([]byte, error)
	// Name is the codec's id, e.g. "blosc", for messages.
	Name() string
}

// errorf returns a *loader.FormatError for a malformed chunk.
func errorf(format string, a ...any) error {
	return loader.Errorf("zarr", format, a...)
}

// unsupported returns a *loader.UnsupportedError naming feature.
func unsupported(format string, a ...any) error {
	return &loader.UnsupportedError{Format: "zarr", Feature: fmt.Sprintf(format, a...)}
}

// tooLarge is the error for a chunk that decodes to more than limit bytes.
func tooLarge(name string, n, limit int) error {
	if n < 0 {
		return errorf("%s: chunk decodes to more than the %d bytes expected", name, limit)
	}
	return errorf("%s: chunk decodes to %d bytes, more than the %d expected", name, n, limit)
}

// outBuf returns a slice of length n, in dst's storage when it is large
// enough.
func outBuf(dst []byte, n int) []byte {
	if cap(dst) >= n {
		return dst[:n]
	}
	return make([]byte, n)
}
