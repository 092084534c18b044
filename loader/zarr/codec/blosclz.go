package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// maxDistance is BloscLZ's largest 13-bit match distance; farther matches
// carry a 16-bit distance biased by it.
const maxDistance = 8191

var (
	errLZTruncated = errors.New("BloscLZ stream is truncated")
	errLZOverrun   = errors.New("BloscLZ stream decodes past the end of its block")
	errLZDistance  = errors.New("BloscLZ match refers before the start of its block")
)

// blosclzDecode decodes one BloscLZ stream (c-blosc's blosclz_decompress,
// derived from FastLZ level 1) into dst, which it must fill exactly.
//
// The stream is a sequence of tokens. A control byte below 32 starts a run
// of ctrl+1 literal bytes. Otherwise it is a match of (ctrl>>5)+2 bytes,
// with more length bytes following while they are 255 when ctrl>>5 is 7, at
// distance ((ctrl&31)<<8) + next byte + 1; the escape (ctrl&31 = 31, next
// byte 255) reads a 16-bit big-endian distance biased by maxDistance+1. The
// top 3 bits of the first control byte hold a format marker and are ignored.
func blosclzDecode(dst, src []byte) error {
	if len(src) == 0 {
		return errLZTruncated
	}
	ip, op := 1, 0
	ctrl := int(src[0] & 31)
	for {
		if ctrl < 32 {
			n := ctrl + 1
			if n > len(dst)-op {
				return errLZOverrun
			}
			if n > len(src)-ip {
				return errLZTruncated
			}
			copy(dst[op:op+n], src[ip:ip+n])
			op += n
			ip += n
			if ip >= len(src) {
				break
			}
			ctrl = int(src[ip])
			ip++
			continue
		}
		n := ctrl>>5 - 1
		if n == 6 {
			for {
				if ip+1 >= len(src) {
					return errLZTruncated
				}
				code := src[ip]
				ip++
				n += int(code)
				if code != 255 {
					break
				}
			}
		} else if ip+1 >= len(src) {
			return errLZTruncated
		}
		code := int(src[ip])
		ip++
		n += 3
		ofs := (ctrl & 31) << 8
		dist := ofs + code + 1
		if code == 255 && ofs == 31<<8 {
			if ip+1 >= len(src) {
				return errLZTruncated
			}
			dist = int(src[ip])<<8 | int(src[ip+1]) + maxDistance + 1
			ip += 2
		}
		if n > len(dst)-op {
			return errLZOverrun
		}
		if dist > op {
			return errLZDistance
		}
		if ip >= len(src) {
			// c-blosc stops before a final match, leaving the block short.
			return errLZTruncated
		}
		ctrl = int(src[ip])
		ip++
		matchCopy(dst, op, dist, n)
		op += n
	}
	if op != len(dst) {
		return fmt.Errorf("BloscLZ stream decodes to %d bytes, the block has %d", op, len(dst))
	}
	return nil
}

// matchCopy copies n bytes from dist bytes back to dst[op:], byte by byte
// in effect (an overlapping source repeats its pattern). The caller has
// checked 0 < dist <= op and op+n <= len(dst).
func matchCopy(dst []byte, op, dist, n int) {
	ref := op - dist
	switch {
	case dist >= 8 && n <= 8 && len(dst)-op >= 8:
		// One 8-byte move; bytes past n are rewritten by later tokens.
		binary.LittleEndian.PutUint64(dst[op:op+8], binary.LittleEndian.Uint64(dst[ref:ref+8]))
	case dist >= n:
		copy(dst[op:op+n], dst[ref:ref+n])
	case dist == 1 && n <= 16:
		b := dst[ref]
		d := dst[op : op+n]
		for i := range d {
			d[i] = b
		}
	default:
		// The window dst[ref:op] grows as it is copied, preserving the period.
		for end := op + n; op < end; {
			op += copy(dst[op:end], dst[ref:op])
		}
	}
}
