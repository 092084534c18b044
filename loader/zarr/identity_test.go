package zarr

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"vastview/loader"
)

// validatorServer serves files under /img.ome.zarr/ with the ETag and
// Last-Modified it is set to give (none when empty or zero).
type validatorServer struct {
	*httptest.Server
	mu       sync.Mutex
	files    map[string]string
	etag     string
	modified time.Time
}

func newValidatorServer(t *testing.T, files map[string]string) *validatorServer {
	s := &validatorServer{files: files}
	s.Server = httptest.NewServer(s)
	t.Cleanup(s.Close)
	return s
}

func (s *validatorServer) set(etag string, modified time.Time) {
	s.mu.Lock()
	s.etag, s.modified = etag, modified
	s.mu.Unlock()
}

func (s *validatorServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	v, ok := s.files[strings.TrimPrefix(r.URL.Path, "/img.ome.zarr/")]
	etag, mod := s.etag, s.modified
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	if etag != "" {
		w.Header().Set("ETag", etag)
	}
	http.ServeContent(w, r, "", mod, strings.NewReader(v))
}

// identityOf opens location and returns its identity as a cache keys it.
func identityOf(t *testing.T, location string) (loader.Identity, error) {
	t.Helper()
	src, err := Open(context.Background(), location)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	return loader.SourceIdentity(location, src)
}

// TestRemoteIdentity: a URL's identity comes from what the server says of
// the root's metadata document, keeps the host and path, and leaves out
// credentials and the query string.
func TestRemoteIdentity(t *testing.T) {
	files := map[string]string{".zattrs": ngffDoc, "0/.zarray": zarray2, "1/.zarray": withField(zarray2, "shape", "[5, 10]")}
	s := newValidatorServer(t, files)
	mod := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	s.set(`"v1"`, mod)
	at := strings.Replace(s.URL, "://", "://ann:pw@", 1) + "/img.ome.zarr?token=SECRET"
	id, err := identityOf(t, at)
	if err != nil {
		t.Fatal(err)
	}
	want := loader.Identity{Path: s.URL + "/img.ome.zarr/", Size: int64(len(ngffDoc)), MTime: mod.UnixNano(), ETag: `"v1"`}
	if id != want {
		t.Errorf("identity %+v\nwant     %+v", id, want)
	}
	for _, secret := range []string{"ann", "pw", "SECRET", "token"} {
		if strings.Contains(id.Path, secret) {
			t.Errorf("identity path %q keeps %q", id.Path, secret)
		}
	}

	// The identity changes with the ETag, and with Last-Modified alone.
	s.set(`"v2"`, mod)
	if id2, err := identityOf(t, at); err != nil || id2 == id {
		t.Errorf("a new ETag: identity %+v, %v", id2, err)
	}
	s.set("", mod.Add(time.Second))
	if id3, err := identityOf(t, at); err != nil || id3.MTime != mod.Add(time.Second).UnixNano() || id3.ETag != "" {
		t.Errorf("Last-Modified only: identity %+v, %v", id3, err)
	}

	s.set("", time.Time{})
	_, err = identityOf(t, at)
	if !errors.Is(err, loader.ErrNoValidator) || err.Error() != "the server gives no ETag or Last-Modified" {
		t.Errorf("no ETag or Last-Modified: %v", err)
	}
}

// TestFolderIdentity: a folder's identity is the folder's, as for any
// file opened from a path.
func TestFolderIdentity(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".zarray"), []byte(zarray2))
	id, err := identityOf(t, dir)
	want, werr := loader.FileIdentity(dir)
	if err != nil || werr != nil || id != want {
		t.Errorf("identity %+v, %v; want %+v, %v", id, err, want, werr)
	}
}

// TestStoreIdentity: a store of another kind names no identity.
func TestStoreIdentity(t *testing.T) {
	src, err := OpenStore(context.Background(), newMemStore(map[string][]byte{".zarray": []byte(zarray2)}))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if _, err := src.Identity(); err == nil || !strings.Contains(err.Error(), "memory") {
		t.Errorf("identity of a store in memory: %v", err)
	}
}
