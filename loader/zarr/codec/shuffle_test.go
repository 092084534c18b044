package codec

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// unshuffleRef is c-blosc's unshuffle_generic: element i byte j comes from
// stream j; the len%ts trailing bytes are copied.
func unshuffleRef(src []byte, ts int) []byte {
	n := len(src) / ts
	dst := bytes.Clone(src)
	for i := range n {
		for j := range ts {
			dst[i*ts+j] = src[j*n+i]
		}
	}
	return dst
}

// bitUnshuffleRef is c-blosc's bitunshuffle with the scalar bitshuffle
// routines, step by step: bshuf_trans_byte_bitrow_scal, then
// bshuf_shuffle_bit_eightelem_scal (little-endian).
func bitUnshuffleRef(src []byte, ts int) []byte {
	size := len(src) / ts
	if size%8 != 0 {
		return bytes.Clone(src)
	}
	nrow := size / 8
	tmp := make([]byte, size*ts)
	for jj := range ts {
		for ii := range nrow {
			for kk := range 8 {
				tmp[ii*8*ts+jj*8+kk] = src[(jj*8+kk)*nrow+ii]
			}
		}
	}
	out := bytes.Clone(src)
	nbyte := size * ts
	for jj := 0; jj < 8*ts; jj += 8 {
		for ii := 0; ii+8*ts-1 < nbyte; ii += 8 * ts {
			x := binary.LittleEndian.Uint64(tmp[ii+jj:])
			t := (x ^ (x >> 7)) & 0x00AA00AA00AA00AA
			x = x ^ t ^ (t << 7)
			t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCC
			x = x ^ t ^ (t << 14)
			t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0
			x = x ^ t ^ (t << 28)
			for kk := range 8 {
				out[ii+jj/8+kk*ts] = byte(x)
				x >>= 8
			}
		}
	}
	return out
}

// TestUnshuffleShapes compares the fast unshuffles with the reference ones
// for every typesize up to 33 and block lengths that are no multiple of the
// typesize or of 8 elements.
func TestUnshuffleShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for ts := 1; ts <= 33; ts++ {
		for _, n := range []int{0, 1, ts - 1, ts, 7 * ts, 8 * ts, 8*ts + 1, 64*ts + 5, 129*ts + 3, 1000, 4096 + ts/2} {
			if n < 0 {
				continue
			}
			src := make([]byte, n)
			for i := range src {
				src[i] = byte(r.Uint32())
			}
			got := make([]byte, n)
			unshuffle(got, src, ts)
			if want := unshuffleRef(src, ts); !bytes.Equal(got, want) {
				t.Errorf("unshuffle ts=%d len=%d: differs at %d", ts, n, firstDiff(got, want))
			}
			bitUnshuffle(got, src, make([]byte, n), ts)
			if want := bitUnshuffleRef(src, ts); !bytes.Equal(got, want) {
				t.Errorf("bitUnshuffle ts=%d len=%d: differs at %d", ts, n, firstDiff(got, want))
			}
		}
	}
}
