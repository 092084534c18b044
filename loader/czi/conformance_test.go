package czi

import (
	"path/filepath"
	"testing"

	"vastview/base/testtool"
	"vastview/loader/internal/loadertest"
)

// TestConformance runs the Source conformance suite over the CZI files (scenes, tiles, RGB).
func TestConformance(t *testing.T) {
	loadertest.ConformanceGlob(t, "czi", filepath.Join(testtool.SharedData(t, "czi"), "*.czi"))
}

// TestConformanceScenes runs the suite over a file of two scenes, each a
// mosaic of two tiles over two time points, with a stored pyramid level.
func TestConformanceScenes(t *testing.T) {
	const tw, th = 40, 30
	w := &cziWriter{stamps: []float64{10, 12.5}}
	w.xml = `<ImageDocument><Metadata><Information><Image><Dimensions><S><Scenes>` +
		`<Scene Index="0" Name="A"/><Scene Index="1" Name="B"/></Scenes></S></Dimensions></Image></Information></Metadata></ImageDocument>`
	for s := 0; s < 2; s++ {
		for ti := 0; ti < 2; ti++ {
			for k := 0; k < 2; k++ {
				other := map[string]int{"S": s, "T": ti, "M": k, "C": 0}
				w.blocks = append(w.blocks, blockW{pixel: 1, comp: cZstd0,
					dims: plane2D(1000+k*tw, 500, tw, th, tw, th, other), data: zstdFrame(u16plane(tw, th, 1+s*7+ti*3+k))})
			}
			w.blocks = append(w.blocks, blockW{pixel: 1, comp: cZstd0,
				dims: plane2D(1000, 500, 80, 30, 40, 15, map[string]int{"S": s, "T": ti, "C": 0}), data: zstdFrame(u16plane(40, 15, 5+s))})
		}
	}
	loadertest.ConformanceFile(t, "czi", writeFile(t, "scenes.czi", w.bytes()))
}
