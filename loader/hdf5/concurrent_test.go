package hdf5

import (
	"bytes"
	"context"
	"path/filepath"
	"sync"
	"testing"

	"vastview/loader"
)

// TestConcurrentChunks reads every chunk of a chunked dataset from many
// goroutines at once (run with -race): each equals the chunk read alone.
func TestConcurrentChunks(t *testing.T) {
	dir, _ := fixtures(t, "latest")
	for _, sel := range []string{"/bt2_gz", "/ext", "/fixed_paged_gz", "/contig"} {
		src, err := loader.Open(context.Background(), filepath.Join(dir, "layouts.h5")+"#"+sel)
		if err != nil {
			src, err = loader.Open(context.Background(), filepath.Join(dir, "latest.h5")+"#"+sel)
		}
		if err != nil {
			t.Fatal(err)
		}
		m := src.Meta()
		l := &m.Levels[0]
		g := l.Grid()
		var idxs [][]int
		var walk func(i int, cur []int)
		walk = func(i int, cur []int) {
			if i == len(g) {
				idxs = append(idxs, append([]int(nil), cur...))
				return
			}
			for v := 0; v < g[i]; v++ {
				walk(i+1, append(cur, v))
			}
		}
		walk(0, nil)
		want := make([][]byte, len(idxs))
		got := make([][]byte, len(idxs))
		var wg sync.WaitGroup
		errs := make(chan error, len(idxs))
		for i, idx := range idxs {
			got[i] = make([]byte, l.ChunkBytes(m.DType))
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := src.ReadChunk(context.Background(), 0, idx, got[i]); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		src.Close()
		// Again, one at a time, from a new source.
		src, _ = loader.Open(context.Background(), src.(*source).path+"#"+sel)
		for i, idx := range idxs {
			want[i] = make([]byte, l.ChunkBytes(m.DType))
			if err := src.ReadChunk(context.Background(), 0, idx, want[i]); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("%s chunk %v differs when read concurrently", sel, idx)
			}
		}
		src.Close()
	}
}
