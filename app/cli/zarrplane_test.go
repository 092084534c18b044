package cli

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
)

// TestPlaneOfTinyZarrChunks reads a plane crossing 120,000 chunks of one
// sample, nearly all absent, from a zarr-python store: from the folder the
// plane equals zarr's; over HTTP, which cannot be listed, it is refused in
// one line naming the address and the count.
func TestPlaneOfTinyZarrChunks(t *testing.T) {
	testtool.RequirePython(t, "zarr", "numpy")
	dir := t.TempDir()
	testtool.RunPython(t, `
import sys, numpy as np, zarr
z = zarr.open(sys.argv[1] + '/tiny.zarr', mode='w', shape=(3, 400, 300), chunks=(1, 1, 1), dtype='<u2', fill_value=7)
z[1, 5, 5] = 100
z[1, 399, 298] = 200
z[2, 0, 0] = 300
z[1].tofile(sys.argv[1] + '/z1.raw')
`, dir)
	store := filepath.Join(dir, "tiny.zarr")
	checkPlane(t, store, filepath.Join(dir, "z1.raw"), "--z", "1")
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	url := srv.URL + "/tiny.zarr"
	code, _, errs := vv("plane", url, "--z", "1", "--out", filepath.Join(dir, "p.raw"))
	if code != 1 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, url) || !strings.Contains(errs, "120000 chunks") {
		t.Errorf("over HTTP: exit %d, %q", code, errs)
	}
}
