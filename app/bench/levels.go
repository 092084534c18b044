package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"vastview/levels"
	"vastview/loader"
)

// levelsChunkReads is how many random computed chunks benchLevels reads
// back from the disk cache.
const levelsChunkReads = 400

// benchLevels measures the disk cache of computed levels on the 4 GB
// uint16 stack, each figure beside its floor in the same run, repeat
// times: building every computed level into a fresh cache against a plain
// sequential read of the file; opening the pyramid again on the built
// cache until it knows every chunk is there; and reading random computed
// chunks back (the pyramid's memory cache too small to hold them) against
// reading as many bytes at random offsets of the file itself.
func benchLevels(ctx context.Context, env *benchEnv) error {
	f := tiffFixture(env.dir, 2048, 2048, 500, loader.Uint16)
	work, err := env.workOn(f, "levels")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	var reads, builds, ratios, reopens, chunks, floors []float64
	for r := range env.repeat {
		root := filepath.Join(work, fmt.Sprint("levels", r))
		readS, _, err := warmRead(f.path)
		if err != nil {
			return err
		}
		syscall.Sync()
		buildS, err := timedBuild(ctx, f.path, root)
		if err != nil {
			return err
		}
		reopenS, perChunk, chunkBytes, err := timedReopen(ctx, f.path, root)
		if err != nil {
			return err
		}
		floor, err := randomPreads(f.path, chunkBytes)
		if err != nil {
			return err
		}
		env.progress("run %d: read %.3f s, build %.3f s (%.2f×), reopen %.1f ms, chunk %.0f µs (pread %.0f µs)",
			r+1, readS, buildS, buildS/readS, reopenS*1e3, perChunk*1e6, floor*1e6)
		reads, builds, ratios = append(reads, readS), append(builds, buildS), append(ratios, buildS/readS)
		reopens, chunks, floors = append(reopens, reopenS), append(chunks, perChunk), append(floors, floor)
		os.RemoveAll(root)
	}
	env.report("levels.plain_read.seconds", medianOf(reads), "s")
	env.report("levels.build.seconds", medianOf(builds), "s")
	env.report("levels.build.ratio_to_plain_read", medianOf(ratios), "x")
	env.report("levels.reopen.ms", medianOf(reopens)*1e3, "ms")
	env.report("levels.random_chunk.us", medianOf(chunks)*1e6, "us")
	env.report("levels.random_chunk.floor_pread.us", medianOf(floors)*1e6, "us")
	return nil
}

// timedReopen opens the pyramid again on the disk cache at root, times it
// until Build has found every computed chunk there, then reads random
// computed chunks back and returns the seconds per chunk and their size.
func timedReopen(ctx context.Context, path, root string) (reopen, perChunk float64, chunkBytes int, err error) {
	t0 := time.Now()
	src, err := loader.Open(ctx, path)
	if err != nil {
		return 0, 0, 0, err
	}
	d, err := levels.OpenDisk(root, 0)
	if err != nil {
		return 0, 0, 0, err
	}
	id, err := loader.SourceIdentity(path, src)
	if err != nil {
		return 0, 0, 0, err
	}
	pyr, err := levels.Open(src, levels.Options{CacheBytes: 1 << 20, Disk: d, Identity: id})
	if err != nil {
		return 0, 0, 0, err
	}
	defer pyr.Close()
	if err := pyr.Build(ctx, runtime.GOMAXPROCS(0)); err != nil {
		return 0, 0, 0, err
	}
	reopen = time.Since(t0).Seconds()
	if _, computed := pyr.Counts(); computed != 0 {
		return 0, 0, 0, fmt.Errorf("reopened pyramid computed %d chunks", computed)
	}
	lv := pyr.Levels()
	type ref struct {
		level int
		idx   []int
	}
	var all []ref
	for k := pyr.Stored(); k < len(lv); k++ {
		grid := lv[k].Grid()
		for i := range grid[0] * grid[1] * grid[2] {
			all = append(all, ref{k, []int{i / (grid[1] * grid[2]), i / grid[2] % grid[1], i % grid[2]}})
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, lv[pyr.Stored()].ChunkBytes(pyr.Meta().DType))
	t0 = time.Now()
	for range levelsChunkReads {
		c := all[rng.IntN(len(all))]
		n := lv[c.level].ChunkBytes(pyr.Meta().DType)
		if err := pyr.ReadChunk(ctx, c.level, c.idx, buf[:n]); err != nil {
			return 0, 0, 0, err
		}
	}
	perChunk = time.Since(t0).Seconds() / levelsChunkReads
	if _, computed := pyr.Counts(); computed != 0 {
		return 0, 0, 0, fmt.Errorf("reading back computed %d chunks", computed)
	}
	return reopen, perChunk, len(buf), nil
}

// randomPreads reads n bytes at levelsChunkReads random offsets of the
// file at path (in the page cache) and returns the seconds per read.
func randomPreads(path string, n int) (float64, error) {
	fh, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return 0, err
	}
	rng := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, n)
	t0 := time.Now()
	for range levelsChunkReads {
		if _, err := fh.ReadAt(buf, rng.Int64N(st.Size()-int64(n))&^4095); err != nil {
			return 0, err
		}
	}
	return time.Since(t0).Seconds() / levelsChunkReads, nil
}
