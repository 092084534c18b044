package sequence

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"vastview/loader"
)

// frameExts are the file name endings of frames, compared ignoring case.
var frameExts = []string{".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff"}

// isFrameName reports whether a file name (no directory) names a frame:
// an image extension and not hidden.
func isFrameName(name string) bool {
	return name != "" && name[0] != '.' && loader.HasExt(name, frameExts...)
}

// listFolder returns the frame files of dir in natural order, as paths and
// as names relative to dir.
func listFolder(dir string) (paths, names []string, err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range ents {
		if !e.IsDir() && isFrameName(e.Name()) {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil, nil, errors.New("no PNG, JPEG, GIF, BMP or TIFF frames in the folder")
	}
	slices.SortFunc(names, naturalCompare)
	paths = make([]string, len(names))
	for i, n := range names {
		paths[i] = filepath.Join(dir, n)
	}
	return paths, names, nil
}

// listPattern returns the frame files matching a glob pattern in natural
// order, as paths and as names relative to the pattern's fixed directory.
func listPattern(pattern string) (paths, names []string, err error) {
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return nil, nil, err
	}
	base := filepath.Dir(pattern)
	for loader.IsPattern(base) {
		base = filepath.Dir(base)
	}
	for _, p := range matches {
		if isFrameName(filepath.Base(p)) {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return nil, nil, errors.New("no PNG, JPEG, GIF, BMP or TIFF files match the pattern")
	}
	slices.SortFunc(paths, naturalCompare)
	names = make([]string, len(paths))
	for i, p := range paths {
		names[i] = p
		if r, err := filepath.Rel(base, p); err == nil {
			names[i] = r
		}
	}
	return paths, names, nil
}

// naturalCompare orders strings so that runs of digits compare by their
// numeric value (frame2 before frame10); strings that tie that way are
// ordered byte-wise (frame01 before frame1).
func naturalCompare(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isDigit(a[i]) && isDigit(b[j]) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			da := strings.TrimLeft(a[si:i], "0")
			db := strings.TrimLeft(b[sj:j], "0")
			if len(da) != len(db) {
				return len(da) - len(db)
			}
			if c := strings.Compare(da, db); c != 0 {
				return c
			}
			continue
		}
		if a[i] != b[j] {
			return int(a[i]) - int(b[j])
		}
		i++
		j++
	}
	if ra, rb := len(a)-i, len(b)-j; ra != rb {
		return ra - rb
	}
	return strings.Compare(a, b)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
