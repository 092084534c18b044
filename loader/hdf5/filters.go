package hdf5

import (
	"encoding/binary"

	"github.com/pierrec/lz4/v4"

	"vastview/loader/zarr/codec"
)

// Filter identifiers.
const (
	filterDeflate    = 1
	filterShuffle    = 2
	filterFletcher32 = 3
	filterSzip       = 4
	filterNbit       = 5
	filterScale      = 6
	filterBlosc      = 32001
	filterLZ4        = 32004
	filterBitshuffle = 32008
	filterZstd       = 32015
)

var (
	zlibCodec, _ = codec.FromV2([]byte(`{"id":"zlib"}`))
	zstdCodec, _ = codec.FromV2([]byte(`{"id":"zstd"}`))
)

// checkFilters refuses a pipeline with a filter the reader lacks.
func checkFilters(fs []filter) error {
	for _, f := range fs {
		switch f.id {
		case filterDeflate, filterShuffle, filterFletcher32, filterBlosc, filterLZ4, filterBitshuffle, filterZstd:
		case filterSzip:
			return unsupported("SZIP compression (filter 4)")
		case filterNbit:
			return unsupported("N-bit filter (5)")
		case filterScale:
			return unsupported("scale-offset filter (6)")
		default:
			return unsupported("filter %d", f.id)
		}
	}
	return nil
}

// decode undoes the pipeline on one stored chunk; filters whose bit is set
// in mask were not applied. out is the decoded chunk's storage: the last
// filter undone (a decompressor or the shuffle) writes into it, so that a
// chunk is decoded without a copy of its own size; earlier stages, and
// the filters that cannot (LZ4, bitshuffle), return buffers of their own.
// The result is out, or a buffer of another size that the caller refuses.
func (d *dataset) decode(b []byte, mask uint32, out []byte) ([]byte, error) {
	want := len(out)
	last := -1
	for i := 0; i < len(d.filters) && last < 0; i++ {
		if i >= 32 || mask&(1<<i) == 0 {
			last = i
		}
	}
	for i := len(d.filters) - 1; i >= 0; i-- {
		if i < 32 && mask&(1<<i) != 0 {
			continue
		}
		// A stage before the last may leave a few bytes more (a
		// checksum the next one strips); the last must fit out.
		dst, limit := []byte(nil), want+64
		if i == last {
			dst, limit = out[:0], want
		}
		f := d.filters[i]
		var err error
		switch f.id {
		case filterDeflate:
			b, err = zlibCodec.Decode(dst, b, limit)
		case filterZstd:
			b, err = zstdCodec.Decode(dst, b, limit)
		case filterBlosc:
			b, err = codec.Blosc(dst, b, limit)
		case filterShuffle:
			es := d.dt.size
			if len(f.cd) > 0 {
				es = int(f.cd[0])
			}
			b = unshuffle(dst, b, es)
		case filterFletcher32:
			b, err = fletcherCheck(b)
		case filterLZ4:
			b, err = lz4Decode(b, limit)
		case filterBitshuffle:
			b, err = bitshuffleDecode(f, b, d.dt.size, limit)
		default:
			err = unsupported("filter %d", f.id)
		}
		if err != nil {
			return nil, err
		}
	}
	return b, nil
}

// unshuffle undoes HDF5's byte shuffle of es-byte elements, into dst's
// storage when it has room for len(b) bytes (dst must not overlap b).
func unshuffle(dst, b []byte, es int) []byte {
	if es <= 1 || len(b) < es {
		return b
	}
	n := len(b) / es
	out := dst[:0]
	if cap(out) < len(b) {
		out = make([]byte, len(b))
	}
	out = out[:len(b)]
	for j := 0; j < es; j++ {
		src := b[j*n : (j+1)*n]
		for i, v := range src {
			out[i*es+j] = v
		}
	}
	copy(out[n*es:], b[n*es:])
	return out
}

