// Package textutil holds the small string helpers every layer uses.
package textutil

import "unicode/utf8"

// ClipLen is the length, in characters, Clip cuts to.
const ClipLen = 40

// Clip shortens s, a name or value quoted in a message, to its first
// ClipLen characters followed by "…"; a shorter s is returned as it is.
// It never cuts a UTF-8 sequence: a byte that is not valid UTF-8 counts as
// one character and is kept as it is. It is safe for concurrent use.
func Clip(s string) string {
	i := 0
	for n := 0; i < len(s); n++ {
		if n == ClipLen {
			return s[:i] + "…"
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s
}
