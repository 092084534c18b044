package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
)

// daskParts runs `vastview pyramid SRC OUT --part I/N` for I = 1..N on a
// Dask distributed LocalCluster of worker processes with client.map, then
// --finish, as the README's recipe does; argv: the command line's core
// (testtool.CLICommand's binary), the variable that gives it its
// arguments, SRC, OUT, N. It prints the number of workers that ran parts.
const daskParts = `
import sys, os, subprocess
from dask.distributed import Client, LocalCluster, get_worker
vv, cli_env, src, out, n = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])

def vastview(*args):
    # The command line's core: the binary runs the arguments cli_env holds.
    env = dict(os.environ, **{cli_env: '\n'.join(args)})
    r = subprocess.run([vv], env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr)

def part(i):
    vastview('pyramid', src, out, '--part', f'{i}/{n}')
    return get_worker().address

if __name__ == '__main__':
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        where = client.gather(client.map(part, range(1, n + 1)))
    vastview('pyramid', src, out, '--finish')
    print(len(set(where)))
`

// TestPyramidPartsOnDask builds the levels of a TIFF stack made by
// tifffile in four parts on a Dask LocalCluster of two worker processes,
// each part running the command line in a process of its own, and checks that after --finish
// the output equals one plain run's, file for file and byte for byte.
func TestPyramidPartsOnDask(t *testing.T) {
	testtool.RequirePython(t, "dask.distributed", "tifffile", "numpy")
	dir := t.TempDir()
	bin := testtool.CLICommand(t).Path
	src := filepath.Join(dir, "stack.tif")
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
rng = np.random.default_rng(3)
tifffile.imwrite(sys.argv[1], rng.integers(0, 4000, (40, 600, 530), dtype=np.uint16))
`, src)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	t.Setenv("LANG", "en_US.UTF-8")
	out := filepath.Join(dir, "dask", "img.ome.zarr")
	script := filepath.Join(dir, "parts.py")
	if err := os.WriteFile(script, []byte(daskParts), 0o644); err != nil {
		t.Fatal(err)
	}
	// The script runs from a file: Dask's worker processes re-import it.
	workers := strings.TrimSpace(string(testtool.Run(t, testtool.Python, script, bin, testtool.CLIEnv, src, out, "4")))
	if workers == "" {
		t.Fatal("no worker ran a part")
	}
	plain := filepath.Join(dir, "plain", "img.ome.zarr")
	os.MkdirAll(filepath.Dir(plain), 0o755)
	mustRun(t, "pyramid", src, plain)
	want, got := files(t, plain), files(t, out)
	if len(want) < 3 || len(got) != len(want) {
		t.Fatalf("one run wrote %d files, the parts %d", len(want), len(got))
	}
	for k, v := range want {
		if !bytes.Equal(got[k], v) {
			t.Errorf("%s differs from one plain run's", k)
		}
	}
}
