package tiff

import (
	"errors"
	"fmt"

	"vastview/loader"
)

// truncated is a format error about bytes that lie beyond the end of the
// file: errors.As finds its *loader.FormatError, and errors.Is matches
// loader.ErrTruncated (through cause, when it is loader.ErrChanged).
type truncated struct {
	fe    loader.FormatError
	cause error // loader.ErrTruncated or loader.ErrChanged
}

// truncErr returns a truncated error; its message ends in "file is
// truncated".
func truncErr(format string, a ...any) error {
	msg := fmt.Sprintf(format, a...) + ": " + loader.ErrTruncated.Error()
	return &truncated{loader.FormatError{Format: "tiff", Msg: msg}, loader.ErrTruncated}
}

// changed turns loader.ErrChanged, the error of a fault on the mapping
// (the file shrank after it was opened), into a truncated error; other
// errors are returned as they are.
func changed(err error) error {
	if err != loader.ErrChanged {
		return err
	}
	return &truncated{loader.FormatError{Format: "tiff", Msg: err.Error()}, err}
}

func (e *truncated) Error() string   { return e.fe.Error() }
func (e *truncated) Unwrap() []error { return []error{&e.fe, e.cause} }

// isTruncated reports whether err says that the file ends too early.
func isTruncated(err error) bool { return errors.Is(err, loader.ErrTruncated) }
