package zarr

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
	"vastview/loader/zarr/store"
)

// countingFolder is a folder store that counts the values it is asked for.
type countingFolder struct {
	*store.Folder
	gets atomic.Int64
}

func (c *countingFolder) Get(ctx context.Context, key string) ([]byte, error) {
	c.gets.Add(1)
	return c.Folder.Get(ctx, key)
}

// tinyChunks writes, with zarr-python, arrays of 1×1×1 chunks that hold
// only a few samples other than the fill value (zarr writes no chunk of
// fill values), with "." and "/" separated keys, and the planes z=1 and
// y=7 as zarr reads them.
const tinyChunks = `
import sys, numpy as np, zarr
out = sys.argv[1]
for sep in ('.', '/'):
    name = 'dot' if sep == '.' else 'slash'
    z = zarr.open(out + '/' + name + '.zarr', mode='w', shape=(5, 400, 300), chunks=(1, 1, 1),
                  dtype='<u2', fill_value=7, dimension_separator=sep)
    z[1, 5, 5] = 100
    z[1, 399, 298] = 200
    z[1, 7, 0:4] = [1, 2, 3, 4]
    z[0, 7, 9] = 300
    z[2, 0, 0] = 400
    z[4, 7, 299] = 500
    z[1].tofile(out + '/' + name + '.z1.raw')
    z[:, 7, :].tofile(out + '/' + name + '.y7.raw')
`

// TestPlanesOfTinyChunksAreReadFromAListing reads planes crossing 120,000
// chunks of one sample, nearly all absent: the folder is listed, and only
// the chunks it holds are read; the samples equal zarr's.
func TestPlanesOfTinyChunksAreReadFromAListing(t *testing.T) {
	testtool.RequirePython(t, "zarr", "numpy")
	dir := t.TempDir()
	testtool.RunPython(t, tinyChunks, dir)
	for _, name := range []string{"dot", "slash"} {
		st := &countingFolder{Folder: store.NewFolder(filepath.Join(dir, name+".zarr"))}
		src, err := OpenStore(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			plane loader.Plane
			raw   string
			held  int64 // chunks stored on the plane
		}{
			{loader.Plane{Orientation: loader.XY, At: map[byte]int{'Z': 1}}, ".z1.raw", 6},
			{loader.Plane{Orientation: loader.XZ, At: map[byte]int{'Y': 7}}, ".y7.raw", 6},
		} {
			before := st.gets.Load()
			got, _, _, err := loader.ReadPlane(context.Background(), src, 0, c.plane)
			if err != nil {
				t.Fatalf("%s %s: %v", name, c.plane.Orientation, err)
			}
			if n := st.gets.Load() - before; n != c.held {
				t.Errorf("%s %s: %d values read, want the %d stored", name, c.plane.Orientation, n, c.held)
			}
			want, err := os.ReadFile(filepath.Join(dir, name+c.raw))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s %s: samples differ from zarr's", name, c.plane.Orientation)
			}
		}
		src.Close()
	}
}

// TestPlanesOfTinyChunksOverHTTPAreRefused reads, over HTTP (which cannot
// list), a plane crossing 120,000 chunks: it is refused in one line that
// names the count, without a request per chunk.
func TestPlanesOfTinyChunksOverHTTPAreRefused(t *testing.T) {
	testtool.RequirePython(t, "zarr", "numpy")
	dir := t.TempDir()
	testtool.RunPython(t, tinyChunks, dir)
	var requests atomic.Int64
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()
	st, err := store.NewHTTP(srv.URL+"/dot.zarr", store.HTTPOptions{Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	src, err := OpenStore(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	before := requests.Load()
	_, _, _, err = loader.ReadPlane(context.Background(), src, 0, loader.Plane{Orientation: loader.XY, At: map[byte]int{'Z': 1}})
	if err == nil || !strings.Contains(err.Error(), "120000 chunks of 1×1×1") || strings.Contains(err.Error(), "\n") {
		t.Errorf("plane over HTTP: %v", err)
	}
	if n := requests.Load() - before; n > 0 {
		t.Errorf("%d requests for a refused plane", n)
	}
	// A plane of fewer chunks is still read chunk by chunk.
	got, _, _, err := loader.ReadPlane(context.Background(), src, 0, loader.Plane{Orientation: loader.YZ, At: map[byte]int{'X': 9}})
	if err != nil || len(got) != 2*5*400 {
		t.Fatalf("yz plane: %d bytes, %v", len(got), err)
	}
}

func (c *countingFolder) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	c.gets.Add(1)
	return c.Folder.GetRange(ctx, key, off, n)
}

// TestPlanesOfShardedTinyChunksListTheShards reads a plane crossing 8192
// inner chunks of a sharded array whose one stored shard on the plane
// holds 256: the shards are listed, and only that shard is read.
func TestPlanesOfShardedTinyChunksListTheShards(t *testing.T) {
	root := t.TempDir()
	a := &v3Array{dtype: loader.Uint16, shape: []int{3, 256, 512}, chunk: []int{1, 64, 64}, inner: []int{1, 4, 4}, fill: 7,
		codecs: []map[string]any{shardingCodec([]int{1, 4, 4}, "end",
			[]map[string]any{bytesCodec("little")}, []map[string]any{bytesCodec("little")})},
		empty: func(idx []int) bool { return idx[0] != 1 || idx[1] >= 16 || idx[2] >= 16 }, seed: 9}
	a.write(t, root)
	st := &countingFolder{Folder: store.NewFolder(root)}
	src, err := OpenStore(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	before := st.gets.Load()
	got, _, _, err := loader.ReadPlane(context.Background(), src, 0, loader.Plane{Orientation: loader.XY, At: map[byte]int{'Z': 1}})
	if err != nil {
		t.Fatal(err)
	}
	if n := st.gets.Load() - before; n > 256+2 {
		t.Errorf("%d values read, want the 256 stored chunks and the shard's index", n)
	}
	plane := 2 * 256 * 512
	if want := a.expected(a.inner, []byte{7, 0})[plane : 2*plane]; !bytes.Equal(got, want) {
		t.Error("samples differ from those written")
	}
}
