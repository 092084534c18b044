package loader

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Series describes one image of a file that holds several (a LIF file's
// images, a CZI file's scenes, the groups of a TIFF whose pages differ):
// Meta.Series lists them all, whichever of them a source opened.
type Series struct {
	// Selector opens the series when it follows the path after '#'
	// ("cells.lif#2"): its index in the list, as a decimal string.
	Selector string
	Name     string // the file's name for it ("" when it gives none)
	Axes     string // as Meta.Axes
	Shape    []int  // as Meta.Shape
	DType    DType
}

// SeriesOpener is a Source over one image of a file that holds several. Its
// Meta lists them in Series and says which it is in SeriesIndex; loader.Open
// calls OpenSeries for a path whose selector names another.
type SeriesOpener interface {
	Source
	// OpenSeries opens series i of Meta().Series. The new source is
	// independent of the receiver: either may be closed first.
	OpenSeries(ctx context.Context, i int) (Source, error)
}

// SplitSelector splits "file.lif#2" into the path and the series selector
// after its last '#' ("" when there is none). A local path that exists as
// it is, '#' and all, has no selector; a URL's selector is its fragment,
// which is never sent to the server.
func SplitSelector(path string) (file, selector string) {
	i := strings.LastIndexByte(path, '#')
	if i < 0 {
		return path, ""
	}
	if IsURL(path) || strings.Contains(path, "://") {
		return path[:i], path[i+1:]
	}
	if _, err := os.Stat(path); err == nil {
		return path, ""
	}
	return path[:i], path[i+1:]
}

// WithSelector returns path with the series selector sel ("" leaves path
// as it is).
func WithSelector(path, sel string) string {
	if sel == "" {
		return path
	}
	return path + "#" + sel
}

// SeriesIndex finds the series sel names in list: an index ("2"), else a
// name, matched exactly, then ignoring case, then (for a name that is a
// path from "/") without its leading slash. The error lists what the
// file holds.
func SeriesIndex(list []Series, sel string) (int, error) {
	if i, err := strconv.Atoi(sel); err == nil && i >= 0 && i < len(list) {
		return i, nil
	}
	for i, s := range list {
		if s.Name == sel {
			return i, nil
		}
	}
	for i, s := range list {
		if s.Name != "" && strings.EqualFold(s.Name, sel) {
			return i, nil
		}
	}
	// A path-like name (an HDF5 dataset's "/group/data") matches without
	// its leading slash too.
	for i, s := range list {
		if strings.HasPrefix(s.Name, "/") && s.Name[1:] == strings.TrimPrefix(sel, "/") {
			return i, nil
		}
	}
	if len(list) == 0 {
		if sel == "0" {
			return 0, nil
		}
		return 0, fmt.Errorf("no series %q: the file holds one image (#0)", sel)
	}
	var names []string
	for i, s := range list {
		if i == 8 {
			names = append(names, fmt.Sprintf("… %d more", len(list)-i))
			break
		}
		if s.Name != "" {
			names = append(names, fmt.Sprintf("#%d %q", i, s.Name))
		} else {
			names = append(names, fmt.Sprintf("#%d", i))
		}
	}
	return 0, fmt.Errorf("no series %q: the file holds %d (%s)", sel, len(list), strings.Join(names, ", "))
}

// OpenSelected turns src, just opened from a file, into the series sel
// names ("" for src itself): src when it is that one, else the one src
// opens (src is then closed, also on error).
func OpenSelected(ctx context.Context, src Source, sel string) (Source, error) {
	if sel == "" {
		return src, nil
	}
	m := src.Meta()
	i, err := SeriesIndex(m.Series, sel)
	if err != nil {
		src.Close()
		return nil, err
	}
	if len(m.Series) == 0 || i == m.SeriesIndex {
		return src, nil
	}
	so, ok := src.(SeriesOpener)
	if !ok {
		src.Close()
		return nil, fmt.Errorf("%s: cannot open series %d", m.Format, i)
	}
	s, err := so.OpenSeries(ctx, i)
	src.Close()
	if err != nil {
		return nil, err
	}
	return s, nil
}

// SeriesList is a helper for formats: the Series entry of each of metas,
// selectors their indexes.
func SeriesList(names []string, metas []*Meta) []Series {
	out := make([]Series, len(metas))
	for i, m := range metas {
		out[i] = Series{Selector: strconv.Itoa(i), Axes: m.Axes, Shape: append([]int(nil), m.Shape...), DType: m.DType}
		if i < len(names) {
			out[i].Name = names[i]
		}
	}
	return out
}
