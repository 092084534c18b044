package rawvol

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"vastview/loader"
	"vastview/loader/internal/stream"
)

// Data is an array's stored bytes in stored order. Implementations are safe
// for concurrent use; Close must not race with Read.
type Data interface {
	// Size is the number of stored bytes.
	Size() int64
	// Read returns the n stored bytes at off: either a read-only view of a
	// mapping or buf[:n] filled (buf holds at least n bytes).
	Read(ctx context.Context, off, n int64, buf []byte) ([]byte, error)
	// Close releases files, mappings and background work.
	Close() error
}

// Part is one file holding an array's stored bytes, or an equal share of
// them when the array is split across files.
type Part struct {
	Path        string       // the file
	Start       int64        // where skipping starts, e.g. the end of an attached header
	LineSkip    int          // lines to skip from Start
	ByteSkip    int64        // then file bytes to skip; -1: the data ends at the end of the file
	Codec       stream.Codec // encoding of what follows (zero: raw)
	Encoded     int64        // encoded bytes (0: to the end of the file); needed with ByteSkip -1
	DecodedSkip int64        // decoded bytes to drop before the data
}

// Open returns the size stored bytes held by parts (each holding an equal
// share). A single raw part is mapped; a single encoded part is decoded
// once in the background (see package stream); several parts are read file
// by file on demand, an encoded part decoded from its start at each read.
// Errors name data files by base name only.
func Open(parts []Part, size int64) (Data, error) {
	if len(parts) == 0 || size < 0 || size%int64(len(parts)) != 0 {
		return nil, fmt.Errorf("%d bytes cannot be split evenly across %d data files", size, len(parts))
	}
	if len(parts) == 1 {
		if parts[0].Codec.Raw() {
			return openMapped(parts[0], size)
		}
		return openStreamed(parts[0], size)
	}
	return openPieces(parts, size/int64(len(parts)))
}

// DataFiles returns the paths of parts that are not the file at opened,
// in order and without repeats: what loader.Meta.DataFiles lists.
func DataFiles(opened string, parts []Part) []string {
	paths := make([]string, len(parts))
	for i, p := range parts {
		paths[i] = p.Path
	}
	return OtherFiles(opened, paths...)
}

// OtherFiles returns those of paths that are not the file at opened (by
// name or by identity: a link to it is the same file), in order and
// without repeats.
func OtherFiles(opened string, paths ...string) []string {
	var out []string
	seen := map[string]bool{filepath.Clean(opened): true}
	ost, oerr := os.Stat(opened)
	for _, p := range paths {
		if seen[filepath.Clean(p)] {
			continue
		}
		seen[filepath.Clean(p)] = true
		if st, err := os.Stat(p); oerr == nil && err == nil && os.SameFile(ost, st) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// fileError describes a failure to use the data file at path.
func fileError(path string, err error) error {
	return fmt.Errorf("data file %q: %w", filepath.Base(path), loader.StripPath(err))
}

// skipLines returns the offset just after n newlines counted from start.
func skipLines(r io.ReaderAt, start int64, n int) (int64, error) {
	if n == 0 {
		return start, nil
	}
	buf := make([]byte, 64<<10)
	off := start
	for n > 0 {
		m, _ := r.ReadAt(buf, off)
		if m == 0 {
			return 0, fmt.Errorf("data ends before the %d lines to skip: %w", n, loader.ErrTruncated)
		}
		rest := buf[:m]
		for n > 0 {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				rest = rest[:0]
				break
			}
			rest = rest[i+1:]
			n--
		}
		off += int64(m - len(rest))
	}
	return off, nil
}

// dataStart returns where p's bytes (raw, n of them) begin in a file of
// fileSize bytes readable through r.
func dataStart(p Part, r io.ReaderAt, fileSize, n int64) (int64, error) {
	if p.ByteSkip == -1 {
		if n > fileSize {
			return 0, fmt.Errorf("data needs %d bytes, the file holds %d: %w", n, fileSize, loader.ErrTruncated)
		}
		return fileSize - n, nil
	}
	if p.Start < 0 || p.ByteSkip < 0 || p.LineSkip < 0 {
		return 0, fmt.Errorf("negative skip")
	}
	off, err := skipLines(r, p.Start, p.LineSkip)
	if err != nil {
		return 0, err
	}
	off += p.ByteSkip
	if off > fileSize || n > fileSize-off {
		return 0, fmt.Errorf("data needs %d bytes at offset %d, the file holds %d: %w", n, off, fileSize, loader.ErrTruncated)
	}
	return off, nil
}

// mapped is raw data in one memory-mapped file. Read returns views of the
// mapping: they are read under f's Guard (see Source.ReadChunk).
type mapped struct {
	f    *loader.File
	path string
	off  int64
	size int64
}

// regular checks that path names a regular file: a header must not make
// the reader open a device or a pipe.
func regular(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return fileError(path, err)
	}
	if !st.Mode().IsRegular() {
		return fileError(path, errors.New("not a regular file"))
	}
	return nil
}

