// Package hdf5 reads HDF5 files in pure Go (no libhdf5) and presents
// their datasets as images: every dataset of 2 to 5 dimensions is a
// series, named by its full path ("file.h5#/group/data" opens one; without
// a selector the largest opens). On top of the generic reader sit two
// layouts that describe one image across many datasets: Imaris .ims files
// (resolution levels, time points and channels as groups) and
// BigDataViewer's XML + HDF5 pairs.
//
// The reader follows the HDF5 File Format Specification 3.0: superblocks
// 0 to 3 (also behind a user block), object headers 1 and 2 with their
// continuations, groups as symbol tables (v1 B-tree and local heap) or as
// link messages (compact, or dense in a fractal heap indexed by a v2
// B-tree), attributes (numbers and strings, fixed or variable length
// through the global heap), fixed-point and floating-point samples of 1,
// 2, 4 or 8 bytes in either byte order, and contiguous, compact and chunked
// storage with every chunk index (v1 B-tree, single chunk, implicit,
// fixed array, extensible array, v2 B-tree). Chunks pass through the
// filter pipeline in reverse: deflate, shuffle, Fletcher-32 (its checksum
// is checked), and the registered plugins LZ4 (32004), bitshuffle (32008),
// Blosc (32001) and Zstandard (32015).
//
// Opening parses object headers and nothing else; a chunk's place in the
// file is looked up in its index when the chunk is first read (a lookup
// that visits O(log n) index nodes) and remembered. Reads use ReadAt and
// take no lock, so chunks may be read concurrently. Every size and
// address read from the file is checked against the file's length before
// anything is allocated for it, and index walks are bounded so that a
// cycle ends in an error.
package hdf5

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"vastview/loader"
)

// formatName is the name errors use.
const formatName = "hdf5"

// signature is the superblock's first 8 bytes.
var signature = []byte{0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'}

// undef is the undefined address (all bits set), after reading.
const undef = ^uint64(0)

// errorf is a *loader.FormatError for a malformed file.
func errorf(format string, a ...any) error {
	return loader.Errorf(formatName, format, a...)
}

// unsupported is a *loader.UnsupportedError.
func unsupported(format string, a ...any) error {
	return &loader.UnsupportedError{Format: formatName, Feature: fmt.Sprintf(format, a...)}
}

// File is an opened HDF5 file: its superblock and the means to read
// structures from it. It is safe for concurrent use.
type File struct {
	r        io.ReaderAt
	f        *os.File // nil when r is not a file of ours
	size     int64
	base     uint64 // the base address every address is relative to
	offSize  int    // bytes of an address
	lenSize  int    // bytes of a length
	rootAddr uint64 // the root group's object header
	sbVer    int
	// rootBTree and rootHeap hold the root's cached symbol table (superblocks 0 and 1),
	// used when the root object header has none.
	rootBTree, rootHeap uint64
	// linkCache holds the links of the groups listed so far, by object
	// header address.
	linkCache sync.Map
}

// OpenFile opens the HDF5 file at path.
func OpenFile(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, loader.StripPath(err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, loader.StripPath(err)
	}
	h, err := NewFile(f, st.Size())
	if err != nil {
		f.Close()
		return nil, err
	}
	h.f = f
	return h, nil
}

// Close closes the file OpenFile opened.
func (h *File) Close() error {
	if h.f != nil {
		return h.f.Close()
	}
	return nil
}

// findSuperblock returns the offset of the superblock signature: 0, 512,
// 1024, 2048, ... (a user block may come first).
func findSuperblock(r io.ReaderAt, size int64) (int64, error) {
	buf := make([]byte, 8)
	for off := int64(0); off+8 <= size; {
		if _, err := r.ReadAt(buf, off); err != nil {
			break
		}
		if string(buf) == string(signature) {
			return off, nil
		}
		if off == 0 {
			off = 512
		} else {
			off *= 2
		}
	}
	return 0, loader.ErrFormat
}

// Match reports whether head starts with the HDF5 signature (or holds it
// at 512, 1024 or 2048, after a user block).
func Match(path string, head []byte) bool { return format.Claims(path, head) }

// NewFile reads the superblock of the HDF5 file r of size bytes.
func NewFile(r io.ReaderAt, size int64) (*File, error) {
	at, err := findSuperblock(r, size)
	if err != nil {
		return nil, err
	}
	h := &File{r: r, size: size}
	b := make([]byte, 128)
	n, _ := r.ReadAt(b, at)
	b = b[:n]
	if len(b) < 16 {
		return nil, errorf("the file ends inside its superblock: %v", loader.ErrTruncated)
	}
	h.sbVer = int(b[8])
	rd := &reader{b: b}
	switch h.sbVer {
	case 0, 1:
		rd.off = 13
		h.offSize, h.lenSize = int(b[13]), int(b[14])
		rd.off = 24
		if h.sbVer == 1 {
			rd.off += 4
		}
	case 2, 3:
		h.offSize, h.lenSize = int(b[9]), int(b[10])
		rd.off = 12
	default:
		return nil, unsupported("superblock version %d", h.sbVer)
	}
	if !validSize(h.offSize) || !validSize(h.lenSize) {
		return nil, errorf("superblock: address size %d, length size %d", h.offSize, h.lenSize)
	}
	rd.osz, rd.lsz = h.offSize, h.lenSize
	h.base = rd.addr()
	if h.sbVer <= 1 {
		rd.addr() // free space
		rd.addr() // end of file
		rd.addr() // driver information
		// root symbol table entry
		rd.addr() // link name offset
		h.rootAddr = rd.addr()
		cache := rd.u32()
		rd.u32()
		if cache == 1 {
			h.rootBTree = rd.addr()
			h.rootHeap = rd.addr()
		}
	} else {
		rd.addr() // superblock extension
		rd.addr() // end of file
		h.rootAddr = rd.addr()
	}
	if rd.err != nil {
		return nil, errorf("the file ends inside its superblock: %v", loader.ErrTruncated)
	}
	if h.base == undef || int64(h.base) > size {
		return nil, errorf("superblock: base address %#x outside the file", h.base)
	}
	if h.base == 0 && at != 0 {
		// Writers set the base to the superblock's place behind a user block;
		// an old file may leave it at 0 and mean the same.
		h.base = uint64(at)
	}
	return h, nil
}

func validSize(n int) bool { return n == 2 || n == 4 || n == 8 }

// readAt reads n bytes at address addr (relative to the base), checking
// the range against the file first.
func (h *File) readAt(addr uint64, n int64, what string) ([]byte, error) {
	if addr == undef {
		return nil, errorf("%s: undefined address", what)
	}
	abs := addr + h.base
	if abs < addr || n < 0 || abs > uint64(h.size) || uint64(n) > uint64(h.size)-abs {
		return nil, errorf("%s: %d bytes at %#x exceed the file of %d bytes", what, n, addr, h.size)
	}
	b := make([]byte, n)
	if m, err := h.r.ReadAt(b, int64(abs)); m < len(b) {
		if err == nil || errors.Is(err, io.EOF) {
			err = loader.ErrTruncated
		}
		return nil, errorf("%s: %v", what, err)
	}
	return b, nil
}

// readInto reads len(b) bytes at addr into b, checking the range first.
func (h *File) readInto(b []byte, addr uint64, what string) error {
	abs := addr + h.base
	n := uint64(len(b))
	if addr == undef || abs < addr || abs > uint64(h.size) || n > uint64(h.size)-abs {
		return errorf("%s: %d bytes at %#x exceed the file of %d bytes", what, n, addr, h.size)
	}
	if m, err := h.r.ReadAt(b, int64(abs)); m < len(b) {
		if err == nil || errors.Is(err, io.EOF) {
			err = loader.ErrTruncated
		}
		return errorf("%s: %v", what, err)
	}
	return nil
}

// readUpTo reads up to n bytes at addr, fewer where the file ends.
func (h *File) readUpTo(addr uint64, n int64, what string) ([]byte, error) {
	if addr == undef {
		return nil, errorf("%s: undefined address", what)
	}
	abs := addr + h.base
	if abs < addr || abs >= uint64(h.size) {
		return nil, errorf("%s: address %#x outside the file of %d bytes", what, addr, h.size)
	}
	if rest := uint64(h.size) - abs; uint64(n) > rest {
		n = int64(rest)
	}
	return h.readAt(addr, n, what)
}

// reader decodes little-endian fields from b; a read past the end sets err
// and returns zeros.
type reader struct {
	b        []byte
	off      int
	osz, lsz int
	err      error
}

func (r *reader) need(n int) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || r.off+n > len(r.b) || r.off+n < r.off {
		r.err = io.ErrUnexpectedEOF
		return false
	}
	return true
}

