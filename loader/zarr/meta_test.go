package zarr

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"vastview/loader/zarr/store"
)

// bigMeta is a layout whose metadata document at key is too large.
type bigMeta struct {
	key   string
	files map[string]string // the other documents
}

var bigMetas = []bigMeta{
	{"zarr.json", nil},
	{".zarray", nil},
	{".zattrs", nil},
	{"0/.zarray", map[string]string{".zattrs": ngffDoc, "1/.zarray": zarray2}},
}

const metaLimitMsg = ": metadata document larger than 64 MiB"

// TestFolderMetadataTooLarge: a metadata file over 64 MiB is refused by
// its size, without being read.
func TestFolderMetadataTooLarge(t *testing.T) {
	for _, c := range bigMetas {
		t.Run(c.key, func(t *testing.T) {
			dir := t.TempDir()
			for k, v := range c.files {
				writeFile(t, filepath.Join(dir, k), []byte(v))
			}
			p := filepath.Join(dir, filepath.FromSlash(c.key))
			writeFile(t, p, nil)
			if err := os.Truncate(p, 1<<30); err != nil { // sparse
				t.Fatal(err)
			}
			_, err := Open(context.Background(), dir)
			if !isFormat(err) {
				t.Errorf("error %v, want a format error", err)
			}
			wantError(t, err, "zarr: "+c.key+metaLimitMsg)
		})
	}
}

// TestHTTPMetadataTooLarge: a metadata document over 64 MiB is refused
// from its Content-Length, or while it streams without one, in one request.
func TestHTTPMetadataTooLarge(t *testing.T) {
	for _, c := range bigMetas {
		for _, sized := range []bool{true, false} {
			t.Run(c.key+"/sized="+strconv.FormatBool(sized), func(t *testing.T) {
				var hits atomic.Int32
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					key := strings.TrimPrefix(r.URL.Path, "/img.zarr/")
					if v, ok := c.files[key]; ok {
						w.Write([]byte(v))
						return
					}
					if key != c.key {
						http.NotFound(w, r)
						return
					}
					hits.Add(1)
					if sized {
						w.Header().Set("Content-Length", strconv.Itoa(1<<30))
					}
					block := make([]byte, 1<<20)
					for i := 0; i < 65; i++ {
						if _, err := w.Write(block); err != nil {
							return
						}
					}
				}))
				defer srv.Close()
				st, err := store.NewHTTP(srv.URL+"/img.zarr", store.HTTPOptions{Backoff: time.Millisecond})
				if err != nil {
					t.Fatal(err)
				}
				_, err = OpenStore(context.Background(), st)
				if !isFormat(err) {
					t.Errorf("error %v, want a format error", err)
				}
				wantError(t, err, "zarr: "+c.key+metaLimitMsg)
				if n := hits.Load(); n != 1 {
					t.Errorf("%d requests for the document; a document too large is not retried", n)
				}
			})
		}
	}
}
