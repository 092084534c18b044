package nrrd

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"vastview/base/textutil"
	"vastview/loader/internal/stream"
)

// header is a parsed NRRD header: its fields by lower-case name, the data
// file names following "data file: LIST", and where the header ends.
type header = stream.Header

// aliases maps alternative field spellings to one name.
var aliases = map[string]string{
	"datafile": "data file", "lineskip": "line skip", "byteskip": "byte skip",
	"centerings": "centers", "oldmin": "old min", "oldmax": "old max",
}

// syntax is how a NRRD header is written: the magic line, then "name:
// desc" fields up to a blank line; "#" comments and "key:=value" pairs
// (which carry no geometry) are passed over.
var syntax = stream.HeaderSyntax{
	Magic: func(line string) error {
		if !isMagic(line) {
			return errors.New("no NRRD magic")
		}
		return nil
	},
	Field: func(line string) (string, string, bool) {
		name, desc, ok := strings.Cut(line, ":")
		name = strings.ToLower(strings.TrimSpace(name))
		if a, ok := aliases[strings.ReplaceAll(name, " ", "")]; ok {
			name = a
		}
		return name, strings.TrimSpace(desc), ok
	},
	Form: "a field",
	Skip: func(line string) bool {
		return strings.HasPrefix(line, "#") || strings.Contains(line, ":=")
	},
	BlankEnds: true,
	List:      "data file",
}

// isMagic reports whether s is a NRRD magic line, "NRRD000" and a digit.
func isMagic(s string) bool {
	return len(s) == 8 && strings.HasPrefix(s, "NRRD000") && s[7] >= '0' && s[7] <= '9'
}

// ints parses white-space separated integers.
func ints(s string) ([]int64, error) {
	f := strings.Fields(s)
	out := make([]int64, len(f))
	for i, w := range f {
		v, err := strconv.ParseInt(w, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", textutil.Clip(w))
		}
		out[i] = v
	}
	return out, nil
}

// floats parses white-space separated numbers ("nan" allowed).
func floats(s string) ([]float64, error) {
	f := strings.Fields(s)
	out := make([]float64, len(f))
	for i, w := range f {
		v, err := strconv.ParseFloat(w, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", textutil.Clip(w))
		}
		out[i] = v
	}
	return out, nil
}

// strs parses per-axis strings, quoted ("mm" "mm") or bare (domain domain).
func strs(s string) []string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, `"`) {
		return strings.Fields(s)
	}
	var out []string
	for {
		s = strings.TrimSpace(s)
		if !strings.HasPrefix(s, `"`) {
			return out
		}
		end := strings.IndexByte(s[1:], '"')
		if end < 0 {
			return append(out, s[1:])
		}
		out = append(out, s[1:1+end])
		s = s[2+end:]
	}
}

// vectors parses "(1,0,0) none (0,0,2.5)"; a nil entry stands for none.
func vectors(s string) ([][]float64, error) {
	var out [][]float64
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if strings.HasPrefix(strings.ToLower(s), "none") {
			out = append(out, nil)
			s = s[4:]
			continue
		}
		if s[0] != '(' {
			return nil, fmt.Errorf("%q is not a vector", textutil.Clip(s))
		}
		end := strings.IndexByte(s, ')')
		if end < 0 {
			return nil, fmt.Errorf("%q is not a vector", textutil.Clip(s))
		}
		parts := strings.Split(s[1:end], ",")
		v := make([]float64, len(parts))
		for i, p := range parts {
			x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil || math.IsInf(x, 0) {
				return nil, fmt.Errorf("%q is not a vector", textutil.Clip(s[:end+1]))
			}
			v[i] = x
		}
		out = append(out, v)
		s = s[end+1:]
	}
	return out, nil
}

// headerText reports whether b looks like the start of a NRRD file.
func headerText(b []byte) bool {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	return isMagic(strings.TrimRight(string(line), "\r"))
}