func openMapped(p Part, size int64) (Data, error) {
	if err := regular(p.Path); err != nil {
		return nil, err
	}
	f, err := loader.OpenFile(p.Path)
	if err != nil {
		return nil, fileError(p.Path, err)
	}
	off, err := dataStart(p, f, f.Size(), size)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &mapped{f: f, path: p.Path, off: off, size: size}, nil
}

func (m *mapped) Size() int64 { return m.size }

func (m *mapped) file() (*loader.File, string) { return m.f, m.path }

func (m *mapped) Read(_ context.Context, off, n int64, _ []byte) ([]byte, error) {
	if off < 0 || n < 0 || off > m.size-n {
		return nil, fmt.Errorf("%d bytes at %d are outside the data", n, off)
	}
	return m.f.Bytes(m.off+off, n)
}

func (m *mapped) Close() error { return m.f.Close() }

// encodedRange returns where p's encoded bytes lie in a file of fileSize
// bytes, and checks that they can decode to the decoded bytes needed.
func encodedRange(p Part, f io.ReaderAt, fileSize, size int64) (start, length int64, err error) {
	if p.Encoded < 0 || p.DecodedSkip < 0 {
		return 0, 0, fmt.Errorf("negative encoded size")
	}
	if p.ByteSkip == -1 && p.Encoded == 0 {
		return 0, 0, fmt.Errorf("encoded data at the end of the file needs its encoded size")
	}
	start, err = dataStart(p, f, fileSize, p.Encoded)
	if err != nil {
		return 0, 0, err
	}
	length = p.Encoded
	if length == 0 {
		length = fileSize - start
	}
	need := p.DecodedSkip + size
	if need < size || !p.Codec.Plausible(length, need) {
		return 0, 0, fmt.Errorf("%d bytes of %s data cannot hold the %d bytes the header describes", length, p.Codec.Name, need)
	}
	return start, length, nil
}

// streamed is data decoded once in the background.
type streamed struct{ b *stream.Buffer }

func openStreamed(p Part, size int64) (Data, error) {
	if err := regular(p.Path); err != nil {
		return nil, err
	}
	f, err := os.Open(p.Path)
	if err != nil {
		return nil, fileError(p.Path, err)
	}
	b, err := startStream(p, f, size)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &streamed{b: b}, nil
}

func startStream(p Part, f *os.File, size int64) (*stream.Buffer, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, fileError(p.Path, err)
	}
	start, length, err := encodedRange(p, f, st.Size(), size)
	if err != nil {
		return nil, err
	}
	r, err := p.Codec.NewReader(io.NewSectionReader(f, start, length))
	if err != nil {
		return nil, fmt.Errorf("%s data: %v", p.Codec.Name, err)
	}
	return stream.New(r, f, stream.Config{Skip: p.DecodedSkip, Size: size})
}

func (s *streamed) Size() int64 { return s.b.Size() }

func (s *streamed) Read(ctx context.Context, off, n int64, buf []byte) ([]byte, error) {
	if n > int64(len(buf)) {
		return nil, fmt.Errorf("read of %d bytes into a %d-byte buffer", n, len(buf))
	}
	if err := s.b.ReadAt(ctx, buf[:n], off); err != nil {
		return nil, err
	}
	return buf[:n], nil
}

func (s *streamed) Close() error { return s.b.Close() }

// Companions checks the data files of parts that are not the header at
// path with loader.Members (so that under loader.Confine none outside
// the header's folder is read), puts in each part the file to open, and
// returns the note to add to Meta.Notes ("" if every file is in the
// folder).
func Companions(ctx context.Context, path string, parts []Part) (string, error) {
	dir := filepath.Dir(path)
	var idx []int
	var names []string
	for i := range parts {
		if parts[i].Path == path {
			continue
		}
		n := parts[i].Path
		if r, err := filepath.Rel(dir, n); err == nil {
			n = r
		}
		idx, names = append(idx, i), append(names, n)
	}
	files, note, err := loader.Members(ctx, dir, "the data file", names)
	if err != nil {
		return "", err
	}
	for k, i := range idx {
		parts[i].Path = files[k]
	}
	return note, nil
}
