# Writes the 500x2048x2048 uint16 OME-Zarr (32x256x256 chunks, uncompressed, level 0 only)
# that docs/dragturn.sh drags through: python3 docs/dragvolume.py OUT.ome.zarr (zarr-python 2).
import sys, numpy as np, zarr
out = sys.argv[1]
g = zarr.open_group(out, mode='w')
a = g.create_dataset('0', shape=(500, 2048, 2048), chunks=(32, 256, 256), dtype='<u2', compressor=None)
y = np.arange(2048)[:, None]; x = np.arange(2048)[None, :]
base = 1000 + 800 * np.sin(x / 50) * np.cos(y / 70)
for z0 in range(0, 500, 32):
    z1 = min(500, z0 + 32)
    a[z0:z1] = (base[None] + 2 * np.arange(z0, z1)[:, None, None]).astype('<u2')
g.attrs['multiscales'] = [{'version': '0.4', 'axes': [{'name': n, 'type': 'space', 'unit': 'micrometer'} for n in 'zyx'],
    'datasets': [{'path': '0', 'coordinateTransformations': [{'type': 'scale', 'scale': [2.0, 0.5, 0.5]}]}]}]
