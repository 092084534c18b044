package zarr

import (
	"errors"
	"fmt"
	"strings"

	"vastview/loader"
)

// formatError returns a *loader.FormatError with a formatted message.
func formatError(format string, args ...any) error {
	return loader.Errorf("zarr", "%s", oneLine(fmt.Sprintf(format, args...)))
}

// unsupported returns a *loader.UnsupportedError naming the feature.
func unsupported(format string, args ...any) error {
	return &loader.UnsupportedError{Format: "zarr", Feature: oneLine(fmt.Sprintf(format, args...))}
}

// keyed prefixes err's message with a store key, keeping its type: format
// and unsupported errors stay what they are, others are wrapped.
func keyed(key string, err error) error {
	var fe *loader.FormatError
	if errors.As(err, &fe) {
		return formatError("%s: %s", key, fe.Msg)
	}
	var ue *loader.UnsupportedError
	if errors.As(err, &ue) {
		return unsupported("%s (%s)", ue.Feature, key)
	}
	return fmt.Errorf("zarr: %s: %w", key, err)
}

// oneLine replaces line breaks so that a message stays on one line, and
// clips it to a readable length.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
	if len(s) > 300 {
		s = s[:297] + "..."
	}
	return s
}
