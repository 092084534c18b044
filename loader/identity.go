package loader

import (
	"os"
	"path/filepath"
)

// Identity names the content of a source by what changes when the content
// does: caches of anything derived from a source (computed levels, a
// video's frame index) are keyed by it and valid only while it holds.
type Identity struct {
	Path  string `json:"path"`     // absolute path, or the URL
	Size  int64  `json:"size"`     // bytes
	MTime int64  `json:"mtime_ns"` // modification time, ns since the epoch
}

// FileIdentity returns the identity of the file or folder at path, by its
// cleaned absolute path. Errors keep their cause (errors.Is(err,
// fs.ErrNotExist) for a missing file) without repeating the path.
func FileIdentity(path string) (Identity, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Identity{}, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return Identity{}, StripPath(err)
	}
	return Identity{Path: abs, Size: st.Size(), MTime: st.ModTime().UnixNano()}, nil
}
