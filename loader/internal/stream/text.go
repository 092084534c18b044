package stream

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"vastview/loader"
)

// maxToken is the longest number a text encoding may hold.
const maxToken = 128

// Text is the encoding of samples of type dt as decimal numbers separated
// by white space (or commas); it decodes them to little-endian samples.
func Text(dt loader.DType) Codec {
	return Codec{
		Name: "text",
		NewReader: func(r io.Reader) (io.Reader, error) {
			return &textReader{r: bufio.NewReaderSize(r, 1<<16), dt: dt}, nil
		},
		MaxRatio: 8,
	}
}

// Hex is the encoding of bytes as pairs of hexadecimal digits, white space
// ignored.
var Hex = Codec{
	Name: "hex",
	NewReader: func(r io.Reader) (io.Reader, error) {
		return &hexReader{r: bufio.NewReaderSize(r, 1<<16)}, nil
	},
	MaxRatio: 1,
}

type textReader struct {
	r    *bufio.Reader
	dt   loader.DType
	n    int64  // samples decoded
	out  []byte // decoded bytes not yet returned
	tok  []byte
	done error
}

func (t *textReader) Read(p []byte) (int, error) {
	for len(t.out) == 0 {
		if t.done != nil {
			return 0, t.done
		}
		if err := t.next(); err != nil {
			t.done = err
		}
	}
	n := copy(p, t.out)
	t.out = t.out[n:]
	return n, nil
}

// next decodes one number into t.out, or returns why it cannot.
func (t *textReader) next() error {
	tok, err := t.token()
	if err != nil {
		return err
	}
	var buf [8]byte
	if err := encodeSample(buf[:], t.dt, string(tok)); err != nil {
		return fmt.Errorf("text sample %d %q: %v", t.n, tok, err)
	}
	t.n++
	t.out = buf[:t.dt.Size()]
	return nil
}

// token returns the next run of non-separator bytes, or io.EOF.
func (t *textReader) token() ([]byte, error) {
	t.tok = t.tok[:0]
	for {
		c, err := t.r.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) && len(t.tok) > 0 {
				return t.tok, nil
			}
			return nil, err
		}
		if isSeparator(c) {
			if len(t.tok) > 0 {
				return t.tok, nil
			}
			continue
		}
		if len(t.tok) >= maxToken {
			return nil, fmt.Errorf("text sample %d is longer than %d characters", t.n, maxToken)
		}
		t.tok = append(t.tok, c)
	}
}

func isSeparator(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == ','
}

// encodeSample writes the number s as a little-endian sample of type dt.
func encodeSample(b []byte, dt loader.DType, s string) error {
	switch dt {
	case loader.Float32:
		v, err := strconv.ParseFloat(s, 32)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return errors.New("not a number")
		}
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v)))
	case loader.Float64:
		v, err := strconv.ParseFloat(s, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return errors.New("not a number")
		}
		binary.LittleEndian.PutUint64(b, math.Float64bits(v))
	default:
		bits := dt.Size() * 8
		var u uint64
		if dt.Signed() {
			v, err := strconv.ParseInt(s, 10, bits)
			if err != nil {
				return fmt.Errorf("not a %v", dt)
			}
			u = uint64(v)
		} else {
			v, err := strconv.ParseUint(s, 10, bits)
			if err != nil {
				return fmt.Errorf("not a %v", dt)
			}
			u = v
		}
		for i := 0; i < dt.Size(); i++ {
			b[i] = byte(u >> (8 * i))
		}
	}
	return nil
}

type hexReader struct {
	r *bufio.Reader
	n int64
}

func (h *hexReader) Read(p []byte) (int, error) {
	for i := range p {
		hi, err := h.digit()
		if err != nil {
			return i, err
		}
		lo, err := h.digit()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return i, err
		}
		p[i] = hi<<4 | lo
		h.n++
	}
	return len(p), nil
}

// digit returns the value of the next hexadecimal digit, skipping space.
func (h *hexReader) digit() (byte, error) {
	for {
		c, err := h.r.ReadByte()
		if err != nil {
			return 0, err
		}
		switch {
		case c >= '0' && c <= '9':
			return c - '0', nil
		case c >= 'a' && c <= 'f':
			return c - 'a' + 10, nil
		case c >= 'A' && c <= 'F':
			return c - 'A' + 10, nil
		case isSeparator(c):
			continue
		}
		return 0, fmt.Errorf("hex byte %d: %q is not a hexadecimal digit", h.n, c)
	}
}
