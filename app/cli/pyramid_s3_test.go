package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/levels/omezarr"
	"vastview/loader/zarr/store"
)

const (
	gwAccess = "VVTESTPYRAMIDACCESS"
	gwSecret = "vvPyramidSecret-5e1d0c"
)

// TestPyramidToS3 writes pyramids to a real S3 implementation (versitygw):
// a plain run, and two parts and --finish, each with Zarr v2 and with v3
// shards, equal one plain run into a folder object by object, byte for
// byte, and leave nothing else (no parts' records); a missing bucket and
// wrong credentials each fail in one line naming the address, exit 1,
// without the secret.
func TestPyramidToS3(t *testing.T) {
	root := t.TempDir()
	base := "http://" + testtool.S3Gateway(t, root, gwAccess, gwSecret, "out")
	none := filepath.Join(t.TempDir(), "none")
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": gwAccess, "AWS_SECRET_ACCESS_KEY": gwSecret,
		"AWS_SESSION_TOKEN": "", "AWS_PROFILE": "", "AWS_REGION": "", "AWS_DEFAULT_REGION": "",
		"AWS_ENDPOINT_URL": base, "AWS_ENDPOINT_URL_S3": "", "AWS_CONFIG_FILE": none,
		"AWS_SHARED_CREDENTIALS_FILE": none, "AWS_EC2_METADATA_DISABLED": "true"} {
		t.Setenv(k, v)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src.ome.zarr")
	if err := omezarr.Write(context.Background(), src, newVolSource(), omezarr.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, flags := range [][]string{nil, {"--zarr", "3", "--shard", "4,150,140"}} {
		name := "v2"
		if flags != nil {
			name = "v3"
		}
		t.Run(name, func(t *testing.T) {
			plain := filepath.Join(dir, name, "img.ome.zarr")
			os.MkdirAll(filepath.Dir(plain), 0o755)
			mustRun(t, append([]string{"pyramid", src, plain}, flags...)...)
			want := files(t, plain)
			if len(want) < 4 {
				t.Fatalf("the folder run wrote %d files", len(want))
			}
			mustRun(t, append([]string{"pyramid", src, "s3://out/" + name + "/plain/img.ome.zarr"}, flags...)...)
			for _, p := range []string{"1/2", "2/2"} {
				mustRun(t, append([]string{"pyramid", src, "s3://out/" + name + "/parts/img.ome.zarr", "--part", p}, flags...)...)
			}
			mustRun(t, append([]string{"pyramid", src, "s3://out/" + name + "/parts/img.ome.zarr", "--finish"}, flags...)...)
			for _, run := range []string{"plain", "parts"} {
				loc := "s3://out/" + name + "/" + run + "/img.ome.zarr"
				st, err := store.NewS3(loc, store.HTTPOptions{})
				if err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				for k, v := range want {
					got, err := st.Get(context.Background(), k)
					if err != nil || !bytes.Equal(got, v) {
						t.Errorf("%s %s: %d bytes (%v), want the folder run's %d", loc, k, len(got), err, len(v))
					}
				}
				// What the gateway stores: the same objects, nothing more.
				stored := files(t, filepath.Join(root, "out", name, run, "img.ome.zarr"))
				for k := range stored {
					if _, ok := want[k]; !ok {
						t.Errorf("%s holds %s, which the folder run has not", loc, k)
					}
				}
			}
		})
	}

	code, _, errs := vv("pyramid", src, "s3://nobucket/img.ome.zarr")
	if code != 1 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "s3://nobucket/img.ome.zarr") ||
		!strings.Contains(errs, "no such bucket") {
		t.Errorf("missing bucket: exit %d, stderr %q", code, errs)
	}
	t.Setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret-7731")
	code, _, errs = vv("pyramid", src, "s3://out/denied.ome.zarr")
	if code != 1 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "s3://out/denied.ome.zarr") ||
		!strings.Contains(errs, "access denied") || strings.Contains(errs, "not-the-secret-7731") {
		t.Errorf("wrong credentials: exit %d, stderr %q", code, errs)
	}
}
