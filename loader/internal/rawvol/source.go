// Package rawvol is the Source shared by the raw-array formats (NRRD,
// MetaImage, NIfTI): an array stored sample after sample in C order, in
// either byte order, optionally with its channels interleaved, in one or
// more files, raw or encoded. A format parses its header into a Meta and a
// Spec; this package does the rest.
//
// Chunks are planes: every axis before Y has chunk length 1, Y and X (and
// an interleaved C axis, which sits just before Y) are whole. A plane is
// contiguous in the stored bytes, so a raw plane is copied once from the
// mapped file into dst, swapping bytes or de-interleaving on the way, under
// the mapping's guard (see loader.File): a file that shrinks while it is
// open fails the reads of what it lost instead of crashing the program.
package rawvol

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	"vastview/loader"
)

// Source reads planes of a raw array. It is safe for concurrent use.
type Source struct {
	meta       *loader.Meta
	data       Data
	mapped     *loader.File // the mapped data file, read under its guard, or nil
	dataName   string       // its base name when it is not the opened file
	planeBytes int64
	inner      int  // trailing axes that a chunk covers whole
	swap       bool // samples are stored big-endian
	channels   int  // interleaved channels per pixel (1: planar)
	pool       sync.Pool
	closeOnce  sync.Once
	closeErr   error
}

// PlaneChunk returns the chunk shape for an array of the given shape:
// whole Y and X (and C when interleaved), 1 elsewhere.
func PlaneChunk(shape []int, interleaved bool) []int {
	n := len(shape)
	inner := innerAxes(interleaved)
	chunk := make([]int, n)
	for i := range chunk {
		chunk[i] = 1
		if i >= n-inner {
			chunk[i] = shape[i]
		}
	}
	return chunk
}

func innerAxes(interleaved bool) int {
	if interleaved {
		return 3
	}
	return 2
}

// New makes a Source of data laid out as meta describes. meta must be
// valid, with Levels[0].Chunk from PlaneChunk. bigEndian says the stored
// samples are big-endian; interleaved says the C axis (just before Y in
// meta.Axes) is stored fastest of all. New takes ownership of data: it is
// closed by Close, or at once if New fails.
func New(meta *loader.Meta, data Data, bigEndian, interleaved bool) (*Source, error) {
	fail := func(msg string) (*Source, error) {
		data.Close()
		return nil, &loader.FormatError{Format: meta.Format, Msg: msg}
	}
	if err := meta.Validate(); err != nil {
		return fail(err.Error())
	}
	n := len(meta.Axes)
	inner := innerAxes(interleaved)
	if interleaved && (n < 3 || meta.Axes[n-3] != 'C') {
		return fail("interleaved channels need axes ending in CYX")
	}
	want := PlaneChunk(meta.Shape, interleaved)
	for i, c := range meta.Levels[0].Chunk {
		if c != want[i] {
			return fail("chunks are not planes")
		}
	}
	s := &Source{
		meta: meta, data: data, inner: inner,
		planeBytes: int64(meta.Levels[0].ChunkBytes(meta.DType)),
		swap:       bigEndian && meta.DType.Size() > 1,
		channels:   1,
	}
	if interleaved {
		s.channels = meta.Shape[n-3]
	}
	var f *loader.File
	var path string
	if fd, ok := data.(fileData); ok {
		f, path = fd.file()
	}
	if f != nil {
		s.mapped = f
		if slices.Contains(meta.DataFiles, path) {
			s.dataName = filepath.Base(path)
		}
	}
	total := s.planeBytes
	for _, v := range meta.Shape[:n-inner] {
		total *= int64(v)
	}
	if total != data.Size() {
		return fail(fmt.Sprintf("data holds %d bytes, the array needs %d", data.Size(), total))
	}
	return s, nil
}

// Meta describes the array.
func (s *Source) Meta() *loader.Meta { return s.meta }

// ReadChunk fills dst with the plane at idx; see loader.Source. A mapped
// data file that has shrunk since it was opened fails the reads of the
// planes it lost with an error matching loader.ErrTruncated and
// loader.ErrChanged.
func (s *Source) ReadChunk(ctx context.Context, level int, idx []int, dst []byte) error {
	if err := loader.CheckChunk(ctx, s.meta, level, idx, dst); err != nil {
		return err
	}
	err := s.read(ctx, idx, dst)
	switch {
	case err == nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case err == loader.ErrChanged && s.dataName != "":
		return s.readError(fmt.Sprintf("reading data file %q", s.dataName), err)
	}
	return s.readError("reading data", err)
}

// read fills dst with the plane at idx, consuming a view of the mapping
// under its guard.
func (s *Source) read(ctx context.Context, idx []int, dst []byte) (err error) {
	defer s.mapped.Guard().Recover(&err)
	off := s.offset(idx)
	direct := !s.swap && s.channels == 1
	var buf []byte
	if direct {
		buf = dst
	} else {
		bp := s.scratch()
		defer s.pool.Put(bp)
		buf = *bp
	}
	src, err := s.data.Read(ctx, off, s.planeBytes, buf)
	if err != nil {
		return err
	}
	convert(dst, src, s.meta.DType.Size(), s.swap, s.channels)
	return nil
}

// readError is a FormatError of the source's format about a failed read
// (what: "reading data") that keeps err as its cause.
func (s *Source) readError(what string, err error) error {
	return &readError{loader.FormatError{Format: s.meta.Format, Msg: what + ": " + err.Error()}, err}
}

// readError is a failed read: errors.As finds its *loader.FormatError, and
// errors.Is its cause (loader.ErrTruncated for data that ends early).
type readError struct {
	fe    loader.FormatError
	cause error
}

func (e *readError) Error() string   { return e.fe.Error() }
func (e *readError) Unwrap() []error { return []error{&e.fe, e.cause} }

// offset returns the byte offset of the plane a (checked) chunk index names.
func (s *Source) offset(idx []int) int64 {
	m := s.meta
	plane := int64(0)
	for i, v := range idx[:len(idx)-s.inner] {
		plane = plane*int64(m.Shape[i]) + int64(v)
	}
	return plane * s.planeBytes
}

func (s *Source) scratch() *[]byte {
	if bp, ok := s.pool.Get().(*[]byte); ok {
		return bp
	}
	b := make([]byte, s.planeBytes)
	return &b
}

// Close releases the data's files and any background decoding. It is safe
// to call more than once.
func (s *Source) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.data.Close() })
	return s.closeErr
}

// maxArrayBytes is the largest array this package describes (as
// loader.Meta.Validate allows).
const maxArrayBytes = 1 << 50

// ArrayBytes returns the byte size of an array of the given shape and
// sample type, or an error when a length is not positive or the size is
// too large to be real; it never overflows.
func ArrayBytes(shape []int, dt loader.DType) (int64, error) {
	total := int64(dt.Size())
	if total == 0 {
		return 0, fmt.Errorf("no sample type")
	}
	for _, v := range shape {
		if v <= 0 {
			return 0, fmt.Errorf("array shape %v has a length below 1", shape)
		}
		if int64(v) > maxArrayBytes/total {
			return 0, fmt.Errorf("array of shape %v is too large", shape)
		}
		total *= int64(v)
	}
	return total, nil
}
