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
// of a BigDataViewer XML, the data file of a MetaImage or NRRD header, a
// file a DICOMDIR names) must lie in the dataset's own folder, a frame of
// a folder or glob sequence or a file of a DICOM folder must not be a
// link leading out of it, and a link inside a Zarr or N5 folder must not
// lead out of it. `serve` opens its sources so; the
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
	dir, err := resolvedDir(filepath.Dir(path))
	if err != nil {
		return "", "", err
	}
	file, outside, err := companion(ctx, dir, what, name, name)
	if err != nil || !outside {
		return file, "", err
	}
	return file, outsideNote(what, name, 0), nil
}

// Members checks, with Companion's rule, the files a folder dataset holds
// or names: dir is the dataset's folder (a folder of frames, of DICOM
// files, the folder of a header), names are the files as the dataset
// names them, relative to dir or absolute (what, as "the frame", names
// them in messages). It returns the files to
// open, in order, and one note for all those outside ("" if none lies
// outside). Under Confine the first one outside is an *OutsideError.
func Members(ctx context.Context, dir, what string, names []string) (files []string, note string, err error) {
	rdir, err := resolvedDir(dir)
	if err != nil {
		return nil, "", err
	}
	adir, err := filepath.Abs(dir)
	if err != nil {
		return nil, "", err
	}
	files = make([]string, len(names))
	var first string
	outside := 0
	for i, n := range names {
		f := n
		if !filepath.IsAbs(f) {
			f = filepath.Join(dir, f)
		}
		// A file directly in the folder that is not a link lies in it.
		if af, err := filepath.Abs(f); err == nil && filepath.Dir(af) == adir {
			if st, err := os.Lstat(f); err == nil && st.Mode()&os.ModeSymlink == 0 {
				files[i] = f
				continue
			}
		}
		file, out, err := companion(ctx, rdir, what, f, n)
		if err != nil {
			return nil, "", err
		}
		files[i] = file
		if out {
			if outside == 0 {
				first = n
			}
			outside++
		}
	}
	if outside > 0 {
		note = outsideNote(what, first, outside-1)
	}
	return files, note, nil
}

// resolvedDir returns dir absolute, symbolic links resolved.
func resolvedDir(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	return dir, nil
}

// companion checks the file name against the resolved folder dir (shown
// is name as messages give it): it returns the file to open and whether
// it lies outside dir; under Confine, a file outside is an *OutsideError.
func companion(ctx context.Context, dir, what, name, shown string) (file string, outside bool, err error) {
	target, err := filepath.Abs(name)
	if err != nil {
		return "", false, err
	}
	if t, err := filepath.EvalSymlinks(target); err == nil {
		target = t
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", false, StripPath(err)
	}
	if within(dir, target) {
		if Confined(ctx) {
			return target, false, nil // the file checked, not what a link may name later
		}
		return name, false, nil
	}
	if Confined(ctx) {
		return "", true, &OutsideError{What: what, Name: shown}
	}
	return name, true, nil
}

// outsideNote says that the file name (and more others) lie outside the
// dataset's folder; it ends with OutsideNote.
func outsideNote(what, name string, more int) string {
	if more > 0 {
		return fmt.Sprintf("%s %s (and %d more) %s", what, name, more, OutsideNote)
	}
	return fmt.Sprintf("%s %s %s", what, name, OutsideNote)
}

// OutsideNote ends the note Companion gives for a file outside the
// dataset's folder; the viewer shows such notes in its status bar.
const OutsideNote = "lies outside the dataset's folder (`serve` does not read it)"

// within reports whether path lies in dir (both absolute and clean).
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
