package loader

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

type confinedKey struct{}

// Confine returns a context under which readers read nothing outside
// what they were given: a companion file a dataset names (the HDF5 file
// of a BigDataViewer XML, the data file of a MetaImage or NRRD header)
// must lie in the dataset's own folder, and a link inside a Zarr or N5
// folder must not lead out of it. `serve` opens its sources so; the
// viewer and the other commands read what a local file names, and say so
// in Meta.Notes when it lies elsewhere.
func Confine(ctx context.Context) context.Context {
	return context.WithValue(ctx, confinedKey{}, true)
}

// Confined reports whether ctx comes from Confine.
func Confined(ctx context.Context) bool {
	v, _ := ctx.Value(confinedKey{}).(bool)
	return v
}

// ErrOutside means a file lies outside the dataset's folder and was not
// read because the dataset was opened under Confine.
var ErrOutside = errors.New("outside the dataset's folder: not read when serving")

// OutsideError names a companion file, or a key of a folder store, that
// leads outside the dataset's folder. It matches ErrOutside.
type OutsideError struct {
	What string // "the HDF5 file", "the data file", "chunk 0/0/1", ...
	Name string // as the dataset names it
}

func (e *OutsideError) Error() string {
	if e.Name == "" {
		return e.What + " leads " + ErrOutside.Error()
	}
	return fmt.Sprintf("%s %s lies %v", e.What, e.Name, ErrOutside)
}

// Unwrap returns ErrOutside.
func (e *OutsideError) Unwrap() error { return ErrOutside }

// Companion checks a file that the dataset at path names as one it needs
// (what, as "the HDF5 file"; name, already joined to the folder it is
// relative to). It returns the file to open: name when it lies within the
// dataset's folder, symbolic links resolved (under Confine, the resolved
// path); elsewhere, under Confine, an
// *OutsideError, and otherwise name itself with a note for Meta.Notes
// saying where the data is read from.
func Companion(ctx context.Context, path, what, name string) (file, note string, err error) {
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return "", "", err
	}
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	target, err := filepath.Abs(name)
	if err != nil {
		return "", "", err
	}
	if t, err := filepath.EvalSymlinks(target); err == nil {
		target = t
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", "", StripPath(err)
	}
	if within(dir, target) {
		if Confined(ctx) {
			return target, "", nil // the file checked, not what a link may name later
		}
		return name, "", nil
	}
	if Confined(ctx) {
		return "", "", &OutsideError{What: what, Name: name}
	}
	return name, fmt.Sprintf("%s %s %s", what, name, OutsideNote), nil
}

// OutsideNote ends the note Companion gives for a file outside the
// dataset's folder; the viewer shows such notes in its status bar.
const OutsideNote = "lies outside the dataset's folder (`serve` does not read it)"

// within reports whether path lies in dir (both absolute and clean).
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
