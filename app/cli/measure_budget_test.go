package cli

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"vastview/base/testtool"
)

// TestMeasureBoxLargerThanBudgetStreams measures a 512 MiB box (four
// 8192² uint16 planes in 512² tiles, each plane a random 64² tile
// repeated) with a budget of 64 MiB: the figures equal NumPy's of the
// repeated tiles, and the peak memory stays within the budget and 300 MB.
// The command line runs in a child process built without the race
// detector (testtool.CLICommand).
func TestMeasureBoxLargerThanBudgetStreams(t *testing.T) {
	testtool.Long(t, "a 512 MiB TIFF measured in a child process")
	testtool.RequirePython(t, "tifffile", "numpy")
	dir := t.TempDir()
	src := filepath.Join(dir, "big.tif")
	out := testtool.RunPython(t, `
import sys, json, numpy as np, tifffile
rng = np.random.default_rng(9)
tiles = rng.integers(0, 65536, (4, 64, 64), dtype=np.uint16)
with tifffile.TiffWriter(sys.argv[1], bigtiff=True) as w:
    for z in range(4):
        w.write(np.tile(tiles[z], (128, 128)), tile=(512, 512))
v = tiles.astype(np.float64)
print(json.dumps({'count': 4 * 8192 * 8192, 'mean': v.mean(), 'std': v.std(), 'min': v.min(), 'max': v.max(),
                  'sum': float(v.sum()) * 128 * 128}))
`, src)
	var ref map[string]float64
	if err := json.Unmarshal(out, &ref); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	const budget = 64 << 20
	cmd := testtool.CLICommand(t, "measure", src, "--json", "--budget", "64MiB", "--box", "0,0,0,4,8192,8192")
	cmd.Env = append(cmd.Env, "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
	res, peak, err := testtool.PeakRSS(t, cmd)
	if err != nil {
		t.Fatalf("measure: %v\n%s", err, res)
	}
	t.Logf("peak RSS %d MiB with a budget of %d MiB for a box of 512 MiB", peak>>20, budget>>20)
	var got map[string]any
	if err := json.Unmarshal(res, &got); err != nil {
		t.Fatalf("%v: %s", err, res)
	}
	for _, k := range []string{"count", "sum", "mean", "std", "min", "max"} {
		if g, ok := got[k].(float64); !ok || !close9(g, ref[k]) {
			t.Errorf("%s %v, NumPy %v", k, got[k], ref[k])
		}
	}
	if peak > budget+300<<20 {
		t.Errorf("peak RSS %d MiB, more than the budget of %d MiB and 300 MB", peak>>20, budget>>20)
	}
}
