package omezarr

import (
	"bytes"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// compressor encodes chunks. It is safe for concurrent use.
type compressor interface {
	// compress returns the encoded src, using buf's storage if it fits.
	compress(src, buf []byte) ([]byte, error)
	// close releases the compressor's resources.
	close()
}

// newCompressor returns the compressor for opts.Codec, or nil for "none".
func newCompressor(opts Options) (compressor, error) {
	switch opts.Codec {
	case "zstd":
		enc, err := zstd.NewWriter(nil,
			zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(opts.Level)),
			zstd.WithEncoderConcurrency(opts.Workers),
			zstd.WithEncoderCRC(false))
		if err != nil {
			return nil, err
		}
		return zstdCodec{enc}, nil
	case "gzip":
		return &gzipCodec{level: opts.Level}, nil
	}
	return nil, nil
}

// zstdCodec writes one standard zstd frame per chunk, with the content size
// in the frame header (numcodecs needs it to size its output).
type zstdCodec struct{ enc *zstd.Encoder }

func (z zstdCodec) compress(src, buf []byte) ([]byte, error) {
	return z.enc.EncodeAll(src, buf[:0]), nil
}

func (z zstdCodec) close() { z.enc.Close() }

// gzipCodec writes one gzip member per chunk, reusing its writers.
type gzipCodec struct {
	level int
	pool  sync.Pool // of *gzip.Writer
}

func (g *gzipCodec) compress(src, buf []byte) ([]byte, error) {
	b := bytes.NewBuffer(buf[:0])
	w, _ := g.pool.Get().(*gzip.Writer)
	if w == nil {
		var err error
		if w, err = gzip.NewWriterLevel(b, g.level); err != nil {
			return nil, err
		}
	} else {
		w.Reset(b)
	}
	defer g.pool.Put(w)
	if _, err := w.Write(src); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (*gzipCodec) close() {}
