# Writes a BigDataViewer XML + HDF5 pair as BigDataViewer's exporter lays
# it out (sys.argv[1] the folder, sys.argv[2] "channels" or "series"):
# per setup s<ss>/resolutions and s<ss>/subdivisions, per time point and
# level t<ttttt>/s<ss>/<l>/cells as int16 (holding uint16), gzip. Writes
# each series' levels as h5py reads them, viewed as uint16 (T C Z Y X or
# T Z Y X), to ref_<series>_L<l>.npy and prints the expected geometry.
import json, os, sys
import numpy as np
import h5py

out, mode = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(3)
nt = 2
res = np.array([[1, 1, 1], [2, 2, 1], [4, 4, 2]], 'f8')          # x, y, z
sub = np.array([[16, 16, 4], [16, 16, 4], [8, 8, 4]], 'i4')
if mode == 'channels':
    sizes = [(45, 38, 7), (45, 38, 7)]                              # x, y, z
    voxel = (0.4, 0.4, 1.5)
else:
    sizes = [(45, 38, 7), (30, 21, 5)]
    voxel = (0.4, 0.4, 1.5)
affine = [0.8, 0, 0, 10.0, 0, 0.8, 0, -4.0, 0, 0, 3.0, 2.5]         # the registration's scale is 2x voxelSize
with h5py.File(os.path.join(out, 'data.h5'), 'w') as f:
    for s, size in enumerate(sizes):
        f['s%02d/resolutions' % s] = res
        f['s%02d/subdivisions' % s] = sub
        for t in range(nt):
            for l, fac in enumerate(res):
                shp = tuple(int(-(-n // int(k))) for n, k in zip(size[::-1], fac[::-1]))
                a = rng.integers(0, 65535, size=shp, dtype=np.uint16)
                f.create_dataset('t%05d/s%02d/%d/cells' % (t, s, l), data=a.view('i2'),
                                 chunks=tuple(min(int(c), n) for c, n in zip(sub[l][::-1], shp)), compression='gzip')
setups = ''.join('''
      <ViewSetup>
        <id>%d</id>
        <name>setup %d</name>
        <size>%d %d %d</size>
        <voxelSize><unit>µm</unit><size>%g %g %g</size></voxelSize>
        <attributes><illumination>0</illumination><channel>%d</channel><tile>0</tile><angle>0</angle></attributes>
      </ViewSetup>''' % ((s, s) + size + voxel + (s + 1,)) for s, size in enumerate(sizes))
regs = ''.join('''
    <ViewRegistration timepoint="%d" setup="%d">
      <ViewTransform type="affine"><affine>%s</affine></ViewTransform>
    </ViewRegistration>''' % (t, s, ' '.join('%g' % v for v in affine)) for t in range(nt) for s in range(len(sizes)))
xml = '''<?xml version="1.0" encoding="UTF-8"?>
<SpimData version="0.2">
  <BasePath type="relative">.</BasePath>
  <SequenceDescription>
    <ImageLoader format="bdv.hdf5">
      <hdf5 type="relative">data.h5</hdf5>
    </ImageLoader>
    <ViewSetups>%s
      <Attributes name="channel"><Channel><id>1</id><name>1</name></Channel><Channel><id>2</id><name>2</name></Channel></Attributes>
    </ViewSetups>
    <Timepoints type="range"><first>0</first><last>%d</last></Timepoints>
  </SequenceDescription>
  <ViewRegistrations>%s
  </ViewRegistrations>
</SpimData>
''' % (setups, nt - 1, regs)
with open(os.path.join(out, 'data.xml'), 'w') as x:
    x.write(xml)
groups = [[0, 1]] if mode == 'channels' else [[0], [1]]
with h5py.File(os.path.join(out, 'data.h5'), 'r') as f:
    for g, members in enumerate(groups):
        for l in range(len(res)):
            per_t = []
            for t in range(nt):
                per_c = [f['t%05d/s%02d/%d/cells' % (t, s, l)][()].view('u2') for s in members]
                per_t.append(np.stack(per_c) if len(members) > 1 else per_c[0])
            np.save(os.path.join(out, 'ref_%d_L%d.npy' % (g, l)), np.stack(per_t))
sx = [np.hypot.reduce([affine[j], affine[4 + j], affine[8 + j]]) for j in range(3)]
print(json.dumps({'levels': len(res), 'factors': res.tolist(), 'spacing': sx, 'origin': [affine[3], affine[7], affine[11]], 'series': len(groups)}))
