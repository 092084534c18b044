package nrrd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"vastview/base/textutil"
)

// maxHeader bounds the header's size (a LIST of data files can be long).
const maxHeader = 4 << 20

// header is a parsed NRRD header: its fields by lower-case name, the data
// file names following "data file: LIST", and where the header ends.
type header struct {
	fields    map[string]string
	list      []string // file names after "data file: LIST"
	end       int64    // offset just after the blank line ending the header
	blankLine bool     // the header ended with a blank line (else at EOF)
}

// aliases maps alternative field spellings to one name.
var aliases = map[string]string{
	"datafile": "data file", "lineskip": "line skip", "byteskip": "byte skip",
	"centerings": "centers", "oldmin": "old min", "oldmax": "old max",
}

// readHeader parses the header at the start of r.
func readHeader(r io.Reader) (*header, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	h := &header{fields: map[string]string{}}
	first := true
	inList := false
	for {
		line, err := readLine(br, maxHeader-h.end)
		h.end += int64(len(line))
		if err == io.EOF && len(line) == 0 {
			break
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		text := strings.TrimRight(string(line), "\r\n")
		if first {
			if !isMagic(text) {
				return nil, errors.New("no NRRD magic")
			}
			first = false
			continue
		}
		if text == "" {
			if err == io.EOF {
				break
			}
			h.blankLine = true
			break
		}
		switch {
		case inList:
			h.list = append(h.list, strings.TrimSpace(text))
		case strings.HasPrefix(text, "#"):
		case strings.Contains(text, ":="):
			// key/value pairs carry no geometry
		default:
			name, desc, ok := strings.Cut(text, ":")
			if !ok {
				return nil, fmt.Errorf("header line %q is not a field", textutil.Clip(text))
			}
			name = strings.ToLower(strings.TrimSpace(name))
			if a, ok := aliases[strings.ReplaceAll(name, " ", "")]; ok {
				name = a
			}
			desc = strings.TrimSpace(desc)
			h.fields[name] = desc
			if name == "data file" && strings.HasPrefix(desc, "LIST") {
				inList = true
			}
		}
		if err == io.EOF {
			break
		}
	}
	if first {
		return nil, errors.New("no NRRD magic")
	}
	return h, nil
}

// isMagic reports whether s is a NRRD magic line, "NRRD000" and a digit.
func isMagic(s string) bool {
	return len(s) == 8 && strings.HasPrefix(s, "NRRD000") && s[7] >= '0' && s[7] <= '9'
}

// readLine returns the next line including its newline, refusing lines
// that would take the header past limit bytes.
func readLine(br *bufio.Reader, limit int64) ([]byte, error) {
	var line []byte
	for {
		part, err := br.ReadSlice('\n')
		if int64(len(line)+len(part)) > limit {
			return nil, fmt.Errorf("header is longer than %d bytes", maxHeader)
		}
		line = append(line, part...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
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
