# Writes an Imaris-layout file (sys.argv[1]) as ImarisWriter does: three
# resolution levels, 2 time points, 2 channels, gzip chunks padded to whole
# chunks, every attribute an array of one-byte strings. Writes each level's
# image as h5py reads it (cropped to ImageSize, axes T C Z Y X) to
# sys.argv[2] + "_L<r>.npy" and prints the expected metadata as JSON. With
# sys.argv[3] == "nounit" the Unit attribute is left out, as some writers do.
import json, sys
import numpy as np
import h5py

path, base = sys.argv[1], sys.argv[2]

def s1(v):
    return np.frombuffer(str(v).encode(), dtype='S1')

nt, nc = 2, 2
size0 = (9, 70, 45)        # Z, Y, X
chunk = (4, 32, 32)
ext_min, ext_max = (-1.5, 2.0, 0.25), (20.5, 37.0, 9.25)   # X, Y, Z
rng = np.random.default_rng(7)
names = ['DAPI', 'GFP']
colors = ['0.000 0.000 1.000', '0.000 1.000 0.000']
with h5py.File(path, 'w', libver='earliest') as f:
    f.attrs['ImarisDataSet'] = s1('ImarisDataSet')
    f.attrs['ImarisVersion'] = s1('5.5.0')
    f.attrs['DataSetDirectoryName'] = s1('DataSet')
    f.attrs['DataSetInfoDirectoryName'] = s1('DataSetInfo')
    f.attrs['NumberOfDataSets'] = np.array([1], 'u4')
    img = f.create_group('DataSetInfo/Image')
    for k, v in zip('XYZ', size0[::-1]):
        img.attrs[k] = s1(v)
    for i in range(3):
        img.attrs['ExtMin%d' % i] = s1('%.3f' % ext_min[i])
        img.attrs['ExtMax%d' % i] = s1('%.3f' % ext_max[i])
    if sys.argv[3:] != ['nounit']:
        img.attrs['Unit'] = s1('um')
    for c in range(nc):
        g = f.create_group('DataSetInfo/Channel %d' % c)
        g.attrs['Name'] = s1(names[c])
        g.attrs['Color'] = s1(colors[c])
        g.attrs['ColorRange'] = s1('0.000 %d.000' % (1000 * (c + 1)))
    ti = f.create_group('DataSetInfo/TimeInfo')
    ti.attrs['DatasetTimePoints'] = s1(nt)
    ti.attrs['TimePoint1'] = s1('2021-05-04 10:00:00.000')
    ti.attrs['TimePoint2'] = s1('2021-05-04 10:00:02.500')
    levels = []
    size = size0
    for r in range(3):
        lvl = np.zeros((nt, nc) + size, 'u2')
        for t in range(nt):
            for c in range(nc):
                padded = tuple(((n + k - 1) // k) * k for n, k in zip(size, chunk))
                data = np.zeros(padded, 'u2')
                img = rng.integers(0, 65535, size=size, dtype=np.uint16)
                data[:size[0], :size[1], :size[2]] = img
                # Imaris leaves the padding undefined; fill it to see it cropped.
                data[size[0]:, :, :] = 777
                data[:, size[1]:, :] = 777
                data[:, :, size[2]:] = 777
                g = f.create_group('DataSet/ResolutionLevel %d/TimePoint %d/Channel %d' % (r, t, c))
                g.create_dataset('Data', data=data, chunks=chunk, compression='gzip')
                for k, v in zip('ZYX', size):
                    g.attrs['ImageSize' + k] = s1(v)
                g.attrs['HistogramMin'] = s1('0.000')
                g.attrs['HistogramMax'] = s1('65535.000')
                g.create_dataset('Histogram', data=np.zeros(256, 'u8'))
        levels.append(size)
        size = tuple(max(1, (n + 1) // 2) for n in size)
with h5py.File(path, 'r') as f:
    for r, size in enumerate(levels):
        lvl = np.zeros((nt, nc) + size, 'u2')
        for t in range(nt):
            for c in range(nc):
                d = f['DataSet/ResolutionLevel %d/TimePoint %d/Channel %d/Data' % (r, t, c)]
                lvl[t, c] = d[:size[0], :size[1], :size[2]]
        np.save('%s_L%d.npy' % (base, r), lvl)
    info = f['DataSetInfo/Image'].attrs
    ext = [(float(b''.join(info['ExtMin%d' % i])), float(b''.join(info['ExtMax%d' % i]))) for i in range(3)]
    import datetime
    ti = f['DataSetInfo/TimeInfo'].attrs
    stamp = lambda k: datetime.datetime.strptime(b''.join(ti[k]).decode(), '%Y-%m-%d %H:%M:%S.%f')
    tstep = (stamp('TimePoint%d' % nt) - stamp('TimePoint1')).total_seconds() / (nt - 1)
    chans = []
    for c in range(nc):
        a = f['DataSetInfo/Channel %d' % c].attrs
        rgb = [round(float(x) * 255) for x in b''.join(a['Color']).split()]
        lo, hi = [float(x) for x in b''.join(a['ColorRange']).split()]
        chans.append({'name': b''.join(a['Name']).decode(), 'color': rgb, 'window': [lo, hi]})
print(json.dumps({'levels': [list(s) for s in levels], 'nt': nt, 'nc': nc,
                  'spacing': [(ext[2][1] - ext[2][0]) / levels[0][0], (ext[1][1] - ext[1][0]) / levels[0][1], (ext[0][1] - ext[0][0]) / levels[0][2]],
                  'origin': [ext[2][0], ext[1][0], ext[0][0]],
                  'channels': chans, 'tstep': tstep}))
