package loader

import "errors"

// ErrFormat means that no registered format recognises the input.
var ErrFormat = errors.New("not a supported image format")

// ErrTruncated means that the file ends before data its header promises.
var ErrTruncated = errors.New("file is truncated")

// FormatError reports a malformed file: the format parsed so far and what is
// wrong with it.
type FormatError struct {
	Format string // e.g. "tiff"
	Msg    string // e.g. "IFD 3: strip offsets exceed the file"
}

func (e *FormatError) Error() string { return e.Format + ": " + e.Msg }

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

// IsNotStored reports whether err says a chunk is absent (see ErrNotStored).
func IsNotStored(err error) bool { return errors.Is(err, ErrNotStored) }
