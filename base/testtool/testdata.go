package testtool

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The shared test data are real files written by instruments' and
// vendors' software (Zeiss ZEN, Leica LAS X, Nikon NIS-Elements, Phantom,
// StreamPix, WinSpec, scanners, Imaris), taken byte for byte from public
// repositories' tests at pinned commits (.ci/testdata.txt names each one,
// with its checksum). A checkout beside the module (../shared/testdata)
// holds them; else .ci/testdata fetches them into the user cache folder.

// cacheHomeDir is the user cache folder as the process started, before a
// test sets XDG_CACHE_HOME for itself.
var cacheHomeDir = func() string {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return d
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".cache")
	}
	return ""
}()

// ModuleRoot returns the folder holding the module's go.mod, looked for
// from the working directory (a test's package folder) upward.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// SharedDataDirs returns the folders where the shared test data may be,
// in the order they are looked at: ../shared/testdata beside the module,
// then the cache .ci/testdata fills
// (${XDG_CACHE_HOME:-~/.cache}/vastview/testdata).
func SharedDataDirs() []string {
	var dirs []string
	if root, err := ModuleRoot(); err == nil {
		dirs = append(dirs, filepath.Join(filepath.Dir(root), "shared", "testdata"))
	}
	if cacheHomeDir != "" {
		dirs = append(dirs, filepath.Join(cacheHomeDir, "vastview", "testdata"))
	}
	return dirs
}

// LookSharedData returns the path of the shared test file or folder
// named by the slash-separated name (such as "czi/tiles.czi") and whether
// it is there. Tests that can do without it (a fuzz target's seeds) use
// it; the others call SharedData.
func LookSharedData(name string) (string, bool) {
	dirs := SharedDataDirs()
	for _, d := range dirs {
		p := filepath.Join(d, filepath.FromSlash(name))
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
	}
	if len(dirs) == 0 {
		return name, false
	}
	return filepath.Join(dirs[0], filepath.FromSlash(name)), false
}

// SharedData returns the path of the shared test file or folder named by
// the slash-separated name (such as "czi/tiles.czi"). When it is absent, t
// is skipped, or fails under CI (CI=true), saying where it was looked for
// and how to fetch it.
func SharedData(t testing.TB, name string) string {
	t.Helper()
	p, ok := LookSharedData(name)
	if !ok {
		missing(t, "shared test data "+name+" is absent from "+strings.Join(SharedDataDirs(), " and ")+
			": run .ci/testdata to fetch it")
	}
	return p
}
