package stream

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// ZstdDecoder is the zstd decoder shared by all callers: DecodeAll is safe for concurrent
// use, and with the cap limit it never writes past cap(dst).
var ZstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(runtime.GOMAXPROCS(0)),
		zstd.WithDecodeAllCapLimit(true))
})

// ZstdExact decodes the zstd frames of src into dst, which they must fill
// exactly: a stream that decodes to more or fewer bytes is an error, and
// nothing is written past len(dst).
func ZstdExact(dst, src []byte) error {
	dec, err := ZstdDecoder()
	if err != nil {
		return err
	}
	got, err := dec.DecodeAll(src, dst[:0:len(dst)])
	if err != nil {
		if errors.Is(err, zstd.ErrDecoderSizeExceeded) {
			return fmt.Errorf("zstd stream decodes to more than the %d bytes expected", len(dst))
		}
		if err == io.ErrUnexpectedEOF {
			return errors.New("zstd: stream is truncated")
		}
		return errors.New("zstd: " + strings.TrimPrefix(err.Error(), "zstd: "))
	}
	if len(got) != len(dst) {
		return fmt.Errorf("zstd stream decodes to %d bytes, expected %d", len(got), len(dst))
	}
	if len(got) > 0 && &got[0] != &dst[0] {
		copy(dst, got)
	}
	return nil
}
