# Writes HDF5 fixtures with h5py into sys.argv[1] and, next to each
# dataset, its values as h5py reads them (little-endian .npy); prints a
# JSON list of {"file", "path", "npy"}.
import json, os, sys
import numpy as np
import h5py

out = sys.argv[1]
which = sys.argv[2] if len(sys.argv) > 2 else "all"
cases = []

def vals(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == 'f':
        a = rng.standard_normal(shape) * 1000
    else:
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=np.int64)
    return a.astype(dt)

def save(fname, f, path):
    a = f[path][()]
    a = a.astype(a.dtype.newbyteorder('<'))
    npy = os.path.join(out, fname + path.replace('/', '_') + '.npy')
    np.save(npy, a)
    cases.append({"file": fname, "path": path, "npy": npy})

def compact(f, name, data):
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_layout(h5py.h5d.COMPACT)
    space = h5py.h5s.create_simple(data.shape, data.shape)
    h5py.h5d.create(f.id, name.encode(), h5py.h5t.py_create(data.dtype), space, dcpl=dcpl)
    f[name][...] = data

def common(fname, libver):
    p = os.path.join(out, fname)
    with h5py.File(p, 'w', libver=libver) as f:
        f.create_dataset('/a/b/data', data=vals((5, 37, 29), 'u2', 1), chunks=(2, 16, 16), compression='gzip')
        f.create_dataset('contig', data=vals((3, 20, 30), 'f4', 2))
        f.create_dataset('contig_bands', data=vals((2, 2500, 1001), 'u2', 11))
        compact(f, 'compact2d', vals((10, 12), 'i1', 3))
        f.create_dataset('be', data=vals((4, 19, 21), '>i2', 4), chunks=(3, 8, 8), shuffle=True, compression='gzip')
        f.create_dataset('f64', data=vals((2, 3, 17, 13), 'f8', 5), chunks=(1, 2, 8, 8), fletcher32=True)
        f.create_dataset('u8', data=vals((33, 31), 'u1', 6), chunks=(8, 8))
        f.create_dataset('i32be', data=vals((2, 3, 2, 9, 11), '>i4', 7), chunks=(1, 2, 2, 4, 4), compression='gzip')
        f.create_dataset('u32', data=vals((6, 7), 'u4', 8))
        f.create_dataset('i16', data=vals((7, 6), 'i2', 9), chunks=(7, 6))
        f.create_dataset('f32be', data=vals((9, 10), '>f4', 10))
        g = f.create_group('many')
        for i in range(12):
            g.create_dataset('d%02d' % i, data=vals((3, 4), 'u1', 100 + i))
        f['a'].attrs['vlen'] = 'variable length text'
        f['a'].attrs['fixed'] = np.bytes_('fixed text')
        f['a'].attrs['nums'] = np.array([1.5, -2, 3], 'f8')
    with h5py.File(p, 'r') as f:
        for path in ['/a/b/data', '/contig', '/contig_bands', '/compact2d', '/be', '/f64', '/u8', '/i32be', '/u32', '/i16', '/f32be', '/many/d11']:
            save(fname, f, path)

