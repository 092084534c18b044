package metaimage

import (
	"strings"

	"vastview/loader/internal/stream"
)

// header is a parsed MetaImage header: values by lower-case key, the file
// names following "ElementDataFile = LIST", and where the data begins for
// ElementDataFile = LOCAL.
type header = stream.Header

// syntax is how a MetaImage header is written: "Key = Value" lines up to
// and including ElementDataFile (and, for LIST, the file names after it).
var syntax = stream.HeaderSyntax{
	Field: splitField,
	Form:  "Key = Value",
	List:  "elementdatafile",
	Last:  "elementdatafile",
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
