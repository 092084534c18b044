package store

import (
	"fmt"
	"net/url"
	"strings"
)

// checkKey reports whether key is a valid store key: '/'-separated segments,
// none empty, "." or "..", and no NUL or backslash anywhere.
func checkKey(key string) error {
	if key == "" {
		return fmt.Errorf("%w: empty", ErrInvalidKey)
	}
	if strings.ContainsAny(key, "\x00\\") {
		return fmt.Errorf("%w %q: NUL or backslash", ErrInvalidKey, key)
	}
	for seg := range strings.SplitSeq(key, "/") {
		switch seg {
		case "":
			return fmt.Errorf("%w %q: empty path segment", ErrInvalidKey, key)
		case ".", "..":
			return fmt.Errorf("%w %q: %q segment", ErrInvalidKey, key, seg)
		}
	}
	return nil
}

// escapeKey URL-escapes each segment of a valid key.
func escapeKey(key string) string {
	if !strings.ContainsFunc(key, needsEscape) {
		return key
	}
	segs := strings.Split(key, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// needsEscape reports whether r may need escaping in a path segment; the
// characters Zarr keys are made of never do.
func needsEscape(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return false
	case r == '-', r == '_', r == '.', r == '~', r == '/':
		return false
	}
	return true
}
