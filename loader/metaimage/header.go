package metaimage

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"vastview/base/textutil"
)

// maxHeader bounds the header's size (a LIST of data files can be long).
const maxHeader = 4 << 20

// header is a parsed MetaImage header: values by lower-case key, the file
// names following "ElementDataFile = LIST", and where the data begins for
// ElementDataFile = LOCAL.
type header struct {
	fields map[string]string
	list   []string
	end    int64 // offset just after the ElementDataFile line
}

// readHeader parses "Key = Value" lines up to and including ElementDataFile
// (and, for LIST, the file names after it).
func readHeader(r io.Reader) (*header, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	h := &header{fields: map[string]string{}}
	inList := false
	for {
		line, err := readLine(br, maxHeader-h.end)
		if err != nil && err != io.EOF {
			return nil, err
		}
		h.end += int64(len(line))
		text := strings.TrimSpace(string(line))
		switch {
		case inList:
			if text != "" {
				h.list = append(h.list, text)
			}
		case text == "":
		default:
			key, value, ok := splitField(text)
			if !ok {
				return nil, fmt.Errorf("header line %q is not Key = Value", textutil.Clip(text))
			}
			h.fields[key] = value
			if key == "elementdatafile" {
				if !strings.HasPrefix(value, "LIST") {
					return h, nil
				}
				inList = true
			}
		}
		if err == io.EOF {
			break
		}
	}
	if _, ok := h.fields["elementdatafile"]; !ok {
		return nil, errors.New("the header has no ElementDataFile")
	}
	return h, nil
}

// splitField splits "Key = Value" into the lower-case key and the value.
func splitField(line string) (key, value string, ok bool) {
	k, v, ok := strings.Cut(line, "=")
	if !ok {
		return "", "", false
	}
	k = strings.TrimSpace(k)
	if k == "" || strings.IndexFunc(k, func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_')
	}) >= 0 {
		return "", "", false
	}
	return strings.ToLower(k), strings.TrimSpace(v), true
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

// looksLikeHeader reports whether head starts with MetaImage "Key = Value"
// lines of which one, among the first lines, is NDims or ObjectType = Image.
func looksLikeHeader(head []byte) bool {
	lines := strings.Split(string(head), "\n")
	for i, line := range lines {
		if i >= 40 || (i == len(lines)-1 && len(head) >= 4096) {
			return false // too far, or a line cut off by the end of head
		}
		text := strings.TrimSpace(line)
		if text == "" {
			continue
		}
		key, value, ok := splitField(text)
		if !ok {
			return false
		}
		if key == "ndims" || key == "objecttype" && strings.EqualFold(value, "image") {
			return true
		}
		if key == "elementdatafile" {
			return false
		}
	}
	return false
}
