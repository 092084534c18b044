package codec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"vastview/loader/internal/stream"

	"github.com/klauspost/compress/zlib"
	"github.com/pierrec/lz4/v4"
)

// lz4Block decodes one LZ4 block into dst, which it must fill exactly.
func lz4Block(dst, src []byte) error {
	n, err := lz4.UncompressBlock(src, dst)
	if err != nil {
		return errors.New("LZ4 block is corrupt or decodes past its end")
	}
	if n != len(dst) {
		return fmt.Errorf("LZ4 block decodes to %d bytes, expected %d", n, len(dst))
	}
	return nil
}

// inflater is a reusable zlib reader over an in-memory stream.
type inflater struct {
	br    bytes.Reader
	zr    io.ReadCloser
	probe [1]byte // for expectEOF, here to avoid an allocation per stream
}

var zlibPool sync.Pool

// getZlib returns a pooled zlib reader positioned at the start of src.
func getZlib(src []byte) (*inflater, error) {
	z, _ := zlibPool.Get().(*inflater)
	if z == nil {
		z = new(inflater)
		z.br.Reset(src)
		zr, err := zlib.NewReader(&z.br)
		if err != nil {
			return nil, err
		}
		z.zr = zr
		return z, nil
	}
	z.br.Reset(src)
	if err := z.zr.(zlib.Resetter).Reset(&z.br, nil); err != nil {
		zlibPool.Put(z)
		return nil, err
	}
	return z, nil
}

func putZlib(z *inflater) {
	z.br.Reset(nil)
	zlibPool.Put(z)
}

// zlibExact decodes one zlib stream into dst, which it must fill exactly
// (c-blosc calls zlib's uncompress).
func zlibExact(dst, src []byte) error {
	z, err := getZlib(src)
	if err != nil {
		return errors.New(streamErr("zlib", err))
	}
	defer putZlib(z)
	if n, err := io.ReadFull(z.zr, dst); err != nil {
		if err == io.ErrUnexpectedEOF {
			return fmt.Errorf("zlib stream decodes to %d bytes, expected %d", n, len(dst))
		}
		return errors.New(streamErr("zlib", err))
	}
	switch err := expectEOF(z.zr, z.probe[:]); err {
	case nil:
		return nil
	case errMore:
		return errors.New("zlib stream decodes to more bytes than its block")
	default:
		return errors.New(streamErr("zlib", err))
	}
}

// errMore means a stream holds more data than its destination.
var errMore = errors.New("stream holds more data")

// expectEOF checks that r has nothing more to give (and lets a checksumming
// reader verify its trailer), reading into probe (one byte).
func expectEOF(r io.Reader, probe []byte) error {
	for range 100 {
		n, err := r.Read(probe)
		if n > 0 {
			return errMore
		}
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
	return io.ErrNoProgress
}

// streamErr describes err from the name decoder in one line without
// repeating the name.
func streamErr(name string, err error) string {
	if err == io.ErrUnexpectedEOF {
		return name + ": stream is truncated"
	}
	msg := strings.TrimPrefix(err.Error(), name+": ")
	return name + ": " + msg
}

// The zstd decoder and exact decoding are the loaders' shared ones.
var (
	zstdDecoder = stream.ZstdDecoder
	zstdExact   = stream.ZstdExact
)