// fletcherCheck checks and strips the Fletcher-32 checksum at the end of b.
func fletcherCheck(b []byte) ([]byte, error) {
	if len(b) < 4 {
		return nil, errorf("Fletcher-32: chunk of %d bytes", len(b))
	}
	data := b[:len(b)-4]
	stored := binary.LittleEndian.Uint32(b[len(b)-4:])
	sum := fletcher32(data)
	swapped := sum>>24 | (sum>>8)&0xff00 | (sum<<8)&0xff0000 | sum<<24
	if stored != sum && stored != swapped {
		return nil, errorf("Fletcher-32 checksum mismatch (stored %#08x, computed %#08x)", stored, sum)
	}
	return data, nil
}

// fletcher32 is HDF5's Fletcher-32 over big-endian 16-bit words.
func fletcher32(b []byte) uint32 {
	var s1, s2 uint32
	n := len(b) / 2
	p := 0
	for n > 0 {
		t := min(n, 360)
		n -= t
		for ; t > 0; t-- {
			s1 += uint32(b[p])<<8 | uint32(b[p+1])
			p += 2
			s2 += s1
		}
		s1 = (s1 & 0xffff) + (s1 >> 16)
		s2 = (s2 & 0xffff) + (s2 >> 16)
	}
	if len(b)%2 == 1 {
		s1 += uint32(b[p]) << 8
		s2 += s1
		s1 = (s1 & 0xffff) + (s1 >> 16)
		s2 = (s2 & 0xffff) + (s2 >> 16)
	}
	s1 = (s1 & 0xffff) + (s1 >> 16)
	s2 = (s2 & 0xffff) + (s2 >> 16)
	return s2<<16 | s1
}

// lz4Decode decodes the HDF5 LZ4 plugin's framing: the decoded size
// (8 bytes) and block size (4), big-endian, then per block its compressed
// size (4) and the LZ4 block (stored as is when it did not shrink).
func lz4Decode(b []byte, limit int) ([]byte, error) {
	if len(b) < 12 {
		return nil, errorf("LZ4: chunk of %d bytes", len(b))
	}
	total := binary.BigEndian.Uint64(b)
	bs := uint64(binary.BigEndian.Uint32(b[8:]))
	if total > uint64(limit) {
		return nil, errorf("LZ4: chunk decodes to %d bytes, more than %d", total, limit)
	}
	if bs == 0 {
		bs = total
	}
	out := make([]byte, total)
	p := 12
	for o := uint64(0); o < total; {
		n := min(bs, total-o)
		if p+4 > len(b) {
			return nil, errorf("LZ4: chunk ends inside its blocks")
		}
		c := int(binary.BigEndian.Uint32(b[p:]))
		p += 4
		if c < 0 || c > len(b)-p {
			return nil, errorf("LZ4: block of %d bytes overruns the chunk", c)
		}
		if uint64(c) == n {
			copy(out[o:o+n], b[p:p+c])
		} else {
			m, err := lz4.UncompressBlock(b[p:p+c], out[o:o+n])
			if err != nil || uint64(m) != n {
				return nil, errorf("LZ4: corrupt block")
			}
		}
		p += c
		o += n
	}
	return out, nil
}

