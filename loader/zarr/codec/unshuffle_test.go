package codec

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkUnshuffle undoes the byte and bit shuffles of a 256 KiB block,
// beside copy() of the same bytes.
func BenchmarkUnshuffle(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	src := make([]byte, 256<<10)
	for i := range src {
		src[i] = byte(r.Uint32())
	}
	dst := make([]byte, len(src))
	tmp := make([]byte, len(src))
	b.Run("copy", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		b.ReportAllocs()
		for b.Loop() {
			copy(dst, src)
		}
	})
	for _, ts := range []int{2, 3, 4, 8} {
		src := src[:len(src)/(8*ts)*(8*ts)] // whole groups of 8 elements
		dst, tmp := dst[:len(src)], tmp[:len(src)]
		b.Run(fmt.Sprintf("byte/ts=%d", ts), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				unshuffle(dst, src, ts)
			}
		})
		b.Run(fmt.Sprintf("bit/ts=%d", ts), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				bitUnshuffle(dst, src, tmp, ts)
			}
		})
	}
}
