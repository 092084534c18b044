package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"vastview/levels"
	"vastview/loader"
)

// benchPyramid measures, on a 4 GB uint16 stack and in one run: a plain
// sequential read of the file; building its levels into a fresh disk
// cache; the whole OME-Zarr export with a 1 GiB budget in a child process
// (time and peak RSS); and the same export made with Dask.
func benchPyramid(ctx context.Context, env *benchEnv) error {
	f := tiffFixture(env.dir, 2048, 2048, 500, loader.Uint16)
	work, err := env.workOn(f, "pyramid")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	readS, size, err := warmRead(f.path)
	if err != nil {
		return err
	}
	env.report("pyramid.plain_read.seconds", readS, "s")
	env.report("pyramid.plain_read.gbps", float64(size)/readS/1e9, "GB/s")

	env.progress("building levels")
	buildS, err := timedBuild(ctx, f.path, filepath.Join(work, "levels"))
	if err != nil {
		return err
	}
	env.report("pyramid.build_levels.seconds", buildS, "s")
	env.report("pyramid.build_levels.ratio_to_plain_read", buildS/readS, "x")

	env.progress("exporting OME-Zarr")
	exportS, rss, _, err := timedExport(f.path, work, "zstd")
	if err != nil {
		return err
	}
	env.report("pyramid.export.seconds", exportS, "s")
	env.report("pyramid.export.peak_rss_gib", float64(rss)/(1<<30), "GiB")
	rawS, _, files, err := timedExport(f.path, work, "none")
	if err != nil {
		return err
	}
	env.report("pyramid.export_uncompressed.seconds", rawS, "s")
	if err := reportFloors(env, f.path, work, files, exportS, rawS); err != nil {
		return err
	}

	env.progress("exporting with Dask (slow)")
	daskS, err := timedDask(f.path, filepath.Join(work, "dask.zarr"))
	if err != nil {
		env.progress("dask: %v", err)
		return nil
	}
	env.report("pyramid.dask_export.seconds", daskS, "s")
	env.report("pyramid.export.speedup_vs_dask", daskS/exportS, "x")
	return nil
}

func timedRead(path string) (seconds float64, size int64, err error) {
	fh, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer fh.Close()
	buf := make([]byte, 8<<20)
	t0 := time.Now()
	for {
		n, err := fh.Read(buf)
		size += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, 0, err
		}
	}
	return time.Since(t0).Seconds(), size, nil
}

func timedBuild(ctx context.Context, path, diskRoot string) (float64, error) {
	t0 := time.Now()
	src, err := loader.Open(ctx, path)
	if err != nil {
		return 0, err
	}
	d, err := levels.OpenDisk(diskRoot, 0)
	if err != nil {
		return 0, err
	}
	id, err := loader.SourceIdentity(path, src)
	if err != nil {
		return 0, err
	}
	pyr, err := levels.Open(src, levels.Options{CacheBytes: 1 << 30, Disk: d, Identity: id})
	if err != nil {
		return 0, err
	}
	defer pyr.Close()
	if err := pyr.DiskError(); err != nil {
		return 0, err
	}
	if err := pyr.Build(ctx, runtime.GOMAXPROCS(0)); err != nil {
		return 0, err
	}
	return time.Since(t0).Seconds(), nil
}

// timedExport runs `vastview pyramid --budget 1GiB --codec CODEC` in a
// child process with an empty cache folder and returns its wall time, peak
// RSS in bytes and the sizes of the files it wrote.
func timedExport(path, work, codec string) (float64, int64, []int64, error) {
	out := filepath.Join(work, codec+".ome.zarr")
	defer os.RemoveAll(out)
	s, rss, err := runSelf([]string{"XDG_CACHE_HOME=" + filepath.Join(work, "cache-"+codec)},
		"pyramid", path, out, "--budget", "1GiB", "--codec", codec)
	if err != nil {
		return 0, 0, nil, fmt.Errorf("export: %w", err)
	}
	files, err := outputFiles(out)
	return s, rss, files, err
}

// reportFloors measures, for the uncompressed export's files (their count
// and sizes), compressing them alone and writing them alone (raw, and at
// their compressed sizes), and reports the exports as ratios to those
// floors.
func reportFloors(env *benchEnv, path, work string, files []int64, exportS, rawS float64) error {
	var total, largest int64
	for _, n := range files {
		total += n
		largest = max(largest, n)
	}
	data, err := sample(path, max(largest, 64<<20))
	if err != nil {
		return err
	}
	env.progress("floors: %d files, %.2f GB", len(files), float64(total)/1e9)
	compS, packed, err := compressFloor(data, files)
	if err != nil {
		return err
	}
	writeRawS, err := writeFloor(work, data, files)
	if err != nil {
		return err
	}
	writeZS, err := writeFloor(work, data, packed)
	if err != nil {
		return err
	}
	env.report("pyramid.floor.output_files", float64(len(files)), "files")
	env.report("pyramid.floor.compress_zstd1.seconds", compS, "s")
	env.report("pyramid.floor.write_raw.seconds", writeRawS, "s")
	env.report("pyramid.floor.write_compressed.seconds", writeZS, "s")
	env.report("pyramid.export.ratio_to_compress_plus_write", exportS/(compS+writeZS), "x")
	env.report("pyramid.export_uncompressed.ratio_to_write", rawS/writeRawS, "x")
	return nil
}

// runSelf runs this program with args (and env added to the environment)
// in a child process and returns its wall time and peak RSS in bytes.
func runSelf(env []string, args ...string) (float64, int64, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, 0, err
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("%v: %s", err, stderr.String())
	}
	s := time.Since(t0).Seconds()
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if ru == nil {
		return s, 0, nil
	}
	return s, ru.Maxrss * 1024, nil
}

// daskPyramid is the same pyramid made the usual Dask way: coarsen means
// and to_zarr with zstd level 1, level after level.
const daskPyramid = `
import sys, time, numpy as np, tifffile, dask, dask.array as da, zarr
from numcodecs import Zstd
t0 = time.time()
a = da.from_zarr(tifffile.imread(sys.argv[1], aszarr=True)).rechunk((16, 1024, 1024))
store = zarr.DirectoryStore(sys.argv[2])
k, lvl = 0, a
while True:
    lvl.to_zarr(store, component=str(k), compressor=Zstd(level=1), overwrite=True)
    red = {i: 2 for i, n in enumerate(lvl.shape) if n > (16 if i == 0 else 256)}
    if not red:
        break
    lvl = da.from_zarr(store, component=str(k))
    lvl = lvl.rechunk(tuple(min(n, c) for n, c in zip(lvl.shape, (16, 1024, 1024))))
    lvl = da.coarsen(np.mean, lvl, red, trim_excess=True).astype(a.dtype)
    lvl = lvl.rechunk(tuple(min(n, c) for n, c in zip(lvl.shape, (16, 1024, 1024))))
    k += 1
print(time.time() - t0)
`

func timedDask(path, out string) (float64, error) {
	cmd := exec.Command("/usr/bin/python3", "-c", daskPyramid, path, out)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("%v: %s", err, stderr.String())
	}
	return strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
}
