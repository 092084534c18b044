#!/usr/bin/env python3
# Writes the generated 40 GiB OME-Zarr of docs/PERFORMANCE.md (3-D rendering):
#   python3 docs/bigzarr.py OUT.ome.zarr   (zarr-python 2, numcodecs; about 40 min on one core)
# The volume: a 40 GiB uint16 OME-Zarr 0.4 (1280 x 4096 x 4096, 64x256x256 chunks,
# Blosc LZ4 with shuffle) with five coarser levels, every chunk written.
import sys, numpy as np, zarr, numcodecs, time
out = sys.argv[1]
shape0 = (1280, 4096, 4096)
chunks = (64, 256, 256)
g = zarr.open_group(out, mode='w')
comp = numcodecs.Blosc(cname='lz4', clevel=1, shuffle=numcodecs.Blosc.SHUFFLE)
balls = np.random.default_rng(1).uniform([0, 0, 0], shape0, (200, 3))
def value(zz, yy, xx):
    # zz, yy, xx: level-0 coordinates of the samples (broadcastable)
    v = (zz * 5 + yy * 2 + xx * 3) % 3000 + 200
    v = np.broadcast_to(v, np.broadcast_shapes(zz.shape, yy.shape, xx.shape)).astype(np.uint16).copy()
    for bz, by, bx in balls:
        if abs(bz - zz.mean()) > 200 or abs(by - yy.mean()) > 500 or abs(bx - xx.mean()) > 500:
            continue
        d = ((zz - bz) * 4) ** 2 + (yy - by) ** 2 + (xx - bx) ** 2
        v[d < 120 ** 2] = 60000
    return v
datasets = []
t0 = time.time()
for level in range(6):
    f = 2 ** level
    shape = tuple(max(1, s // f) for s in shape0)
    a = g.create_dataset(str(level), shape=shape, chunks=chunks, dtype='<u2', compressor=comp, dimension_separator='/')
    for z0 in range(0, shape[0], chunks[0]):
        for y0 in range(0, shape[1], chunks[1]):
            for x0 in range(0, shape[2], chunks[2]):
                z1, y1, x1 = min(shape[0], z0 + chunks[0]), min(shape[1], y0 + chunks[1]), min(shape[2], x0 + chunks[2])
                zz = (np.arange(z0, z1) * f + (f - 1) / 2)[:, None, None]
                yy = (np.arange(y0, y1) * f + (f - 1) / 2)[None, :, None]
                xx = (np.arange(x0, x1) * f + (f - 1) / 2)[None, None, :]
                a[z0:z1, y0:y1, x0:x1] = value(zz, yy, xx)
        print(f"level {level} z {z0}/{shape[0]} {time.time() - t0:.0f} s", flush=True)
    datasets.append({'path': str(level), 'coordinateTransformations': [{'type': 'scale', 'scale': [2.0 * f, 0.5 * f, 0.5 * f]}]})
g.attrs['multiscales'] = [{'version': '0.4', 'name': 'big40',
    'axes': [{'name': n, 'type': 'space', 'unit': 'micrometer'} for n in 'zyx'], 'datasets': datasets}]
print("done", time.time() - t0)
