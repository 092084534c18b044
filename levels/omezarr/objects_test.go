package omezarr

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
	"vastview/loader/zarr/store"
)

// TestWriteObjectsMultipart writes an image whose shard is larger than
// the multipart threshold to a real S3 implementation (versitygw): the
// shard goes up in a multipart upload (its ETag says how many parts), and
// every object equals what a write to a folder stores.
func TestWriteObjectsMultipart(t *testing.T) {
	root := t.TempDir()
	addr := testtool.S3Gateway(t, root, "VVOMEZARRACCESS", "vvOmeZarrSecret-41c9", "out")
	none := filepath.Join(t.TempDir(), "none")
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "VVOMEZARRACCESS", "AWS_SECRET_ACCESS_KEY": "vvOmeZarrSecret-41c9",
		"AWS_SESSION_TOKEN": "", "AWS_PROFILE": "", "AWS_REGION": "", "AWS_ENDPOINT_URL": "http://" + addr,
		"AWS_ENDPOINT_URL_S3": "", "AWS_CONFIG_FILE": none, "AWS_SHARED_CREDENTIALS_FILE": none,
		"AWS_EC2_METADATA_DISABLED": "true"} {
		t.Setenv(k, v)
	}
	old := objectPartSize
	objectPartSize = 5 << 20
	defer func() { objectPartSize = old }()
	// 4 × 1024 × 1024 uint16 in 1 × 512 × 512 chunks, one 8 MiB shard of
	// raw chunks: two parts.
	m := loader.NewMeta("mem", "ZYX", []int{4, 1024, 1024}, loader.Uint16, []int{1, 512, 512}, nil, nil)
	src := &chunkedSource{meta: m}
	seed := uint32(7)
	for range 16 {
		b := make([]byte, m.Levels[0].ChunkBytes(loader.Uint16))
		for i := range b {
			seed = seed*1664525 + 1013904223
			b[i] = byte(seed >> 24)
		}
		src.chunks = append(src.chunks, b)
	}
	opts := Options{Version: 3, Codec: "none", Shard: []int{4, 1024, 1024}}
	dir := filepath.Join(t.TempDir(), "img.ome.zarr")
	ctx := context.Background()
	if err := Write(ctx, dir, src, opts); err != nil {
		t.Fatal(err)
	}
	if err := Write(ctx, "s3://out/img.ome.zarr", src, opts); err != nil {
		t.Fatal(err)
	}
	st, err := store.NewS3("s3://out/img.ome.zarr", store.HTTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	n := 0
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		want, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		got, err := st.Get(ctx, filepath.ToSlash(rel))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes (%v), want the folder's %d", rel, len(got), err, len(want))
		}
		n++
		return nil
	})
	if n < 2 {
		t.Fatalf("the folder holds %d files", n)
	}
	_, info, err := st.GetAtMost(ctx, "0/c/0/0/0", 64<<20)
	if err != nil || !strings.HasSuffix(strings.Trim(info.ETag, `"`), "-2") {
		t.Errorf("the 8 MiB shard's ETag is %q (%v), not that of a two-part upload", info.ETag, err)
	}
}
