package stream

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// colon is a header of "name: value" fields after a magic line, ended by a
// blank line, with "#" comments; eq one of "Key = Value" fields ended by
// the field "last".
var (
	colon = HeaderSyntax{
		Magic: func(line string) error {
			if line != "MAGIC" {
				return errors.New("no magic")
			}
			return nil
		},
		Field: func(line string) (string, string, bool) {
			k, v, ok := strings.Cut(line, ":")
			return strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v), ok
		},
		Form:      "a field",
		Skip:      func(line string) bool { return strings.HasPrefix(line, "#") },
		BlankEnds: true,
		List:      "files",
	}
	eq = HeaderSyntax{
		Field: func(line string) (string, string, bool) {
			k, v, ok := strings.Cut(line, "=")
			return strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v), ok
		},
		Form: "Key = Value",
		List: "last",
		Last: "last",
	}
)

func TestReadHeader(t *testing.T) {
	for _, c := range []struct {
		name, in string
		syn      HeaderSyntax
		want     string // fields, list, end, blank; or the error
	}{
		{"colon", "MAGIC\r\n# note\nType: uint8\nSizes: 3 4\n\ndata", colon, "map[sizes:3 4 type:uint8] [] 38 true"},
		{"colon at EOF", "MAGIC\nType: uint8\n", colon, "map[type:uint8] [] 18 false"},
		{"colon list", "MAGIC\nfiles: LIST\na.raw\n# b.raw\n\nrest", colon, "map[files:LIST] [a.raw # b.raw] 33 true"},
		{"no magic", "MAGIX\n", colon, "no magic"},
		{"empty", "", colon, "no magic"},
		{"not a field", "MAGIC\ngarbage\n\n", colon, `header line "garbage" is not a field`},
		{"eq", "A = 1\n  \nLast = LOCAL\nbinary", eq, "map[a:1 last:LOCAL] [] 22 false"},
		{"eq list", "A = 1\nLast = LIST\n x.raw \n\ny.raw", eq, "map[a:1 last:LIST] [x.raw y.raw] 32 false"},
		{"long line", "A = 1\n" + strings.Repeat("é", 50) + "\n", eq, `header line "` + strings.Repeat("é", 40) + `" is not Key = Value`},
		{"too long", strings.Repeat("A = 1\n", MaxHeader/6+1), eq, fmt.Sprintf("header is longer than %d bytes", MaxHeader)},
	} {
		h, err := ReadHeader(strings.NewReader(c.in), c.syn)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = fmt.Sprint(h.Fields, " ", h.List, " ", h.End, " ", h.Blank)
		}
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
