package measure

import (
	"context"
	"testing"

	"vastview/loader"
)

// BenchmarkStatsUint16 measures the statistics of a 64 MiB uint16 box
// held in memory, against reading its chunks alone (copying them).
func BenchmarkStatsUint16(b *testing.B) {
	s := newMem("ZYX", []int{8, 2048, 2048}, []int{1, 2048, 2048}, loader.Uint16, nil, 1)
	q := Query{Region: Rect{0, 0, 2048, 2048}, From: 0, To: 8}
	b.Run("stats", func(b *testing.B) {
		b.SetBytes(int64(len(s.data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Compute(context.Background(), s, q, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read", func(b *testing.B) {
		b.SetBytes(int64(len(s.data)))
		buf := make([]byte, 2048*2048*2)
		for b.Loop() {
			for z := range 8 {
				s.ReadChunk(context.Background(), 0, []int{z, 0, 0}, buf)
			}
		}
	})
}

func BenchmarkExactContiguous(b *testing.B) {
	s := newMem("YX", []int{2048, 2048}, []int{2048, 2048}, loader.Uint16, nil, 1)
	v := view[uint16](s.data)
	b.SetBytes(int64(len(s.data)))
	for b.Loop() {
		exactContiguous(v)
	}
}

func BenchmarkCopy(b *testing.B) {
	s := newMem("YX", []int{2048, 2048}, []int{2048, 2048}, loader.Uint16, nil, 1)
	d := make([]byte, len(s.data))
	b.SetBytes(int64(len(s.data)))
	for b.Loop() {
		copy(d, s.data)
	}
}

func BenchmarkExactSIMD(b *testing.B) {
	s := newMem("YX", []int{2048, 2048}, []int{2048, 2048}, loader.Uint16, nil, 1)
	v := view[uint16](s.data)
	b.SetBytes(int64(len(s.data)))
	for b.Loop() {
		exactSIMD(v)
	}
}
