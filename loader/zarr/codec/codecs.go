package codec

import (
	"bytes"
	"compress/bzip2"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"sync"
	"vastview/loader/internal/stream"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// bloscCodec is numcodecs' and Zarr v3's "blosc".
type bloscCodec struct{}

func (bloscCodec) Name() string { return "blosc" }

func (bloscCodec) Decode(dst, src []byte, limit int) ([]byte, error) {
	return Blosc(dst, src, limit)
}

// zlibCodec is numcodecs' "zlib": one zlib stream.
type zlibCodec struct{}

func (zlibCodec) Name() string { return "zlib" }

func (zlibCodec) Decode(dst, src []byte, limit int) ([]byte, error) {
	z, err := getZlib(src)
	if err != nil {
		return dst[:0], errorf("%s", streamErr("zlib", err))
	}
	defer putZlib(z)
	return readLimited(z.zr, dst, 0, limit, "zlib")
}

// gzipCodec is numcodecs' and Zarr v3's "gzip": gzip members.
type gzipCodec struct{}

func (gzipCodec) Name() string { return "gzip" }

var gzipPool sync.Pool

func (gzipCodec) Decode(dst, src []byte, limit int) ([]byte, error) {
	zr, _ := gzipPool.Get().(*gzip.Reader)
	if zr == nil {
		zr = new(gzip.Reader)
	}
	defer gzipPool.Put(zr)
	if err := zr.Reset(bytes.NewReader(src)); err != nil {
		return dst[:0], errorf("%s", streamErr("gzip", err))
	}
	// The trailer holds the last member's size mod 2^32: the whole stream
	// decodes to at least that much.
	isize := int64(binary.LittleEndian.Uint32(src[len(src)-4:]))
	if isize > int64(limit) {
		return dst[:0], tooLarge("gzip", int(isize), limit)
	}
	return readLimited(zr, dst, int(isize), limit, "gzip")
}

// zstdCodec is numcodecs' and Zarr v3's "zstd": zstd frames.
type zstdCodec struct{}

func (zstdCodec) Name() string { return "zstd" }

func (zstdCodec) Decode(dst, src []byte, limit int) ([]byte, error) {
	dec, err := zstdDecoder()
	if err != nil {
		return dst[:0], err
	}
	if len(src) == 0 {
		return dst[:0], errorf("zstd: chunk is empty")
	}
	limit = max(limit, 0)
	size := limit
	var h zstd.Header
	if h.Decode(src) == nil && !h.Skippable && h.HasFCS {
		if h.FrameContentSize > uint64(limit) {
			return dst[:0], tooLarge("zstd", int(min(h.FrameContentSize, 1<<62)), limit)
		}
		size = int(h.FrameContentSize) // exact for the usual single frame
	}
	for {
		var buf []byte
		if c := min(cap(dst), limit); c >= size {
			buf = dst[:0:c]
		} else {
			buf = make([]byte, 0, size)
		}
		out, err := dec.DecodeAll(src, buf)
		if errors.Is(err, zstd.ErrDecoderSizeExceeded) {
			if cap(buf) < limit {
				size = limit // more frames than the first one announced
				continue
			}
			return dst[:0], tooLarge("zstd", -1, limit)
		}
		if err != nil {
			return dst[:0], errorf("%s", streamErr("zstd", err))
		}
		return out, nil
	}
}

// lz4Codec is numcodecs' "lz4": the decoded size as a 4-byte little-endian
// integer, then one LZ4 block.
type lz4Codec struct{}

func (lz4Codec) Name() string { return "lz4" }

func (lz4Codec) Decode(dst, src []byte, limit int) ([]byte, error) {
	if len(src) < 4 {
		return dst[:0], errorf("lz4: chunk of %d bytes is shorter than its 4-byte size", len(src))
	}
	n := int(int32(binary.LittleEndian.Uint32(src)))
	switch {
	case n < 0:
		return dst[:0], errorf("lz4: negative decoded size %d", n)
	case n > limit:
		return dst[:0], tooLarge("lz4", n, limit)
	case n == 0:
		return dst[:0], nil
	}
	out := outBuf(dst, n)
	m, err := lz4.UncompressBlock(src[4:], out)
	if err != nil {
		return dst[:0], errorf("lz4: block is corrupt or decodes to more than %d bytes", n)
	}
	if m != n {
		return dst[:0], errorf("lz4: block decodes to %d bytes, its header says %d", m, n)
	}
	return out, nil
}

// lzmaCodec is numcodecs' "lzma" in its default format: xz streams (one
// block, LZMA2; see stream.XZReader).
type lzmaCodec struct{}

func (lzmaCodec) Name() string { return "lzma" }

func (lzmaCodec) Decode(dst, src []byte, limit int) ([]byte, error) {
	r, err := stream.XZReader(src, limit)
	if err != nil {
		return nil, err
	}
	return readLimited(r, dst, 0, limit, "lzma")
}

// bz2Codec is numcodecs' "bz2": bzip2 streams.
type bz2Codec struct{}

func (bz2Codec) Name() string { return "bz2" }

func (bz2Codec) Decode(dst, src []byte, limit int) ([]byte, error) {
	return readLimited(bzip2.NewReader(bytes.NewReader(src)), dst, 0, limit, "bz2")
}

// crc32cCodec is Zarr v3's "crc32c": the data followed by its CRC-32C
// (Castagnoli) as 4 little-endian bytes.
type crc32cCodec struct{}

func (crc32cCodec) Name() string { return "crc32c" }

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func (crc32cCodec) Decode(dst, src []byte, limit int) ([]byte, error) {
	if len(src) < 4 {
		return dst[:0], errorf("crc32c: chunk of %d bytes is shorter than its checksum", len(src))
	}
	n := len(src) - 4
	if n > limit {
		return dst[:0], tooLarge("crc32c", n, limit)
	}
	want := binary.LittleEndian.Uint32(src[n:])
	if got := crc32.Checksum(src[:n], castagnoli); got != want {
		return dst[:0], errorf("crc32c: checksum mismatch (stored %08x, computed %08x)", want, got)
	}
	out := outBuf(dst, n)
	copy(out, src[:n])
	return out, nil
}

// readLimited reads r to its end into dst's storage (or new storage of at
// most limit bytes, starting from hint), failing when r holds more than
// limit bytes.
func readLimited(r io.Reader, dst []byte, hint, limit int, name string) ([]byte, error) {
	limit = max(limit, 0)
	buf := dst[:0:min(cap(dst), limit)]
	if cap(buf) < hint {
		buf = make([]byte, 0, min(hint, limit))
	}
	for {
		if len(buf) == cap(buf) {
			if len(buf) >= limit {
				switch err := expectEOF(r, make([]byte, 1)); err {
				case nil:
					return buf, nil
				case errMore:
					return dst[:0], tooLarge(name, -1, limit)
				default:
					return dst[:0], errorf("%s", streamErr(name, err))
				}
			}
			grown := make([]byte, len(buf), min(limit, max(2*cap(buf), 64<<10)))
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return dst[:0], errorf("%s", streamErr(name, err))
		}
	}
}
