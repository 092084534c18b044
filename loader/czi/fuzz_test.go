package czi

import (
	"testing"

	"vastview/loader/internal/loadertest"
)

// FuzzOpen opens arbitrary bytes as a CZI file and reads every chunk: no
// panic, no hang, and a Source that opens describes a valid array. Seeds:
// the real mosaic tiles.czi (when present; the other real files are
// larger and add nothing it lacks) and a small synthetic one (zstd tiles
// of two scenes, each with a pyramid subblock), and one of a JPEG XR
// subblock where JxrEncApp can make it.
func FuzzOpen(f *testing.F) {
	for _, name := range []string{"tiles.czi"} {
		if b, ok := loadertest.SharedSeed(f, "czi/"+name); ok {
			f.Add(b)
		}
	}
	f.Add(fuzzSeed())
	addJXRSeed(f)
	loadertest.Fuzz(f, "f.czi", 1<<20, Match, Open)
}

// fuzzSeed is a small file of two scenes, each two zstd tiles (Zstd1 with
// packing, Zstd0) and a pyramid subblock, with time stamps and XML.
func fuzzSeed() []byte {
	w := &cziWriter{stamps: []float64{1, 2}, xml: `<ImageDocument><Metadata><Scaling><Items><Distance Id="X"><Value>1E-07</Value></Distance></Items></Scaling>` +
		`<Information><Image><Dimensions><Channels><Channel Id="Channel:0" Name="a"><Color>#FF00FF00</Color></Channel></Channels></Dimensions></Image></Information></Metadata></ImageDocument>`}
	for s := 0; s < 2; s++ {
		for k := 0; k < 2; k++ {
			p := u16plane(6, 4, s+k+1)
			data, comp := append([]byte{3, 1, 1}, zstdFrame(hiLo(p))...), int32(cZstd1)
			if k == 1 {
				data, comp = zstdFrame(p), cZstd0
			}
			w.blocks = append(w.blocks, blockW{pixel: 1, comp: comp, dims: plane2D(k*5, 0, 6, 4, 6, 4, map[string]int{"S": s, "M": k, "T": s}), data: data})
		}
		w.blocks = append(w.blocks, blockW{pixel: 1, comp: cNone, dims: plane2D(0, 0, 11, 4, 5, 2, map[string]int{"S": s, "T": s}), data: make([]byte, 20)})
	}
	return w.bytes()
}
