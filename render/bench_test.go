package render

import (
	"testing"

	"vastview/loader"
)

func BenchmarkPlaneUint16(b *testing.B) {
	buf := make([]byte, 2048*2048*2)
	cm, _ := ColormapNamed("gray")
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		Plane(buf, loader.Uint16, 2048, 2048, 0, 1000, cm)
	}
}
