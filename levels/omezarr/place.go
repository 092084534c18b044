package omezarr

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"vastview/base/fsutil"
	"vastview/loader"
)

// checkTarget refuses an existing out unless overwrite is set and out is a
// folder that a Zarr image may replace.
func checkTarget(out string, overwrite bool) error {
	st, err := os.Lstat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot check the output: %v", loader.StripPath(err))
	}
	if !overwrite {
		return ErrExists
	}
	if !st.IsDir() {
		return fmt.Errorf("output exists and is not a folder; not replacing it")
	}
	ents, err := os.ReadDir(out)
	if err != nil {
		return fmt.Errorf("cannot check the output: %v", loader.StripPath(err))
	}
	for _, e := range ents {
		switch e.Name() {
		case ".zgroup", ".zarray", "zarr.json":
			return nil
		}
	}
	if len(ents) > 0 {
		return fmt.Errorf("output exists and is not a Zarr folder; not replacing it")
	}
	return nil
}

// oldInfix follows the output's name in the name an output being replaced
// has until the new one is in place: out.old-<owner>-<random>, owner and
// random those of the new one's temporary folder.
const oldInfix = ".old-"

// mkdirTemp creates and locks the temporary folder of out
// (fsutil.MkdirPartial).
func mkdirTemp(out string) (string, *fsutil.Lock, error) {
	tmp, lock, err := fsutil.MkdirPartial(out)
	if err != nil {
		return "", nil, fmt.Errorf("cannot create the output: %v", loader.StripPath(err))
	}
	return tmp, lock, nil
}

// RemoveStale tidies up what writes of out left behind when their process
// was killed, as Write does before it begins, and says what it did:
// removed lists the base names of the folders it removed, restored names
// the one it moved back to out, or is "". Those folders are the temporary
// folders of unfinished writes (out.partial-...) whose owner has ended and
// whose lock is free, and the outputs that a replacing write had moved
// aside (out.old-...) and whose owner has ended: removed if out is in
// place, else moved back to out, since the replacement never came. What
// belongs to a write still running, or to an owner that cannot be told, is
// left alone.
func RemoveStale(out string) (removed []string, restored string) {
	out = filepath.Clean(out)
	parent, base := filepath.Split(out)
	if parent == "" {
		parent = "."
	}
	removed = fsutil.RemoveStalePartials(out)
	ents, err := os.ReadDir(parent)
	if err != nil {
		return removed, ""
	}
	for _, e := range ents {
		tag, ok := fsutil.OwnerOf(e.Name(), base+oldInfix)
		if !ok || !e.IsDir() || fsutil.Alive(tag) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		if _, err := os.Lstat(out); errors.Is(err, fs.ErrNotExist) {
			if os.Rename(dir, out) == nil {
				restored = e.Name()
			}
			continue
		}
		if os.RemoveAll(dir) == nil {
			removed = append(removed, e.Name())
		}
	}
	return removed, restored
}

// install renames the finished folder tmp onto out. An existing out (when
// overwrite is set) is first renamed aside, then removed once tmp is in
// place; if that fails it is put back.
func install(tmp, out string, overwrite bool) error {
	if _, err := os.Lstat(out); err != nil {
		err := os.Rename(tmp, out)
		if errors.Is(err, fs.ErrExist) { // out appeared meanwhile
			return ErrExists
		}
		if err != nil {
			return fmt.Errorf("cannot move the output into place: %v", loader.StripPath(err))
		}
		return nil
	}
	if err := checkTarget(out, overwrite); err != nil {
		return err
	}
	old := out + oldInfix + fsutil.PartialSuffix(tmp)
	if err := os.Rename(out, old); err != nil {
		return fmt.Errorf("cannot move the old output aside: %v", loader.StripPath(err))
	}
	if err := os.Rename(tmp, out); err != nil {
		os.Rename(old, out)
		return fmt.Errorf("cannot move the output into place: %v", loader.StripPath(err))
	}
	if err := os.RemoveAll(old); err != nil {
		return fmt.Errorf("new output in place, but the old one remains as %s: %v", filepath.Base(old), loader.StripPath(err))
	}
	return nil
}
