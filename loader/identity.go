package loader

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Identity names the content of a source by what changes when the content
// does: caches of anything derived from a source (computed levels, a
// video's frame index) are keyed by it and valid only while it holds.
type Identity struct {
	Path  string `json:"path"`     // absolute path, or the URL
	Size  int64  `json:"size"`     // bytes
	MTime int64  `json:"mtime_ns"` // modification time, ns since the epoch
	// ETag is a remote source's entity tag, "" for files.
	ETag string `json:"etag,omitempty"`
}

// FileIdentity returns the identity of the file or folder at path, by its
// cleaned absolute path. Errors keep their cause (errors.Is(err,
// fs.ErrNotExist) for a missing file) without repeating the path.
// A series selector stays on the path ("/data/cells.lif#2"): each image of
// a file is content of its own.
func FileIdentity(path string) (Identity, error) {
	path, sel := SplitSelector(path)
	abs, err := filepath.Abs(path)
	if err != nil {
		return Identity{}, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return Identity{}, StripPath(err)
	}
	return Identity{Path: WithSelector(abs, sel), Size: st.Size(), MTime: st.ModTime().UnixNano()}, nil
}

// ErrNoValidator means a server said nothing of a value that changes when
// the value does, so that what is derived from it cannot be cached.
var ErrNoValidator = errors.New("the server gives no ETag or Last-Modified")

// URLIdentity returns the identity of a remote source at rawURL from what
// its server said of the document that describes it: the ETag and
// Last-Modified of the response (either may be missing, not both: that is
// ErrNoValidator) and its size. The path kept is the URL without user name,
// password, query string or fragment, so that no credential or signature
// is written with a cache; the scheme, host and path stay.
func URLIdentity(rawURL, etag string, modified time.Time, size int64) (Identity, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return Identity{}, errors.New("not a URL with a host")
	}
	if etag == "" && modified.IsZero() {
		return Identity{}, ErrNoValidator
	}
	u.User = nil
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = "", false, "", ""
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	id := Identity{Path: u.String(), Size: size, ETag: etag}
	if !modified.IsZero() {
		id.MTime = modified.UnixNano()
	}
	return id, nil
}

// Identifier is a Source that names its content itself, as a remote one
// does from what its server says, rather than by the file or folder it was
// opened from.
type Identifier interface {
	Identity() (Identity, error)
}

// SourceIdentity returns the identity of src, opened from path: its own if
// it is an Identifier, else that of the file or folder at path.
func SourceIdentity(path string, src Source) (Identity, error) {
	if i, ok := src.(Identifier); ok {
		return i.Identity()
	}
	return FileIdentity(path)
}
