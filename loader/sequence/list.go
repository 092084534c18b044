package sequence

import (
	"errors"
	"os"
	"path/filepath"
	"slices"

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
	slices.SortFunc(names, loader.NaturalCompare)
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
	base := patternBase(pattern)
	for _, p := range matches {
		if isFrameName(filepath.Base(p)) {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return nil, nil, errors.New("no PNG, JPEG, GIF, BMP or TIFF files match the pattern")
	}
	slices.SortFunc(paths, loader.NaturalCompare)
	names = make([]string, len(paths))
	for i, p := range paths {
		names[i] = p
		if r, err := filepath.Rel(base, p); err == nil {
			names[i] = r
		}
	}
	return paths, names, nil
}

// patternBase is the fixed directory of a glob pattern: the folder its
// matches lie in.
func patternBase(pattern string) string {
	base := filepath.Dir(pattern)
	for loader.IsPattern(base) {
		base = filepath.Dir(base)
	}
	return base
}
