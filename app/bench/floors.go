package bench

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"vastview/levels/omezarr"
)

// outputFiles lists the sizes of the files an export wrote under root.
func outputFiles(root string) ([]int64, error) {
	var sizes []int64
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			sizes = append(sizes, info.Size())
		}
		return err
	})
	return sizes, err
}

// sample is up to n bytes read from the start of path: data like the
// output's, to compress or write.
func sample(path string, n int64) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b := make([]byte, n)
	m, err := fh.ReadAt(b, 0)
	if m > 0 {
		err = nil
	}
	return b[:m], err
}

// eachPiece runs fn(w, i) for every i below n on workers goroutines (w is
// the goroutine's number), each taking the next i when done, and returns
// the wall time and the first error.
func eachPiece(n, workers int, fn func(w, i int) error) (float64, error) {
	var next atomic.Int64
	t0 := time.Now()
	var g errgroup.Group
	for w := range workers {
		g.Go(func() error {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				if err := fn(w, i); err != nil {
					return err
				}
			}
			return nil
		})
	}
	err := g.Wait()
	return time.Since(t0).Seconds(), err
}

// compressFloor times the export's zstd level 1 encoder (the same
// options, omezarr.NewEncoder) compressing pieces of the given sizes, cut
// from data, on every core with one buffer per goroutine: compression
// alone, no reads or writes. It returns the time and the compressed sizes.
func compressFloor(data []byte, sizes []int64) (float64, []int64, error) {
	workers := runtime.GOMAXPROCS(0)
	encode, release, err := omezarr.NewEncoder("zstd", 1, workers)
	if err != nil {
		return 0, nil, err
	}
	defer release()
	out := make([]int64, len(sizes))
	dst := make([][]byte, workers)
	s, err := eachPiece(len(sizes), workers, func(w, i int) error {
		off := int64(i) * 4096 % max(1, int64(len(data))-sizes[i])
		var err error
		dst[w], err = encode(data[off:off+min(sizes[i], int64(len(data)))], dst[w][:0])
		out[i] = int64(len(dst[w]))
		return err
	})
	return s, out, err
}

// writeFloor times writing files of the given sizes (bytes from data)
// into a fresh folder under work, one goroutine per core, without fsync:
// the file-system work of an export's output alone.
func writeFloor(work string, data []byte, sizes []int64) (float64, error) {
	dir, err := os.MkdirTemp(work, "floor-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		if err := os.Mkdir(filepath.Join(dir, string(rune('a'+w))), 0o755); err != nil {
			return 0, err
		}
	}
	return eachPiece(len(sizes), workers, func(w, i int) error {
		b := data[:min(sizes[i], int64(len(data)))]
		return os.WriteFile(filepath.Join(dir, string(rune('a'+w)), strconv.Itoa(i)), b, 0o644)
	})
}
