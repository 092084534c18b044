package nrrd

import (
	"strconv"
	"strings"

	"vastview/base/textutil"
	"vastview/loader/internal/rawvol"
)

// dataParts returns where the data is: after the attached header, or in
// the file(s) "data file" names. Skips and codecs are filled in later.
func dataParts(path string, h *header, ax []fileAxis) ([]rawvol.Part, error) {
	desc, ok := h.Fields["data file"]
	if !ok {
		if !h.Blank {
			return nil, formatError("the header ends without a blank line before the data")
		}
		return []rawvol.Part{{Path: path, Start: h.End}}, nil
	}
	f := strings.Fields(desc)
	isList := len(f) > 0 && f[0] == "LIST"
	isPattern := len(f) >= 4 && strings.Contains(f[0], "%")
	if !isList && !isPattern {
		if desc == "" {
			return nil, formatError("the data file field is empty")
		}
		return []rawvol.Part{{Path: resolve(path, desc)}}, nil
	}
	subdim := len(ax) - 1
	at := 1
	if isPattern {
		at = 4
	}
	if len(f) > at {
		var err error
		if subdim, err = parseSubdim(f[at], len(ax)); err != nil {
			return nil, err
		}
	}
	want := 1
	for _, a := range ax[subdim:] {
		if want *= a.size; want > rawvol.MaxFiles {
			return nil, formatError("the sizes need more than %d data files", rawvol.MaxFiles)
		}
	}
	names := h.List
	if isPattern {
		var err error
		if names, err = rawvol.Pattern(f[0], f[1], f[2], f[3], want); err != nil {
			return nil, formatError("%v", err)
		}
	}
	if len(names) != want {
		return nil, formatError("the header names %d data files, its sizes need %d", len(names), want)
	}
	parts := make([]rawvol.Part, len(names))
	for i, n := range names {
		if n == "" {
			return nil, formatError("empty data file name")
		}
		parts[i] = rawvol.Part{Path: resolve(path, n)}
	}
	return parts, nil
}

func parseSubdim(s string, dim int) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 || v > dim {
		return 0, formatError("data file dimension %q is not 1..%d", textutil.Clip(s), dim)
	}
	return v, nil
}
