package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
)

// TestPyramidKeepsToItsBudget exports a 1 MB file of eight 8192² pages
// (128 MiB each once decompressed, one zlib strip a page) with a budget of
// 256 MiB. The strips are read in bands of rows, each decoding the strip's
// stream on from where the band before stopped, so the levels stream
// through bands, not pages: the peak memory stays within the budget and
// 300 MB (it was 1.5 GiB, then 585 MiB reading whole pages), and the
// program has nothing to say about it. The command line runs in a child
// process built without the race detector (testtool.CLICommand).
func TestPyramidKeepsToItsBudget(t *testing.T) {
	testtool.Long(t, "pyramids of 8192² planes in a child process")
	testtool.RequirePython(t, "tifffile", "numpy")
	dir := t.TempDir()
	src := filepath.Join(dir, "pages.tif")
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
a = np.zeros((8, 8192, 8192), np.uint16)
a[:, ::64, ::64] = 1000
tifffile.imwrite(sys.argv[1], a, compression='zlib', rowsperstrip=8192)
`, src)
	const budget = 256 << 20
	cmd := testtool.CLICommand(t, "pyramid", src, filepath.Join(dir, "out.ome.zarr"), "--budget", "256MiB")
	cmd.Env = append(cmd.Env, "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "LANG=en_US.UTF-8")
	out, peak, err := testtool.PeakRSS(t, cmd)
	if err != nil {
		t.Fatalf("pyramid: %v\n%s", err, out)
	}
	t.Logf("peak RSS %d MiB with a budget of %d MiB; output:\n%s", peak>>20, budget>>20, out)
	if peak > budget+300<<20 {
		t.Errorf("peak RSS %d MiB, more than the budget of %d MiB and 300 MB", peak>>20, budget>>20)
	}
	if strings.Contains(string(out), "more than the budget") {
		t.Errorf("the program says the levels need more than the budget:\n%s", out)
	}
	// A chunk larger than the whole budget (a tile of a whole 8192²
	// plane, which is not read in parts) is refused, in one line.
	tiled := filepath.Join(dir, "tiled.tif")
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
a = np.zeros((2, 8192, 8192), np.uint16)
tifffile.imwrite(sys.argv[1], a, compression='zlib', tile=(8192, 8192))
`, tiled)
	cmd = testtool.CLICommand(t, "pyramid", tiled, filepath.Join(dir, "small.ome.zarr"), "--budget", "64MiB")
	cmd.Env = append(cmd.Env, "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "LANG=en_US.UTF-8")
	out, err = cmd.CombinedOutput()
	msg := strings.TrimSpace(string(out))
	if err == nil || strings.Count(msg, "\n") > 0 || !strings.Contains(msg, "larger than the memory budget of 64 MiB") {
		t.Errorf("a budget smaller than a chunk: %v: %q", err, msg)
	}
}
