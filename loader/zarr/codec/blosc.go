package codec

import (
	"encoding/binary"
	"sync"
)

// Layout of the Blosc 1.x container (c-blosc's blosc.c and README_HEADER).
const (
	bloscHeaderSize = 16
	bloscVersion    = 2 // BLOSC_VERSION_FORMAT of c-blosc 1.x

	flagShuffle    = 0x01 // byte-shuffled
	flagMemcpyed   = 0x02 // stored without compression
	flagBitShuffle = 0x04 // bit-shuffled
	flagReserved   = 0x08 // rejected by c-blosc ("flags from the future")
	flagDontSplit  = 0x10 // one stream per block instead of typesize streams

	maxSplits     = 16  // MAX_SPLITS: a block is split only for typesize <= 16
	minBufferSize = 128 // MIN_BUFFERSIZE: ... and blocksize/typesize >= 128
)

// Blosc decodes one Blosc (version 1 container format, as written by c-blosc
// 1.x / numcodecs) buffer. The result is written into dst's storage when
// cap(dst) is large enough and returned; a buffer that decodes to more than
// limit bytes is an error. Safe for concurrent use.
func Blosc(dst, src []byte, limit int) ([]byte, error) {
	h, err := parseBloscHeader(src, limit)
	if err != nil || h.nbytes == 0 {
		return dst[:0], err
	}
	src = src[:h.cbytes]
	if h.flags&flagMemcpyed != 0 {
		out := outBuf(dst, h.nbytes)
		copy(out, src[bloscHeaderSize:])
		return out, nil
	}
	stream, err := streamDecoder(h.flags >> 5)
	if err != nil {
		return dst[:0], err
	}
	out := outBuf(dst, h.nbytes)
	d := bloscDecoder{bloscHeader: h, src: src, out: out, stream: stream}
	if err := d.run(); err != nil {
		return dst[:0], err
	}
	return out, nil
}

// bloscHeader holds the fields of a Blosc header that decoding uses.
type bloscHeader struct {
	flags     byte
	typesize  int
	nbytes    int // decoded size
	blocksize int
	cbytes    int // size of the whole buffer, header included
	nblocks   int
}

// parseBloscHeader reads and checks the 16-byte header the way c-blosc
// 1.21 does before it decodes (blosc_run_decompression_with_context).
func parseBloscHeader(src []byte, limit int) (bloscHeader, error) {
	var h bloscHeader
	if len(src) < bloscHeaderSize {
		return h, errorf("blosc: header is truncated (%d of %d bytes)", len(src), bloscHeaderSize)
	}
	if src[0] != bloscVersion {
		return h, unsupported("Blosc format version %d", src[0])
	}
	h.flags, h.typesize = src[2], int(src[3])
	nbytes := int32(binary.LittleEndian.Uint32(src[4:]))
	blocksize := int32(binary.LittleEndian.Uint32(src[8:]))
	cbytes := int32(binary.LittleEndian.Uint32(src[12:]))
	h.nbytes, h.blocksize, h.cbytes = int(nbytes), int(blocksize), int(cbytes)
	switch {
	case h.cbytes < bloscHeaderSize || h.cbytes > len(src):
		return h, errorf("blosc: header gives %d compressed bytes, the chunk holds %d", h.cbytes, len(src))
	case h.nbytes < 0:
		return h, errorf("blosc: negative decoded size %d", h.nbytes)
	case h.nbytes > limit:
		return h, tooLarge("blosc", h.nbytes, limit)
	case h.nbytes == 0:
		return h, nil
	case h.flags&flagReserved != 0:
		return h, errorf("blosc: reserved header flag 0x08 is set")
	case h.typesize == 0:
		return h, errorf("blosc: typesize is 0")
	case h.blocksize <= 0 || h.blocksize > h.nbytes:
		return h, errorf("blosc: block size %d is outside 1..%d", h.blocksize, h.nbytes)
	}
	if h.flags&flagMemcpyed != 0 {
		if h.cbytes != h.nbytes+bloscHeaderSize {
			return h, errorf("blosc: uncompressed chunk of %d bytes is stored in %d", h.nbytes, h.cbytes-bloscHeaderSize)
		}
		return h, nil
	}
	h.nblocks = (h.nbytes-1)/h.blocksize + 1
	if h.nblocks > (h.cbytes-bloscHeaderSize)/4 {
		return h, errorf("blosc: table of %d block offsets exceeds the %d-byte chunk", h.nblocks, h.cbytes)
	}
	return h, nil
}

