package main

import (
	"path/filepath"
	"testing"

	"vastview/base/testtool"
)

// TestWindow3DViewShowsLabels runs the viewer in a real window on an
// anisotropic tifffile stack with a label image laid over it (--overlay),
// presses 5 for the 3-D view and N to the isosurface: the screen shows,
// in MIP and iso mode, what `vastview render --overlay` draws of the
// camera the trace reports, the labels as shaded surfaces in their
// colours.
func TestWindow3DViewShowsLabels(t *testing.T) {
	dir, bin := windowTest(t)
	stack, labels := filepath.Join(dir, "stack.tif"), filepath.Join(dir, "cells_labels.tif")
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
z, y, x = np.mgrid[0:24, 0:96, 0:128]
a = (200 + 8 * x + 5 * y + 20 * z).astype(np.uint16)
a[((z - 10) * 3) ** 2 + (y - 40) ** 2 + (x - 70) ** 2 < 400] = 3000
lab = np.zeros(a.shape, np.uint16)
lab[((z - 12) * 3) ** 2 + (y - 70) ** 2 + (x - 30) ** 2 < 300] = 5
lab[4:20, 10:30, 90:120] = 12
lab[((z - 8) * 3) ** 2 + (y - 45) ** 2 + (x - 75) ** 2 < 150] = 300
for name, v in ((sys.argv[1], a), (sys.argv[2], lab)):
    tifffile.imwrite(name, v, imagej=True, resolution=(1, 1), metadata={'spacing': 3, 'unit': 'um', 'axes': 'ZYX'})
`, stack, labels)
	v := startViewer(t, bin, dir, filepath.Join(dir, "trace.jsonl"), stack, "--overlay", labels)
	v.key("b") // no scale bar
	n := v.frames()
	v.key("5")
	f := v.frame3D(n, func(e map[string]any) bool { return e["layers"] == 1.0 })
	v.shows3D(bin, dir, stack, n, f, "--overlay", labels)
	for range 4 { // MIP → minimum → mean → translucent → isosurface
		v.key("n")
	}
	f = v.frame3D(n, func(e map[string]any) bool { return e["mode3d"] == "iso" && e["layers"] == 1.0 })
	v.shows3D(bin, dir, stack, n, f, "--overlay", labels)
}
