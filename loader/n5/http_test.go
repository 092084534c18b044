package n5

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vastview/loader"
)

// TestOverHTTP reads a dataset and an n5-viewer pyramid that zarr wrote
// from a web server, by their addresses: the same samples as zarr reads.
// Its identity is what the server says of level 0's attributes. The
// container's root, a group that HTTP cannot list, is refused in one line
// saying so.
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
	src, err := Open(context.Background(), srv.URL+"/c.n5/pyramid")
	if err != nil {
		t.Fatal(err)
	}
	id, err := src.Identity()
	src.Close()
	st, serr := os.Stat(filepath.Join(dir, "c.n5", "pyramid", "s0", attributesFile))
	if err != nil || serr != nil || !strings.HasPrefix(id.Path, srv.URL+"/c.n5/pyramid") || id.Size != st.Size() ||
		id.MTime != st.ModTime().Truncate(time.Second).UnixNano() {
		t.Errorf("identity %+v, %v; s0's attributes: %d bytes, modified %v", id, err, st.Size(), st.ModTime())
	}
	_, err = Open(context.Background(), srv.URL+"/c.n5")
	if err == nil || !strings.Contains(err.Error(), "HTTP") || strings.Contains(err.Error(), "\n") {
		t.Errorf("the root over HTTP: %v", err)
	}
}