def layouts(fname):
    p = os.path.join(out, fname)
    with h5py.File(p, 'w', libver='latest') as f:
        f.create_dataset('single', data=vals((13, 17), 'u2', 20), chunks=(13, 17), maxshape=(13, 17))
        f.create_dataset('single_gz', data=vals((13, 17), 'u2', 21), chunks=(13, 17), maxshape=(13, 17), compression='gzip')
        f.create_dataset('fixed', data=vals((20, 30), 'i2', 22), chunks=(6, 7))
        f.create_dataset('fixed_gz', data=vals((20, 30), 'i2', 23), chunks=(6, 7), compression='gzip')
        f.create_dataset('fixed_max', data=vals((20, 30), 'u2', 33), chunks=(6, 7), maxshape=(40, 61))
        f.create_dataset('fixed_paged', data=vals((40, 40, 41), 'u1', 24), chunks=(1, 1, 41))
        f.create_dataset('fixed_paged_gz', data=vals((40, 40, 41), 'u1', 25), chunks=(1, 1, 41), compression='gzip')
        f.create_dataset('ext', data=vals((300, 8, 9), 'u2', 26), chunks=(1, 8, 9), maxshape=(None, 8, 9))
        f.create_dataset('ext_gz', data=vals((300, 8, 9), 'u2', 27), chunks=(1, 8, 9), maxshape=(None, 8, 9), compression='gzip')
        f.create_dataset('ext_mid', data=vals((3, 200, 5), 'f4', 28), chunks=(3, 1, 5), maxshape=(3, None, 5))
        f.create_dataset('bt2', data=vals((100, 30, 20), 'u2', 29), chunks=(1, 3, 20), maxshape=(None, None, 20))
        f.create_dataset('bt2_gz', data=vals((100, 30, 20), 'u2', 30), chunks=(1, 3, 20), maxshape=(None, None, 20), compression='gzip', shuffle=True)
        # Implicit index: early allocation, no filter.
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_chunk((4, 5))
        dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
        space = h5py.h5s.create_simple((10, 11), (10, 11))
        h5py.h5d.create(f.id, b'implicit', h5py.h5t.STD_U16LE, space, dcpl=dcpl)
        f['implicit'][...] = vals((10, 11), 'u2', 31)
        space = h5py.h5s.create_simple((10, 11), (13, 23))
        h5py.h5d.create(f.id, b'implicit_max', h5py.h5t.STD_U8LE, space, dcpl=dcpl)
        f['implicit_max'][...] = vals((10, 11), 'u1', 34)
        # An unwritten chunk reads as the fill value.
        f.create_dataset('sparse', shape=(20, 20), dtype='i2', chunks=(10, 10), fillvalue=-7)
        f['sparse'][0:10, 0:10] = vals((10, 10), 'i2', 32)
        g = f.create_group('dense', track_order=True)
        for i in range(12):
            g.create_dataset('z%02d' % (11 - i), data=vals((3, 5), 'u1', 200 + i))
        f['dense'].attrs['vlen'] = 'dense group text'
        # More than 8 attributes: stored densely (fractal heap + v2 B-tree).
        for i in range(20):
            f['fixed'].attrs['a%02d' % i] = np.float64(i * 1.5 - 3)
        f['fixed'].attrs['text'] = 'dense attribute text'
    with h5py.File(p, 'r') as f:
        for path in ['/fixed_max', '/single', '/single_gz', '/fixed', '/fixed_gz', '/fixed_paged', '/fixed_paged_gz', '/ext', '/ext_gz', '/ext_mid', '/bt2', '/bt2_gz', '/implicit', '/implicit_max', '/sparse', '/dense/z00', '/dense/z11']:
            save(fname, f, path)

def bshuf_blocks(a, bs):
    # bitshuffle's transpose, block by block: for every bit of every
    # byte of an element (least significant first), that bit of each
    # element, 8 elements to a byte; the last n % 8 elements stay as they are.
    es = a.dtype.itemsize
    n = a.size
    raw = a.reshape(-1).view(np.uint8).reshape(n, es)
    blocks, i = [], 0
    while i + 8 <= n:
        m = min(bs, n - i)
        m -= m % 8
        bits = np.unpackbits(raw[i:i + m], axis=1, bitorder='little')
        blocks.append(np.packbits(bits.T, axis=1, bitorder='little').tobytes())
        i += m
    return blocks, raw[i:].tobytes()