// streamFunc decodes one compressed stream into dst, which it must fill
// exactly.
type streamFunc func(dst, src []byte) error

// streamDecoder returns the decoder for the compressor code in bits 5-7 of
// the header flags.
func streamDecoder(code byte) (streamFunc, error) {
	switch code {
	case 0:
		return blosclzDecode, nil
	case 1:
		return lz4Block, nil
	case 2:
		return nil, unsupported("Blosc compressor snappy")
	case 3:
		return zlibExact, nil
	case 4:
		return zstdExact, nil
	}
	return nil, unsupported("Blosc compressor code %d", code)
}

// bloscDecoder decodes the blocks of one buffer.
type bloscDecoder struct {
	bloscHeader
	src    []byte // the whole buffer, cut to cbytes
	out    []byte // nbytes long
	stream streamFunc
	tmp    []byte // streams before unshuffling (blocksize)
	tmp2   []byte // bit-transposed planes before byte unshuffling (blocksize)
}

// scratch holds reusable block buffers.
var scratch sync.Pool

func (d *bloscDecoder) run() error {
	shuffled := d.flags&flagShuffle != 0 && d.typesize > 1
	bitShuffled := !shuffled && d.flags&flagBitShuffle != 0
	if shuffled || bitShuffled {
		n := d.blocksize
		if bitShuffled {
			n *= 2
		}
		bp, _ := scratch.Get().(*[]byte)
		if bp == nil || cap(*bp) < n {
			b := make([]byte, n)
			bp = &b
		}
		defer scratch.Put(bp)
		d.tmp, d.tmp2 = (*bp)[:d.blocksize], (*bp)[d.blocksize:n]
	}
	for j := 0; j < d.nblocks; j++ {
		if err := d.block(j, shuffled, bitShuffled); err != nil {
			return err
		}
	}
	return nil
}

// block decodes block j into its place in d.out (blosc_d in c-blosc).
func (d *bloscDecoder) block(j int, shuffled, bitShuffled bool) error {
	start := j * d.blocksize
	bsize := min(d.blocksize, d.nbytes-start)
	leftover := bsize < d.blocksize
	dest := d.out[start : start+bsize]
	// c-blosc bit-unshuffles only when the block holds a whole element.
	bitShuffled = bitShuffled && bsize >= d.typesize
	target := dest
	if shuffled || bitShuffled {
		target = d.tmp[:bsize]
	}
	nsplits := 1
	if d.flags&flagDontSplit == 0 && d.typesize <= maxSplits &&
		bsize/d.typesize >= minBufferSize && !leftover {
		nsplits = d.typesize
		if bsize%nsplits != 0 {
			return errorf("blosc: block size %d is not a multiple of typesize %d", bsize, nsplits)
		}
	}
	off := int(int32(binary.LittleEndian.Uint32(d.src[bloscHeaderSize+4*j:])))
	if off < bloscHeaderSize+4*d.nblocks || off > len(d.src) {
		return errorf("blosc: block %d starts at %d, outside %d..%d", j, off, bloscHeaderSize+4*d.nblocks, len(d.src))
	}
	neblock := bsize / nsplits
	for k := range nsplits {
		if len(d.src)-off < 4 {
			return errorf("blosc: block %d: stream %d is truncated", j, k)
		}
		csize := int(int32(binary.LittleEndian.Uint32(d.src[off:])))
		off += 4
		if csize < 0 || csize > len(d.src)-off {
			return errorf("blosc: block %d: stream %d claims %d bytes, %d remain", j, k, csize, len(d.src)-off)
		}
		part := target[k*neblock : (k+1)*neblock]
		stream := d.src[off : off+csize]
		if csize == neblock {
			copy(part, stream)
		} else if err := d.stream(part, stream); err != nil {
			return errorf("blosc: block %d: stream %d: %v", j, k, err)
		}
		off += csize
	}
	switch {
	case shuffled:
		unshuffle(dest, target, d.typesize)
	case bitShuffled:
		bitUnshuffle(dest, target, d.tmp2[:bsize], d.typesize)
	}
	return nil
}
