package stream

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"vastview/loader"
)

// MaxHeader bounds a text header's size (a LIST of data files can be
// long).
const MaxHeader = 4 << 20

// Header is a text header of "name: value" or "Key = Value" lines before
// (or naming) a file's data, as NRRD and MetaImage write them.
type Header struct {
	Fields map[string]string // values by name, as HeaderSyntax.Field gives it
	List   []string          // the file names after a LIST value (see HeaderSyntax.List)
	End    int64             // the offset just after the header
	Blank  bool              // the header ended with a blank line (else at its Last field or the end of r)
}

// HeaderSyntax is how a format writes its header.
type HeaderSyntax struct {
	// Magic, when set, checks the first line (a magic line, not a field),
	// or "" for an empty input.
	Magic func(line string) error
	// Field splits a line (without its line end) into a field's name and
	// value; ok is false for a line that is not a field.
	Field func(line string) (name, value string, ok bool)
	// Form says what a field looks like, for errors ("Key = Value").
	Form string
	// Skip, when set, reports lines that are neither fields nor the end
	// (comments).
	Skip func(line string) bool
	// BlankEnds: an empty line ends the header; else lines of white space
	// are passed over.
	BlankEnds bool
	// List names the field whose value starting with "LIST" makes the
	// following lines, up to the header's end, the file names of List.
	List string
	// Last, when set, names the field that ends the header (unless its
	// value is a LIST).
	Last string
}

// ReadHeader reads the header at the start of r, written as syn says, up
// to MaxHeader bytes.
func ReadHeader(r io.Reader, syn HeaderSyntax) (*Header, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	h := &Header{Fields: map[string]string{}}
	first := syn.Magic != nil
	inList := false
	for {
		line, err := readLine(br, MaxHeader-h.End)
		if err != nil && err != io.EOF {
			return nil, err
		}
		h.End += int64(len(line))
		if err == io.EOF && len(line) == 0 {
			break
		}
		text := strings.TrimRight(string(line), "\r\n")
		blank := text == ""
		if !syn.BlankEnds {
			blank = strings.TrimSpace(text) == ""
		}
		switch {
		case first:
			if err := syn.Magic(text); err != nil {
				return nil, err
			}
			first = false
		case blank && syn.BlankEnds:
			h.Blank = err != io.EOF
			return h, nil
		case blank:
		case inList:
			h.List = append(h.List, strings.TrimSpace(text))
		case syn.Skip != nil && syn.Skip(text):
		default:
			name, value, ok := syn.Field(text)
			if !ok {
				return nil, fmt.Errorf("header line %.40q is not %s", strings.TrimSpace(text), syn.Form)
			}
			h.Fields[name] = value
			if syn.List != "" && name == syn.List && strings.HasPrefix(value, "LIST") {
				inList = true
			} else if syn.Last != "" && name == syn.Last {
				return h, nil
			}
		}
		if err == io.EOF {
			break
		}
	}
	if first {
		return nil, syn.Magic("")
	}
	return h, nil
}

// ReadHeaderFile reads the header at the start of the file at path (see
// ReadHeader). An error opening the file is returned without the path; an
// error in the header is returned through bad, which makes it the
// format's.
func ReadHeaderFile(path string, syn HeaderSyntax, bad func(error) error) (*Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, loader.StripPath(err)
	}
	defer f.Close()
	h, err := ReadHeader(f, syn)
	if err != nil {
		return nil, bad(err)
	}
	return h, nil
}

// readLine returns the next line including its newline, refusing lines
// that would take the header past limit bytes.
func readLine(br *bufio.Reader, limit int64) ([]byte, error) {
	var line []byte
	for {
		part, err := br.ReadSlice('\n')
		if int64(len(line)+len(part)) > limit {
			return nil, fmt.Errorf("header is longer than %d bytes", MaxHeader)
		}
		line = append(line, part...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}
