package zarr_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"sort"
	"strings"
	"testing"

	"vastview/loader/zarr/store"
)

// TestS3Put writes to a real S3 implementation (versitygw): a small value
// in one request, a large one in a multipart upload, both read back equal;
// List names them; Delete removes one; a missing bucket and wrong
// credentials each fail in one line naming the address, without the
// secret.
func TestS3Put(t *testing.T) {
	addr, _ := startGateway(t)
	base := "http://" + addr
	s3Must(t, http.MethodPut, base+"/out", nil)
	isolateAWS(t)
	t.Setenv("AWS_ACCESS_KEY_ID", s3Access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3Secret)
	t.Setenv("AWS_ENDPOINT_URL", base)
	ctx := context.Background()
	st, err := store.NewS3("s3://out/img.zarr", store.HTTPOptions{PartSize: 5 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	small := []byte("{}")
	big := make([]byte, 12<<20+123)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range big {
		big[i] = byte(r.Uint32())
	}
	if err := st.Put(ctx, "zarr.json", small); err != nil {
		t.Fatal(err)
	}
	if err := st.Put(ctx, "0/c/0/0", big); err != nil {
		t.Fatal(err)
	}
	if n := st.Stats().Uploads; n != 1 {
		t.Errorf("%d multipart uploads, want 1", n)
	}
	for k, want := range map[string][]byte{"zarr.json": small, "0/c/0/0": big} {
		got, err := st.Get(ctx, k)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: read back %d bytes (%v), want %d", k, len(got), err, len(want))
		}
	}
	var names []string
	if err := st.ListObjects(ctx, "", func(n string, folder bool) error {
		if folder {
			n += "/"
		}
		names = append(names, n)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	if strings.Join(names, " ") != "0/ zarr.json" {
		t.Errorf("listed %q", names)
	}
	if err := st.Delete(ctx, "zarr.json"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, "zarr.json"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("after Delete: %v", err)
	}
	if err := st.Delete(ctx, "zarr.json"); err != nil {
		t.Errorf("deleting a missing value: %v", err)
	}

	nob, err := store.NewS3("s3://nobucket/img.zarr", store.HTTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer nob.Close()
	err = nob.Put(ctx, "zarr.json", small)
	if err == nil || !strings.Contains(err.Error(), "s3://nobucket/img.zarr/zarr.json: no such bucket") || strings.Contains(err.Error(), "\n") {
		t.Errorf("missing bucket: %v", err)
	}
	t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong-secret-123")
	bad, err := store.NewS3("s3://out/img.zarr", store.HTTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	err = bad.Put(ctx, "zarr.json", small)
	if err == nil || !strings.Contains(err.Error(), "s3://out/img.zarr/zarr.json") || !strings.Contains(err.Error(), "access denied") ||
		strings.Contains(err.Error(), "wrong-secret-123") || strings.Contains(err.Error(), "\n") {
		t.Errorf("wrong credentials: %v", err)
	}
}
