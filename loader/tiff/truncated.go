package tiff

import (
	"errors"
	"fmt"

	"vastview/loader"
)

// truncated is a format error about bytes that lie beyond the end of the
// file: errors.As finds its *loader.FormatError, and errors.Is matches
// loader.ErrTruncated.
type truncated struct{ fe loader.FormatError }

// truncErr returns a truncated error; its message ends in "file is
// truncated".
func truncErr(format string, a ...any) error {
	msg := fmt.Sprintf(format, a...) + ": " + loader.ErrTruncated.Error()
	return &truncated{loader.FormatError{Format: "tiff", Msg: msg}}
}

func (e *truncated) Error() string   { return e.fe.Error() }
func (e *truncated) Unwrap() []error { return []error{&e.fe, loader.ErrTruncated} }

// isTruncated reports whether err says that the file ends too early.
func isTruncated(err error) bool { return errors.Is(err, loader.ErrTruncated) }
