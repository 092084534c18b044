package rawvol

import "encoding/binary"

// PackedBytes is how many bytes pixels samples of bits bits take packed.
func PackedBytes(pixels int64, bits int) int64 { return (pixels*int64(bits) + 7) / 8 }

// UnpackMSB writes the samples of bits bits (9 to 16) packed most
// significant bit first in src to dst as little-endian uint16, len(dst)/2
// of them: an unpack function for Unpacked.
func UnpackMSB(dst, src []byte, bits int) {
	var acc uint32
	have, j := 0, 0
	mask := uint32(1)<<bits - 1
	for i := 0; i+1 < len(dst); i += 2 {
		for have < bits {
			acc = acc<<8 | uint32(src[j])
			j++
			have += 8
		}
		have -= bits
		binary.LittleEndian.PutUint16(dst[i:], uint16(acc>>have&mask))
	}
}
