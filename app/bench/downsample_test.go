package bench

import (
	"testing"
	"vastview/downsample"
)

// The benchmarks time the same cases as benchDownsample; compare with
// BenchmarkCopy (64 MiB) or the copy benchmark of the same size.

func BenchmarkCopy(b *testing.B) {
	for _, size := range []int{16 << 20, 64 << 20} {
		b.Run(byteSize(size), func(b *testing.B) {
			src, dst := make([]byte, size), make([]byte, size)
			fillRandom(src)
			copy(dst, src)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				copy(dst, src)
			}
		})
	}
}

func BenchmarkKernels(b *testing.B) {
	for _, c := range kernelCases() {
		b.Run(c.name, func(b *testing.B) {
			in, out := shapeLen(c.shape, c.reduce)
			src, dst := make([]byte, in*c.dt.Size()), make([]byte, out*c.dt.Size())
			fillRandom(src)
			run := downsample.Mean
			if c.mode {
				fillLabels(c.dt, src, c.shape)
				run = downsample.Mode
			}
			if err := run(c.dt, dst, src, c.shape, c.reduce); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if err := run(c.dt, dst, src, c.shape, c.reduce); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func byteSize(n int) string {
	return string(rune('0'+n>>20/10%10)) + string(rune('0'+n>>20%10)) + "MiB"
}

func fillRandom(b []byte) {
	x := uint64(0x9e3779b97f4a7c15)
	for i := range b {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[i] = byte(x)
	}
}
