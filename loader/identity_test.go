package loader

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestURLIdentity(t *testing.T) {
	mod := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	id, err := URLIdentity("HTTPS://ann:pw%40x@Data.Example.org:8443/lab/a%20b.ome.zarr/?X-Amz-Signature=SECRET&token=t0k#frag", `"v1"`, mod, 1234)
	if err != nil {
		t.Fatal(err)
	}
	want := Identity{Path: "https://data.example.org:8443/lab/a%20b.ome.zarr/", Size: 1234, MTime: mod.UnixNano(), ETag: `"v1"`}
	if id != want {
		t.Errorf("identity %+v\nwant     %+v", id, want)
	}
	for _, secret := range []string{"ann", "pw", "SECRET", "t0k", "frag"} {
		if strings.Contains(id.Path, secret) {
			t.Errorf("path %q keeps %q", id.Path, secret)
		}
	}
	if id, err := URLIdentity("http://h/a.zarr/", "", mod, 5); err != nil || id.MTime != mod.UnixNano() || id.ETag != "" {
		t.Errorf("Last-Modified only: %+v, %v", id, err)
	}
	if id, err := URLIdentity("http://h/a.zarr/", `W/"x"`, time.Time{}, 5); err != nil || id.MTime != 0 || id.ETag != `W/"x"` {
		t.Errorf("ETag only: %+v, %v", id, err)
	}
	_, err = URLIdentity("http://h/a.zarr/", "", time.Time{}, 5)
	if !errors.Is(err, ErrNoValidator) || err.Error() != "the server gives no ETag or Last-Modified" {
		t.Errorf("no validator: %v", err)
	}
	if _, err := URLIdentity("/local/path", `"v"`, mod, 5); err == nil {
		t.Error("a path without a host made an identity")
	}
}
