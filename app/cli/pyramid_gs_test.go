package cli

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"vastview/levels/omezarr"
)

// fakeGCS is an in-memory bucket answering the part of Google Cloud
// Storage's XML API the writer uses: PUT, GET (with ranges), DELETE,
// multipart uploads and ListObjectsV2, under /BUCKET/KEY.
type fakeGCS struct {
	bucket string
	mu     sync.Mutex
	obj    map[string][]byte
	parts  map[string][]byte // "key#n" of the upload under way
}

func (f *fakeGCS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, "/")
	bucket, key, _ := strings.Cut(path, "/")
	if bucket != f.bucket {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist.</Message></Error>")
		return
	}
	q := r.URL.Query()
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case key == "" && r.Method == http.MethodGet:
		prefix, seen := q.Get("prefix"), map[string]bool{}
		var sb strings.Builder
		sb.WriteString("<ListBucketResult>")
		var keys []string
		for k := range f.obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			rest, ok := strings.CutPrefix(k, prefix)
			if !ok {
				continue
			}
			if d, _, folder := strings.Cut(rest, "/"); folder {
				if !seen[d] {
					seen[d] = true
					sb.WriteString("<CommonPrefixes><Prefix>" + prefix + d + "/</Prefix></CommonPrefixes>")
				}
				continue
			}
			sb.WriteString("<Contents><Key>" + k + "</Key></Contents>")
		}
		sb.WriteString("<IsTruncated>false</IsTruncated></ListBucketResult>")
		io.WriteString(w, sb.String())
	case r.Method == http.MethodPost && q.Has("uploads"):
		io.WriteString(w, "<InitiateMultipartUploadResult><UploadId>u1</UploadId></InitiateMultipartUploadResult>")
	case r.Method == http.MethodPut && q.Has("partNumber"):
		f.parts[key+"#"+q.Get("partNumber")] = body
		w.Header().Set("ETag", `"p`+q.Get("partNumber")+`"`)
	case r.Method == http.MethodPost && q.Has("uploadId"):
		var done struct {
			Parts []struct {
				N string `xml:"PartNumber"`
			} `xml:"Part"`
		}
		xml.Unmarshal(body, &done)
		var all []byte
		for _, p := range done.Parts {
			all = append(all, f.parts[key+"#"+p.N]...)
		}
		f.obj[key] = all
		io.WriteString(w, "<CompleteMultipartUploadResult/>")
	case r.Method == http.MethodPut:
		f.obj[key] = body
	case r.Method == http.MethodDelete:
		delete(f.obj, key)
		w.WriteHeader(http.StatusNoContent)
	case r.Method == http.MethodGet:
		v, ok := f.obj[key]
		if !ok {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(v))
	default:
		w.WriteHeader(http.StatusNotImplemented)
	}
}

// TestPyramidToGS writes a pyramid to gs:// (an in-memory stand-in for
// Google Cloud Storage's XML API at VASTVIEW_GS_ENDPOINT, anonymous): a
// plain run, and two parts and --finish, equal one plain run into a
// folder object by object, with nothing else left; a missing bucket fails
// in one line naming the address.
func TestPyramidToGS(t *testing.T) {
	fake := &fakeGCS{bucket: "bkt", obj: map[string][]byte{}, parts: map[string][]byte{}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	t.Setenv("VASTVIEW_GS_ENDPOINT", srv.URL)
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "")
	dir := t.TempDir()
	src := filepath.Join(dir, "src.ome.zarr")
	if err := omezarr.Write(context.Background(), src, newVolSource(), omezarr.Options{}); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain", "img.ome.zarr")
	os.MkdirAll(filepath.Dir(plain), 0o755)
	mustRun(t, "pyramid", src, plain)
	want := files(t, plain)
	mustRun(t, "pyramid", src, "gs://bkt/plain/img.ome.zarr")
	mustRun(t, "pyramid", src, "gs://bkt/parts/img.ome.zarr", "--part", "2/2")
	mustRun(t, "pyramid", src, "gs://bkt/parts/img.ome.zarr", "--part", "1/2")
	mustRun(t, "pyramid", src, "gs://bkt/parts/img.ome.zarr", "--finish")
	fake.mu.Lock()
	defer fake.mu.Unlock()
	for _, run := range []string{"plain", "parts"} {
		n := 0
		for k, v := range fake.obj {
			rest, ok := strings.CutPrefix(k, run+"/img.ome.zarr/")
			if !ok {
				continue
			}
			n++
			if w, ok := want[rest]; !ok || !bytes.Equal(w, v) {
				t.Errorf("gs %s: %s differs from the folder run's or is not in it", run, rest)
			}
		}
		if n != len(want) {
			t.Errorf("gs %s: %d objects, the folder run %d files", run, n, len(want))
		}
	}
	fake.mu.Unlock()
	code, _, errs := vv("pyramid", src, "gs://nobucket/img.ome.zarr")
	fake.mu.Lock()
	if code != 1 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "gs://nobucket/img.ome.zarr") ||
		!strings.Contains(errs, "no such bucket") {
		t.Errorf("missing bucket: exit %d, stderr %q", code, errs)
	}
}
