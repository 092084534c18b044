package rawvol

import (
	"context"
	"fmt"

	"vastview/loader"
)

// framed is an array whose planes (frames) lie apart in one mapped file,
// each frameBytes long at the offset at gives for it: a camera's movie,
// each frame behind a header of its own or among time stamps. It presents
// the planes as if they were stored one after another.
type framed struct {
	f          *loader.File
	path       string
	frames     int
	frameBytes int64
	at         func(f *loader.File, i int) (int64, error)
}

// Framed maps the file at path and returns its frames planes of
// frameBytes each, frame i at the file offset at(f, i) (checked against
// the file at every read; at may read the mapping, under the Source's
// guard, to find it). Reads are whole frames.
func Framed(path string, frames int, frameBytes int64, at func(f *loader.File, i int) (int64, error)) (Data, error) {
	if frames < 1 || frameBytes < 1 {
		return nil, fmt.Errorf("%d frames of %d bytes", frames, frameBytes)
	}
	if err := regular(path); err != nil {
		return nil, err
	}
	f, err := loader.OpenFile(path)
	if err != nil {
		return nil, fileError(path, err)
	}
	return &framed{f: f, path: path, frames: frames, frameBytes: frameBytes, at: at}, nil
}

func (d *framed) Size() int64 { return int64(d.frames) * d.frameBytes }

func (d *framed) Read(_ context.Context, off, n int64, _ []byte) ([]byte, error) {
	if n != d.frameBytes || off < 0 || off%d.frameBytes != 0 || off/d.frameBytes >= int64(d.frames) {
		return nil, fmt.Errorf("%d bytes at %d are not a frame", n, off)
	}
	i := int(off / d.frameBytes)
	start, err := d.at(d.f, i)
	if err != nil {
		return nil, fmt.Errorf("frame %d: %w", i, err)
	}
	if start < 0 || start > d.f.Size()-n {
		return nil, fmt.Errorf("frame %d at %d: %w (the file has %d bytes)", i, start, loader.ErrTruncated, d.f.Size())
	}
	return d.f.Bytes(start, n)
}

func (d *framed) Close() error { return d.f.Close() }

func (d *framed) file() (*loader.File, string) { return d.f, d.path }

// bottomUp is a Data whose planes are stored last row first, presented
// top row first.
type bottomUp struct {
	Data
	rows     int
	rowBytes int64
}

// BottomUp presents the planes of d, each rows rows of rowBytes stored
// last row first (as Windows bitmaps are), top row first.
func BottomUp(d Data, rows int, rowBytes int64) Data {
	return &bottomUp{Data: d, rows: rows, rowBytes: rowBytes}
}

func (d *bottomUp) Read(ctx context.Context, off, n int64, buf []byte) ([]byte, error) {
	if n != int64(d.rows)*d.rowBytes || int64(len(buf)) < n {
		return nil, fmt.Errorf("%d bytes at %d are not a plane", n, off)
	}
	src, err := d.Data.Read(ctx, off, n, buf)
	if err != nil {
		return nil, err
	}
	out := buf[:n]
	if &src[0] == &out[0] { // read into buf: swap the rows in place
		tmp := make([]byte, d.rowBytes)
		for i, j := int64(0), int64(d.rows-1); i < j; i, j = i+1, j-1 {
			a, b := out[i*d.rowBytes:][:d.rowBytes], out[j*d.rowBytes:][:d.rowBytes]
			copy(tmp, a)
			copy(a, b)
			copy(b, tmp)
		}
		return out, nil
	}
	for i := int64(0); i < int64(d.rows); i++ {
		copy(out[i*d.rowBytes:][:d.rowBytes], src[(int64(d.rows)-1-i)*d.rowBytes:][:d.rowBytes])
	}
	return out, nil
}

func (d *bottomUp) file() (*loader.File, string) {
	if f, ok := d.Data.(fileData); ok {
		return f.file()
	}
	return nil, ""
}

// fileData is a Data read from one mapped file, whose reads run under its
// guard.
type fileData interface {
	file() (*loader.File, string)
}
