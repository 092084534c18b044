package dicom

import (
	"encoding/binary"
	"fmt"
)

// decodeRLE decodes one DICOM RLE lossless frame (PS3.5 annex G): a
// 64-byte header of the segment count and up to 15 segment offsets, then
// the segments, each one byte of every pixel (PackBits), by channel and
// within a channel most significant byte first.
func decodeRLE(data []byte, sl *slice, dst []byte) error {
	es := sl.bitsAlloc / 8
	want := sl.spp * es
	if len(data) < 64 {
		return formatError("RLE frame of %d bytes, shorter than its header: %v", len(data), errTruncated)
	}
	le := binary.LittleEndian
	nseg := int(le.Uint32(data))
	if nseg != want {
		return formatError("RLE frame of %d segments, want %d", nseg, want)
	}
	n := sl.rows * sl.cols
	out := make([]byte, n)
	for k := 0; k < nseg; k++ {
		start := int64(le.Uint32(data[4+4*k:]))
		end := int64(len(data))
		if k+1 < nseg {
			end = int64(le.Uint32(data[8+4*k:]))
		}
		if start < 64 || start > end || end > int64(len(data)) {
			return formatError("RLE segment %d at bytes %d..%d of a frame of %d", k, start, end, len(data))
		}
		if err := unpackBits(data[start:end], out); err != nil {
			return formatError("RLE segment %d: %v", k, err)
		}
		c, b := k/es, k%es // channel, byte from the most significant
		base := c * n * es
		at := es - 1 - b
		for p := 0; p < n; p++ {
			dst[base+p*es+at] = out[p]
		}
	}
	return nil
}

// unpackBits decodes PackBits src into exactly len(dst) bytes (a longer
// output is cut; a shorter one is an error).
func unpackBits(src, dst []byte) error {
	o := 0
	for i := 0; i < len(src) && o < len(dst); {
		c := int(int8(src[i]))
		i++
		switch {
		case c >= 0:
			n := c + 1
			if i+n > len(src) {
				n = len(src) - i
			}
			o += copy(dst[o:], src[i:i+n])
			i += n
		case c != -128:
			if i >= len(src) {
				break
			}
			v := src[i]
			i++
			for n := 1 - c; n > 0 && o < len(dst); n-- {
				dst[o] = v
				o++
			}
		}
	}
	if o < len(dst) {
		return fmt.Errorf("decodes to %d bytes, not %d: %w", o, len(dst), errTruncated)
	}
	return nil
}
