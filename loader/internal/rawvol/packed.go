package rawvol

import (
	"context"
	"encoding/binary"
	"fmt"

	"vastview/loader"
)

// unpacked is a Data whose planes are stored as samples of fewer than 16
// bits packed most significant bit first, each plane starting on a byte,
// presented as little-endian 16-bit samples.
type unpacked struct {
	d      Data
	pixels int64 // samples per plane
	bits   int
	stored int64 // stored bytes per plane
}

// PackedBytes is how many bytes pixels samples of bits bits take packed.
func PackedBytes(pixels int64, bits int) int64 { return (pixels*int64(bits) + 7) / 8 }

// Unpacked presents the planes of d, each pixels samples of bits bits (9 to
// 15) packed most significant bit first in PackedBytes(pixels, bits) bytes,
// as little-endian uint16 samples. Reads are whole planes.
func Unpacked(d Data, pixels int64, bits int) Data {
	return &unpacked{d: d, pixels: pixels, bits: bits, stored: PackedBytes(pixels, bits)}
}

func (u *unpacked) Size() int64 { return u.d.Size() / u.stored * 2 * u.pixels }

func (u *unpacked) Read(ctx context.Context, off, n int64, buf []byte) ([]byte, error) {
	plane := 2 * u.pixels
	if n != plane || off%plane != 0 || int64(len(buf)) < n {
		return nil, fmt.Errorf("%d bytes at %d are not a plane", n, off)
	}
	src, err := u.d.Read(ctx, off/plane*u.stored, u.stored, make([]byte, u.stored))
	if err != nil {
		return nil, err
	}
	unpackMSB(buf[:n], src, u.bits)
	return buf[:n], nil
}

// unpackMSB writes the samples of bits bits packed most significant bit
// first in src to dst as little-endian uint16, len(dst)/2 of them.
func unpackMSB(dst, src []byte, bits int) {
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

func (u *unpacked) Close() error { return u.d.Close() }

func (u *unpacked) file() (*loader.File, string) {
	if f, ok := u.d.(fileData); ok {
		return f.file()
	}
	return nil, ""
}
