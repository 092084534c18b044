# Times Dask reads of an image served by `vastview serve` beside Dask reads of
# the original TIFF through tifffile; see docs/PERFORMANCE.md.
# usage: python3 dask_bench.py URL/NAME.ome.zarr FILE.tif [RUNS]
import sys, time, statistics
import numpy as np, tifffile, zarr, dask.array as da
url, path = sys.argv[1], sys.argv[2]
def med(f, n=5):
    ts = []
    for _ in range(n):
        t = time.perf_counter(); r = f(); ts.append(time.perf_counter() - t)
    return statistics.median(ts), r
ref = tifffile.imread(path)
store = tifffile.imread(path, aszarr=True)
for label, f in [
    ("served  da.from_zarr(url/0)[::100]", lambda: da.from_zarr(url + "/0")[::100].compute()),
    ("tifffile aszarr da.from_zarr(store)[::100]", lambda: da.from_zarr(store)[::100].compute()),
    ("tifffile memmap da.from_array(mm, chunks=1 frame)[::100]", lambda: da.from_array(tifffile.memmap(path, mode='r'), chunks=(1,) + ref.shape[1:])[::100].compute()),
    ("served  da.from_zarr(url/0) all", lambda: da.from_zarr(url + "/0").compute()),
    ("tifffile aszarr all", lambda: da.from_zarr(store).compute()),
]:
    t, r = med(f, int(sys.argv[3]) if len(sys.argv) > 3 else 5)
    want = ref[::100] if "::100" in label else ref
    assert np.array_equal(r, want), label
    print(f"{label}: {t*1000:.0f} ms", "chunks", da.from_zarr(store).chunksize if "aszarr" in label else "")
