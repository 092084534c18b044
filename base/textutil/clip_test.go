package textutil

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClipKeepsWholeCharacters(t *testing.T) {
	long := strings.Repeat("é", 39) + "日本語"
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"short", "short"},
		{strings.Repeat("a", 40), strings.Repeat("a", 40)},
		{strings.Repeat("a", 41), strings.Repeat("a", 40) + "…"},
		{long, strings.Repeat("é", 39) + "日…"},
		{strings.Repeat("\xff", 45), strings.Repeat("\xff", 40) + "…"},
	} {
		got := Clip(c.in)
		if got != c.want {
			t.Errorf("Clip(%q) = %q, want %q", c.in, got, c.want)
		}
		if utf8.ValidString(c.in) && !utf8.ValidString(got) {
			t.Errorf("Clip(%q) = %q cuts a character", c.in, got)
		}
	}
}