func (r *reader) bytes(n int) []byte {
	if !r.need(n) {
		return nil
	}
	b := r.b[r.off : r.off+n]
	r.off += n
	return b
}

func (r *reader) skip(n int) { r.bytes(n) }

func (r *reader) u8() uint8 {
	if !r.need(1) {
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

func (r *reader) u16() uint16 {
	if !r.need(2) {
		return 0
	}
	r.off += 2
	return binary.LittleEndian.Uint16(r.b[r.off-2:])
}

func (r *reader) u32() uint32 {
	if !r.need(4) {
		return 0
	}
	r.off += 4
	return binary.LittleEndian.Uint32(r.b[r.off-4:])
}

func (r *reader) u64() uint64 { return r.uint(8) }

// uint reads an n-byte little-endian unsigned integer (n ≤ 8).
func (r *reader) uint(n int) uint64 {
	if n > 8 {
		b := r.bytes(n)
		if b == nil {
			return 0
		}
		return leUint(b[:8])
	}
	b := r.bytes(n)
	if b == nil {
		return 0
	}
	return leUint(b)
}

// addr reads an address; all bits set is undef.
func (r *reader) addr() uint64 {
	b := r.bytes(r.osz)
	if b == nil {
		return undef
	}
	allOnes := true
	for _, c := range b {
		if c != 0xff {
			allOnes = false
		}
	}
	if allOnes {
		return undef
	}
	return leUint(b)
}

// length reads a length field.
func (r *reader) length() uint64 { return r.uint(r.lsz) }

func (r *reader) rest() int { return len(r.b) - r.off }

func leUint(b []byte) uint64 {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// newReader is a reader over b with h's field sizes.
func (h *File) newReader(b []byte) *reader { return &reader{b: b, osz: h.offSize, lsz: h.lenSize} }

// asFormatError is errors.As for a *loader.FormatError.
func asFormatError(err error, fe **loader.FormatError) bool { return errors.As(err, fe) }
