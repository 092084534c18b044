// Package store reads the values of a Zarr hierarchy by key ("0/.zarray",
// "0/1.2.3", "s0/c/0/0/1") from a local folder (Folder) or over HTTP(S)
// (HTTP), which also reads object stores: S3 and S3-compatible servers
// (NewS3, requests signed when needed) and Google Cloud Storage (NewGCS).
// Remote values can be kept in a DiskCache.
//
// Keys are '/'-separated and validated before use: no empty segments, no
// "." or ".." segments, no leading or trailing '/', no NUL or backslash. A
// key with no value gives an error matching ErrNotFound, which the Zarr
// reader turns into the array's fill value.
package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"vastview/loader"
)

// ErrNotFound means the store holds no value for the key (a missing chunk,
// which the reader turns into the fill value). Errors returned by stores
// match it with errors.Is.
var ErrNotFound = errors.New("not found")

// ErrOutOfRange means a GetRange asked for bytes beyond the end of the value.
var ErrOutOfRange = errors.New("range beyond the end of the value")

// ErrTooLarge means a value is larger than a read allows (HTTPOptions.MaxBody,
// or the bound given to GetAtMost).
var ErrTooLarge = errors.New("value too large")

// ErrInvalidKey means a key is malformed (see the package documentation).
var ErrInvalidKey = errors.New("invalid key")

// ErrClosed is returned by calls on a closed store, and by calls that were in
// flight when the store was closed.
var ErrClosed = errors.New("store is closed")

// Store reads values by key. Implementations are safe for concurrent use.
type Store interface {
	// Get returns the whole value stored under key.
	Get(ctx context.Context, key string) ([]byte, error)
	// GetRange returns exactly n bytes of the value at offset off; off < 0
	// means the last -off bytes (a suffix, n ignored). Bytes beyond the end
	// of the value are an error matching ErrOutOfRange. n == 0 (with
	// off >= 0) returns an empty slice without reading. Used for shard
	// indexes and the chunks inside shards.
	GetRange(ctx context.Context, key string, off, n int64) ([]byte, error)
	// String is the store's location for messages (credentials and query
	// strings left out).
	String() string
	// Close releases the store; calls in flight end with ErrClosed, and so
	// do later calls.
	Close() error
}

// Info is what a store learnt of a value when it read it whole. Which
// fields are known depends on the store; both kinds know the size.
type Info struct {
	Size int64 // bytes
	// ETag is an HTTP server's entity tag for the value ("" if it gave
	// none): it changes when the value does.
	ETag string
	// Modified is the value's modification time (an HTTP server's
	// Last-Modified, a file's time), zero if unknown.
	Modified time.Time
}

// Bounded is a Store that can bound the size of a whole-value read and
// report what it learnt of the value. Folder and HTTP are Bounded.
type Bounded interface {
	Store
	// GetAtMost returns the whole value of key and its Info, if the value
	// holds at most max bytes. A larger value is an error matching
	// ErrTooLarge, found from its size before it is read where the store
	// knows the size (a file's, a Content-Length), else once more than max
	// bytes have come.
	GetAtMost(ctx context.Context, key string, max int64) ([]byte, Info, error)
}

// GetAtMost reads the whole value of key from st, if it holds at most max
// bytes (max > 0), as Bounded.GetAtMost does. A store that is not Bounded
// is read with Get and the size checked afterwards; its Info has the size
// only.
func GetAtMost(ctx context.Context, st Store, key string, max int64) ([]byte, Info, error) {
	if b, ok := st.(Bounded); ok {
		return b.GetAtMost(ctx, key, max)
	}
	v, err := st.Get(ctx, key)
	if err != nil {
		return nil, Info{}, err
	}
	if int64(len(v)) > max {
		return nil, Info{}, fmt.Errorf("%s: %w", key, overLimit(int64(len(v)), max))
	}
	return v, Info{Size: int64(len(v))}, nil
}

// overLimit is the error for a whole value of n bytes over a limit of max.
func overLimit(n, max int64) error {
	return &cause{fmt.Sprintf("value of %d bytes is over the %d-byte limit", n, max), ErrTooLarge}
}

// Open returns an HTTP store (default options, the DefaultDiskCache and
// DefaultDeadline)
// for http:// and https:// locations, an S3 one (NewS3) for s3://,
// s3+https:// and s3+http://, a GCS one (NewGCS) for gs://, and a Folder
// otherwise (also for file:// URLs). A folder must
// exist. Errors do not repeat the location.
func Open(location string) (Store, error) {
	return OpenContext(context.Background(), location)
}

// OpenContext is Open for a reader opening under ctx: under loader.Confine
// a Folder reads no file that a link leads to outside it (NewConfinedFolder).
func OpenContext(ctx context.Context, location string) (Store, error) {
	low := strings.ToLower(location)
	opt := HTTPOptions{Cache: DefaultDiskCache(), Deadline: DefaultDeadline()}
	switch {
	case strings.HasPrefix(low, "http://") || strings.HasPrefix(low, "https://"):
		return NewHTTP(location, opt)
	case strings.HasPrefix(low, "gs://"):
		return NewGCS(location, opt)
	case IsObjectURL(location):
		return NewS3(location, opt)
	}
	if strings.HasPrefix(low, "file://") {
		u, err := url.Parse(location)
		if err != nil || (u.Host != "" && u.Host != "localhost") {
			return nil, errors.New("not a local file URL")
		}
		location = filepath.FromSlash(u.Path)
	}
	st, err := os.Stat(location)
	if err != nil {
		return nil, loader.StripPath(err)
	}
	if !st.IsDir() {
		return nil, errors.New("not a folder")
	}
	if loader.Confined(ctx) {
		return NewConfinedFolder(location)
	}
	return NewFolder(location), nil
}

// badRange checks the arguments of GetRange.
func badRange(off, n int64) error {
	switch {
	case off < 0 && -off < 0: // math.MinInt64
		return errors.New("invalid range: suffix too long")
	case off >= 0 && n < 0:
		return errors.New("invalid range: negative length")
	case off >= 0 && off+n < off:
		return errors.New("invalid range: end overflows")
	}
	return nil
}

// DefaultDeadline is the bound on one request of the stores Open makes
// (HTTPOptions.Deadline): 60s,
// or the duration VASTVIEW_READ_DEADLINE gives ("90s", "5m"; "0" or "off"
// for none).
func DefaultDeadline() time.Duration {
	switch v := strings.TrimSpace(os.Getenv("VASTVIEW_READ_DEADLINE")); v {
	case "":
		return 60 * time.Second
	case "0", "off":
		return 0
	default:
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			return d
		}
		return 60 * time.Second
	}
}

// Lister is a Store that can list the names under a key prefix, as a
// folder can (an HTTP server cannot; see Folder.List).
type Lister interface {
	Store
	// List calls fn with the name of each value or folder directly under
	// dir ("" for the root), and whether it is a folder, in no particular
	// order; a missing dir lists nothing.
	List(ctx context.Context, dir string, fn func(name string, folder bool) error) error
}
