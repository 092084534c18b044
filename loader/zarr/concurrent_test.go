package zarr

import (
	"bytes"
	"context"
	"path/filepath"
	"sync"
	"testing"

	"vastview/loader"
)

// TestConcurrentReads reads every chunk of a sharded and a compressed
// array from many goroutines at once (run with -race): each result equals
// the one read alone.
func TestConcurrentReads(t *testing.T) {
	root := t.TempDir()
	arrays := map[string]*v3Array{
		"sharded.zarr": {dtype: loader.Uint16, shape: []int{3, 40, 50}, chunk: []int{2, 32, 32}, inner: []int{1, 8, 16}, fill: 9,
			codecs: []map[string]any{shardingCodec([]int{1, 8, 16}, "end",
				[]map[string]any{bytesCodec("big"), named("gzip")},
				[]map[string]any{bytesCodec("little"), named("crc32c")})},
			empty: func(i []int) bool { return i[1] == 2 }, seed: 4},
		"zstd.zarr": {dtype: loader.Float32, shape: []int{3, 40, 50}, chunk: []int{1, 16, 16}, fill: 0,
			codecs: []map[string]any{transposeCodec(0, 2, 1), bytesCodec("little"), named("zstd"), named("crc32c")}, seed: 5},
	}
	for name, a := range arrays {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(root, name)
			a.write(t, dir)
			alone := open(t, dir)
			defer alone.Close()
			want, _ := readLevel(t, alone, 0)
			src := open(t, dir)
			defer src.Close()
			var wg sync.WaitGroup
			results := make([][]byte, 8)
			for g := range results {
				wg.Go(func() {
					got, err := loader.ReadAll(context.Background(), &tolerant{Source: src}, 0, 1<<24)
					if err != nil {
						t.Error(err)
					}
					results[g] = got
				})
			}
			wg.Wait()
			for g, got := range results {
				if !bytes.Equal(got, want) {
					t.Errorf("goroutine %d read different samples", g)
				}
			}
		})
	}
}