// bitshuffleDecode decodes the bitshuffle plugin (32008): parameters are
// the plugin's version (2), element size, block size and compression (0
// none, 2 LZ4, 3 zstd). Compressed data starts with the decoded size (8
// bytes) and block size in bytes (4), big-endian, then per block its
// compressed size (4) and data.
func bitshuffleDecode(f filter, b []byte, es, limit int) ([]byte, error) {
	if len(f.cd) > 2 && f.cd[2] != 0 {
		es = int(f.cd[2])
	}
	if es <= 0 || es > 64 {
		return nil, errorf("bitshuffle: element size %d", es)
	}
	comp := uint32(0)
	if len(f.cd) > 4 {
		comp = f.cd[4]
	}
	if comp == 0 {
		bs := 0
		if len(f.cd) > 3 {
			bs = int(f.cd[3])
		}
		if bs == 0 {
			bs = defaultBlock(es)
		}
		return bitUnshuffleAll(b, es, bs), nil
	}
	if len(b) < 12 {
		return nil, errorf("bitshuffle: chunk of %d bytes", len(b))
	}
	total := binary.BigEndian.Uint64(b)
	bsBytes := int(binary.BigEndian.Uint32(b[8:]))
	if total > uint64(limit) {
		return nil, errorf("bitshuffle: chunk decodes to %d bytes, more than %d", total, limit)
	}
	bs := bsBytes / es
	if bs <= 0 || bs%8 != 0 {
		return nil, errorf("bitshuffle: block of %d bytes", bsBytes)
	}
	n := int(total) / es
	out := make([]byte, total)
	p := 12
	tmp := make([]byte, min(bs, n)*es)
	done := 0
	for done+8 <= n {
		m := min(bs, n-done)
		m -= m % 8
		if p+4 > len(b) {
			return nil, errorf("bitshuffle: chunk ends inside its blocks")
		}
		c := int(binary.BigEndian.Uint32(b[p:]))
		p += 4
		if c < 0 || c > len(b)-p {
			return nil, errorf("bitshuffle: block of %d bytes overruns the chunk", c)
		}
		blk := tmp[:m*es]
		switch comp {
		case 2:
			k, err := lz4.UncompressBlock(b[p:p+c], blk)
			if err != nil || k != len(blk) {
				return nil, errorf("bitshuffle: corrupt LZ4 block")
			}
		case 3:
			dec, err := zstdCodec.Decode(blk[:0], b[p:p+c], len(blk))
			if err != nil || len(dec) != len(blk) {
				return nil, errorf("bitshuffle: corrupt zstd block")
			}
			copy(blk, dec)
		default:
			return nil, unsupported("bitshuffle compression %d", comp)
		}
		untransposeBits(out[done*es:(done+m)*es], blk, es)
		p += c
		done += m
	}
	// The last n%8 elements are stored as they are.
	rest := int(total) - done*es
	if rest > len(b)-p {
		return nil, errorf("bitshuffle: chunk ends before its last %d bytes", rest)
	}
	copy(out[done*es:], b[p:p+rest])
	return out, nil
}

// defaultBlock is bitshuffle's default block size in elements.
func defaultBlock(es int) int {
	bs := 8192 / es
	bs -= bs % 8
	return max(bs, 128)
}

// bitUnshuffleAll undoes an uncompressed bitshuffle of blocks of bs
// elements.
func bitUnshuffleAll(b []byte, es, bs int) []byte {
	n := len(b) / es
	out := make([]byte, len(b))
	done := 0
	for done+8 <= n {
		m := min(bs, n-done)
		m -= m % 8
		untransposeBits(out[done*es:(done+m)*es], b[done*es:(done+m)*es], es)
		done += m
	}
	copy(out[done*es:], b[done*es:])
	return out
}

// untransposeBits undoes bitshuffle's transpose of m elements (m a
// multiple of 8) of es bytes: src holds, for each bit of each byte of an
// element (byte-major, least significant bit first), that bit of every
// element packed 8 to a byte.
func untransposeBits(dst, src []byte, es int) {
	m := len(dst) / es
	clear(dst)
	row := m / 8
	for bb := 0; bb < es; bb++ {
		for bit := 0; bit < 8; bit++ {
			plane := src[(bb*8+bit)*row : (bb*8+bit+1)*row]
			for k, v := range plane {
				if v == 0 {
					continue
				}
				for j := 0; j < 8; j++ {
					if v&(1<<j) != 0 {
						dst[(k*8+j)*es+bb] |= 1 << bit
					}
				}
			}
		}
	}
}