def bshuf_default(es):
    return max(128, (8192 // es) - (8192 // es) % 8)

def bshuf_plain(a):
    blocks, rest = bshuf_blocks(a, bshuf_default(a.dtype.itemsize))
    return b''.join(blocks) + rest

def bshuf_lz4(a):
    import lz4.block
    bs = bshuf_default(a.dtype.itemsize)
    blocks, rest = bshuf_blocks(a, bs)
    out = [a.nbytes.to_bytes(8, 'big'), (bs * a.dtype.itemsize).to_bytes(4, 'big')]
    for b in blocks:
        c = lz4.block.compress(b, store_size=False)
        out += [len(c).to_bytes(4, 'big'), c]
    return b''.join(out) + rest

def zstd_chunk(a):
    import numcodecs
    return numcodecs.Zstd(level=3).encode(a.tobytes())

def direct(f, name, data, chunks, fid, cd, enc):
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk(chunks)
    dcpl.set_filter(fid, h5py.h5z.FLAG_OPTIONAL, cd)
    space = h5py.h5s.create_simple(data.shape, data.shape)
    h5py.h5d.create(f.id, name.encode(), h5py.h5t.py_create(data.dtype), space, dcpl=dcpl)
    ds = f[name]
    grid = [(n + c - 1) // c for n, c in zip(data.shape, chunks)]
    for idx in np.ndindex(*grid):
        sl = tuple(slice(i * c, min((i + 1) * c, n)) for i, c, n in zip(idx, chunks, data.shape))
        full = np.zeros(chunks, data.dtype)
        part = data[sl]
        full[tuple(slice(0, s) for s in part.shape)] = part
        ds.id.write_direct_chunk(tuple(i * c for i, c in zip(idx, chunks)), enc(full), filter_mask=0)
    direct_values[name] = data

direct_values = {}

def plugins(fname):
    import hdf5plugin
    p = os.path.join(out, fname)
    with h5py.File(p, 'w') as f:
        f.create_dataset('lz4', data=vals((7, 50, 61), 'u2', 40), chunks=(2, 32, 32), **hdf5plugin.LZ4())
        f.create_dataset('lz4_small_blocks', data=vals((7, 50, 61), 'u2', 41), chunks=(2, 32, 32), **hdf5plugin.LZ4(nbytes=1000))
        f.create_dataset('blosc', data=vals((5, 50, 61), 'u2', 45), chunks=(2, 32, 32), **hdf5plugin.Blosc(cname='lz4', shuffle=hdf5plugin.Blosc.SHUFFLE))
        f.create_dataset('blosc_zstd_bit', data=vals((5, 50, 61), 'f8', 46), chunks=(2, 32, 32), **hdf5plugin.Blosc(cname='zstd', shuffle=hdf5plugin.Blosc.BITSHUFFLE))
        # Debian's hdf5plugin lacks the bitshuffle and zstd plugins: their
        # chunks are encoded here and written with write_direct_chunk.
        direct(f, 'zstd', vals((5, 50, 61), 'i1', 47), (2, 32, 32), 32015, (3,), zstd_chunk)
        direct(f, 'bitshuffle', vals((7, 50, 61), 'u2', 42), (2, 32, 32), 32008, (0, 4, 2, 0, 2), bshuf_lz4)
        direct(f, 'bitshuffle_none', vals((5, 50, 61), 'f4', 43), (2, 32, 31), 32008, (0, 4, 4, 0, 0), bshuf_plain)
        direct(f, 'bitshuffle_odd', vals((3, 13, 7), 'i4', 44), (3, 13, 7), 32008, (0, 4, 4, 0, 2), bshuf_lz4)
    with h5py.File(p, 'r') as f:
        for path in ['/lz4', '/lz4_small_blocks', '/blosc', '/blosc_zstd_bit']:
            save(fname, f, path)
    # h5py cannot decode these; the values are the arrays encoded.
    for name, a in direct_values.items():
        npy = os.path.join(out, fname + '_' + name + '.npy')
        np.save(npy, a)
        cases.append({"file": fname, "path": '/' + name, "npy": npy})

def sizes44(fname):
    # 4-byte addresses and lengths.
    p = os.path.join(out, fname)
    fcpl = h5py.h5p.create(h5py.h5p.FILE_CREATE)
    fcpl.set_sizes(4, 4)
    fid = h5py.h5f.create(p.encode(), h5py.h5f.ACC_TRUNC, fcpl=fcpl)
    with h5py.File(fid) as f:
        f.create_dataset('data', data=vals((19, 23), 'u2', 51), chunks=(4, 8), compression='gzip')
    with h5py.File(p, 'r') as f:
        save(fname, f, '/data')

def userblock(fname):
    p = os.path.join(out, fname)
    with h5py.File(p, 'w', userblock_size=1024) as f:
        f.create_dataset('data', data=vals((9, 8), 'u2', 50), chunks=(4, 4))
    with h5py.File(p, 'r') as f:
        save(fname, f, '/data')

def biggroup(fname):
    # 1500 links: a fractal heap with indirect blocks, a name index of
    # more than one level; the names are listed for the test to compare.
    p = os.path.join(out, fname)
    with h5py.File(p, 'w', libver='latest') as f:
        g = f.create_group('g')
        for i in range(1500):
            g.create_group('member with a longer name %04d' % i)
        g['member with a longer name 0777'].create_dataset('data', data=vals((6, 7), 'i2', 60))
    with h5py.File(p, 'r') as f:
        with open(p + '.names', 'w') as n:
            n.write('\n'.join(sorted(f['g'].keys())))
        save(fname, f, '/g/member with a longer name 0777/data')

if which in ("all", "core"):
    common('earliest.h5', 'earliest')
    userblock('userblock.h5')
    sizes44('sizes44.h5')
if which in ("all", "latest"):
    common('latest.h5', 'latest')
    common('v108.h5', 'v108')
    layouts('layouts.h5')
    biggroup('biggroup.h5')
if which in ("all", "plugins"):
    plugins('plugins.h5')
print(json.dumps(cases))
