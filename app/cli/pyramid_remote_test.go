package cli

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// remoteZarr serves a 4x300 uint16 Zarr v2 array (two chunks of 4x150,
// not whole planes, so its levels go through the disk cache; one level to
// compute) under /img.zarr/, with an ETag and Last-Modified on every value
// when validators is true.
func remoteZarr(t *testing.T, validators bool) *httptest.Server {
	files := map[string]string{
		".zarray": `{"zarr_format": 2, "shape": [4, 300], "chunks": [4, 150], "dtype": "<u2",
			"compressor": null, "fill_value": 0, "order": "C", "filters": null}`,
	}
	for c := range 2 {
		chunk := make([]byte, 4*150*2)
		for i := range 4 * 150 {
			binary.LittleEndian.PutUint16(chunk[2*i:], uint16(i/150*300+c*150+i%150))
		}
		files[fmt.Sprintf("0.%d", c)] = string(chunk)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, ok := files[strings.TrimPrefix(r.URL.Path, "/img.zarr/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		var mod time.Time
		if validators {
			w.Header().Set("ETag", `"e1"`)
			mod = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
		}
		http.ServeContent(w, r, "", mod, strings.NewReader(v))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestPyramidOfURLUsesDiskCache: a remote source's computed levels are
// kept under an identity from the server's validators, whose path has no
// query string; without validators the command says so in one line.
func TestPyramidOfURLUsesDiskCache(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	srv := remoteZarr(t, true)
	code, _, errs := vv("pyramid", srv.URL+"/img.zarr?token=SECRET", filepath.Join(t.TempDir(), "out.ome.zarr"))
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	mans, _ := filepath.Glob(filepath.Join(cache, "vastview", "levels", "*", "manifest.json"))
	if len(mans) != 1 {
		t.Fatalf("%d cache entries, want 1", len(mans))
	}
	b, err := os.ReadFile(mans[0])
	if err != nil {
		t.Fatal(err)
	}
	var man struct {
		Identity struct {
			Path string `json:"path"`
			ETag string `json:"etag"`
		} `json:"identity"`
	}
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	if man.Identity.Path != srv.URL+"/img.zarr/" || man.Identity.ETag != `"e1"` || strings.Contains(string(b), "SECRET") {
		t.Errorf("cache manifest %s", b)
	}

	bare := remoteZarr(t, false)
	code, _, errs = vv("pyramid", bare.URL+"/img.zarr", filepath.Join(t.TempDir(), "out.ome.zarr"))
	if code != 0 || errs != "vastview: disk cache not used: the server gives no ETag or Last-Modified\n" {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}
