package mrc

import (
	"encoding/binary"
	"math"
)

// synth is an MRC2014 file of nx×ny×nz samples of the given mode, in byte
// order bo, with space group ispg, MZ mz, an extended header of ext bytes
// and samples counting up from 0 (mod 256 in every byte); a cell of 1 Å
// per sample.
func synth(bo binary.ByteOrder, mode, nx, ny, nz, ispg, mz, ext int) []byte {
	size := map[int]int{0: 1, 1: 2, 2: 4, 6: 2, 12: 2}[mode]
	plane := nx * ny * size
	if mode == modePacked4 {
		plane = (nx + 1) / 2 * ny
	}
	b := make([]byte, headerSize+ext+plane*nz)
	put := func(off, v int) { bo.PutUint32(b[off:], uint32(int32(v))) }
	put(offNX, nx)
	put(offNX+4, ny)
	put(offNX+8, nz)
	put(offMode, mode)
	put(offMX, nx)
	put(offMX+4, ny)
	put(offMX+8, mz)
	for i, n := range []int{nx, ny, mz} {
		bo.PutUint32(b[offCellA+4*i:], math.Float32bits(float32(n)))
	}
	put(offMapC, 1)
	put(offMapC+4, 2)
	put(offMapC+8, 3)
	put(offISPG, ispg)
	put(offNSymBT, ext)
	copy(b[offMap:], "MAP ")
	if bo == binary.ByteOrder(binary.BigEndian) {
		copy(b[offStamp:], []byte{0x11, 0x11, 0, 0})
	} else {
		copy(b[offStamp:], []byte{0x44, 0x44, 0, 0})
	}
	for i := headerSize + ext; i < len(b); i++ {
		b[i] = byte(i)
	}
	return b
}
