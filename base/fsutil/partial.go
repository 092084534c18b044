package fsutil

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// PartialInfix follows an output's name in the name of what is written
// before the output is complete: out.partial-<owner>-<random>, where owner
// is the writing process's ProcessTag. Only a complete output gets out's
// own name; RemoveStalePartials removes what a killed writer left.
const PartialInfix = ".partial-"

// PartialName is a new name out.partial-<owner>-<random> beside out, for
// a file the running process writes and renames to out once complete.
// Nothing is created.
func PartialName(out string) string {
	return filepath.Clean(out) + PartialInfix + ProcessTag() + "-" + strconv.FormatUint(rand.Uint64()>>16, 36)
}

// MkdirPartial creates the empty folder out.partial-<owner>-<random>
// beside out, with the permissions of a folder made by os.Mkdir
// (os.MkdirTemp's are private), and locks it: the lock ends with the
// process, however it ends, and tells RemoveStalePartials that the folder
// is still being written. Errors are those of the os package, naming
// the folder.
func MkdirPartial(out string) (string, *Lock, error) {
	for {
		tmp := PartialName(out)
		err := os.Mkdir(tmp, 0o755)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		lock, err := TryLockDir(tmp, Exclusive)
		if err != nil {
			os.Remove(tmp)
			return "", nil, err
		}
		return tmp, lock, nil
	}
}

// RemoveStalePartials removes the files and folders out.partial-... that
// writers of out left when they were killed: those whose owner has ended
// and, for a folder, whose lock is free. It returns their base names.
// What belongs to a writer still running, or to an owner that cannot be
// told, is left alone.
func RemoveStalePartials(out string) (removed []string) {
	out = filepath.Clean(out)
	parent, base := filepath.Split(out)
	if parent == "" {
		parent = "."
	}
	ents, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	for _, e := range ents {
		tag, ok := OwnerOf(e.Name(), base+PartialInfix)
		if !ok || Alive(tag) {
			continue
		}
		p := filepath.Join(parent, e.Name())
		if !e.IsDir() {
			if os.Remove(p) == nil {
				removed = append(removed, e.Name())
			}
			continue
		}
		lock, err := TryLockDir(p, Exclusive)
		if err != nil {
			continue
		}
		err = os.RemoveAll(p)
		lock.Unlock()
		if err == nil {
			removed = append(removed, e.Name())
		}
	}
	return removed
}

// PartialSuffix is what follows PartialInfix in tmp, a name PartialName
// or MkdirPartial made: "<owner>-<random>", for names of the same write.
func PartialSuffix(tmp string) string {
	return tmp[strings.LastIndex(tmp, PartialInfix)+len(PartialInfix):]
}
