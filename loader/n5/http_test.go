package n5

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"vastview/loader"
)

// TestOverHTTP reads a dataset and an n5-viewer pyramid that zarr wrote
// from a web server, by their addresses: the same samples as zarr reads.
// The container's root, a group that HTTP cannot list, is refused in one
// line saying so.
func TestOverHTTP(t *testing.T) {
	dir, _ := writeContainer(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	for _, c := range []struct {
		loc string
		npy []string
	}{
		{srv.URL + "/c.n5/comp/blosc", []string{"comp__blosc"}},
		{srv.URL + "/c.n5/pyramid/", []string{"pyramid__s0", "pyramid__s1", "pyramid__s2"}},
	} {
		if !Match(c.loc, nil) {
			t.Errorf("%s: not matched", c.loc)
		}
		src, err := loader.Open(context.Background(), c.loc)
		if err != nil {
			t.Fatalf("%s: %v", c.loc, err)
		}
		if m := src.Meta(); m.Format != "n5" || len(m.Levels) != len(c.npy) {
			t.Fatalf("%s: %s, %d levels", c.loc, m.Format, len(m.Levels))
		}
		for k, npy := range c.npy {
			checkLevel(t, src, k, filepath.Join(dir, npy+".npy"))
		}
		src.Close()
	}
	_, err := Open(context.Background(), srv.URL+"/c.n5")
	if err == nil || !strings.Contains(err.Error(), "HTTP") || strings.Contains(err.Error(), "\n") {
		t.Errorf("the root over HTTP: %v", err)
	}
}
