package loader

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync/atomic"
)

// ErrFormat means that no registered format recognises the input.
var ErrFormat = errors.New("not a supported image format")

// ErrNotRegular means that a path names something other than a regular
// file or a folder: a named pipe, a device, a socket.
var ErrNotRegular = errors.New("not a regular file or folder")

// notRegular is the ErrNotRegular error for a file of mode m.
func notRegular(m fs.FileMode) error {
	kind := "a special file"
	switch {
	case m&fs.ModeNamedPipe != 0:
		kind = "a named pipe"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeCharDevice != 0:
		kind = "a character device"
	case m&fs.ModeDevice != 0:
		kind = "a block device"
	}
	return &specialFile{kind}
}

// specialFile is ErrNotRegular for a kind of file ("a named pipe").
type specialFile struct{ kind string }

func (e *specialFile) Error() string        { return e.kind + ", not a regular file or folder" }
func (e *specialFile) Is(target error) bool { return target == ErrNotRegular }

// ErrTruncated means that the file ends before data its header promises.
var ErrTruncated = errors.New("file is truncated")

// FormatError reports a malformed file: the format parsed so far and what is
// wrong with it.
type FormatError struct {
	Format string // e.g. "tiff"
	Msg    string // e.g. "IFD 3: strip offsets exceed the file"
}

func (e *FormatError) Error() string { return e.Format + ": " + e.Msg }

// Errorf returns a *FormatError of the named format whose message is
// fmt.Sprintf(msg, args...).
func Errorf(format, msg string, args ...any) error {
	return &FormatError{Format: format, Msg: fmt.Sprintf(msg, args...)}
}

// UnsupportedError reports a valid file that uses a feature not implemented.
type UnsupportedError struct {
	Format  string // e.g. "tiff"
	Feature string // e.g. "JPEG compression"
}

func (e *UnsupportedError) Error() string {
	return e.Format + ": unsupported " + e.Feature
}

// ErrNotStored is returned (possibly wrapped) by ReadChunk when the store
// holds no data for the chunk yet, as in a Zarr array another program is
// still writing. dst has been filled with the array's fill value, so callers
// may show it, but should read the chunk again later rather than keep it.
var ErrNotStored = errors.New("chunk not stored yet")

// ErrClosed is returned (possibly wrapped) by ReadChunk on a source that
// has been closed.
var ErrClosed = errors.New("source is closed")

// Closing is what a source that holds nothing to release keeps to keep
// the Close contract: a read after Close is an error. Keep one in a field,
// call SetClosed from Close and check Closed in ReadChunk. The zero value
// is open; it is safe for concurrent use.
type Closing struct{ closed atomic.Bool }

// SetClosed marks the source closed. It reports whether it already was.
func (c *Closing) SetClosed() bool { return c.closed.Swap(true) }

// Closed returns ErrClosed once SetClosed has been called, else nil.
func (c *Closing) Closed() error {
	if c.closed.Load() {
		return ErrClosed
	}
	return nil
}

// ErrMissing is returned, wrapped together with ErrNotStored, by a
// ReadChunk that finds a chunk absent where the source has reason to
// believe data was stored (a coarser level it stores holds data over the
// chunk): lost data, not one of the chunks Zarr writers leave out because
// they hold only the fill value. dst holds the fill value, as for
// ErrNotStored.
var ErrMissing = errors.New("chunk missing")

// MissingCounter is implemented by sources that count the chunks their
// reads found missing (see ErrMissing): how many distinct chunks, so far.
type MissingCounter interface {
	MissingChunks() int
}

// MissingScanner is implemented by sources that can look for missing
// chunks (see ErrMissing) without reading every chunk, where that is
// cheap (a local Zarr folder of not too many chunks). ScanMissing returns
// how many it found, and they count in MissingChunks from then on.
type MissingScanner interface {
	ScanMissing(ctx context.Context) (int, error)
}

// Missing is the number of chunks reads of src found missing so far (see
// MissingCounter), 0 for a source that does not count them.
func Missing(src Source) int {
	if c, ok := src.(MissingCounter); ok {
		return c.MissingChunks()
	}
	return 0
}

// IsNotStored reports whether err says a chunk is absent (see ErrNotStored).
func IsNotStored(err error) bool { return errors.Is(err, ErrNotStored) }

// StripPath returns err without the path an *fs.PathError or *os.LinkError
// names (callers name the file once, themselves), keeping it as the cause:
// errors.Is(StripPath(err), fs.ErrNotExist) holds for a missing file, and
// errors.As still finds the *fs.PathError. Other errors are returned as
// they are; nil stays nil.
func StripPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &pathless{msg: pe.Err.Error(), cause: err}
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return &pathless{msg: le.Err.Error(), cause: err}
	}
	return err
}

// pathless is an error whose message omits its cause's path.
type pathless struct {
	msg   string
	cause error
}

func (e *pathless) Error() string { return e.msg }
func (e *pathless) Unwrap() error { return e.cause }

// CheckChunk checks the arguments of a ReadChunk call against m: a level
// the source stores, a chunk index inside that level's grid, and a buffer
// of exactly the level's chunk size; then that ctx is still alive. Every
// Source's ReadChunk starts with it, so that a bad call is one clear
// error, never a panic.
func CheckChunk(ctx context.Context, m *Meta, level int, idx []int, dst []byte) error {
	if err := CheckIndex(m, level, idx); err != nil {
		return err
	}
	if want := m.Levels[level].ChunkBytes(m.DType); len(dst) != want {
		return fmt.Errorf("buffer of %d bytes for a chunk of %d", len(dst), want)
	}
	return ctx.Err()
}

// CheckIndex checks that m has the level and that idx lies inside its grid.
func CheckIndex(m *Meta, level int, idx []int) error {
	if level < 0 || level >= len(m.Levels) {
		return fmt.Errorf("no level %d (the source has %d)", level, len(m.Levels))
	}
	l := &m.Levels[level]
	if len(idx) != len(l.Shape) {
		return fmt.Errorf("chunk index %v has %d axes, want %d", idx, len(idx), len(l.Shape))
	}
	for i, v := range idx {
		if n := (l.Shape[i] + l.Chunk[i] - 1) / l.Chunk[i]; v < 0 || v >= n {
			return fmt.Errorf("chunk index %v outside the grid %v", idx, l.Grid())
		}
	}
	return nil
}
