package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
)

// projectionCheck compares a projection plane wrote (.raw) with NumPy's
// max, min or mean over an axis of an array: the stack's (a TIFF read by
// tifffile) or a level of an OME-Zarr (read by zarr-python). Arguments:
// SRC KIND(tiff|zarr:LEVEL) AXIS OP A B RAW [C] (B -1: to the axis's
// end); it prints "ok" or where they differ.
const projectionCheck = `
import sys, numpy as np
src, kind, axis, op, a, b, raw = sys.argv[1:8]
c = int(sys.argv[8]) if len(sys.argv) > 8 else None
if kind == 'tiff':
    import tifffile
    arr = tifffile.imread(src)
else:
    import zarr
    arr = zarr.open_group(src, mode='r')[kind.split(':')[1]][:]
if c is not None:
    arr = arr[:, c]   # ZCYX
ax = {'z': 0, 'y': 1, 'x': 2}[axis]
a, b = int(a), int(b)
if b < 0:
    b = arr.shape[ax] - 1   # every plane
arr = np.take(arr, range(a, b + 1), axis=ax)
if op == 'mean':
    want = arr.mean(axis=ax, dtype=np.float64).astype(np.float32)
else:
    want = getattr(arr, op)(axis=ax)
got = np.fromfile(raw, dtype=want.dtype.newbyteorder('<')).reshape(want.shape)
if not np.array_equal(got, want):
    i = np.argwhere(got != want)[0]
    print('differ at', tuple(i), got[tuple(i)], want[tuple(i)])
else:
    print('ok', want.shape, float(want.max()))
`

// TestPlaneProjectsLikeNumPy projects a tifffile stack along Z, Y and X
// by max, min and mean, over every plane and over a slab, at level 0 and
// at a computed level (compared with the same level of the OME-Zarr that
// pyramid writes, as zarr-python reads it), and a channel of a
// two-channel stack: each equal to NumPy's reduction of the same array.
func TestPlaneProjectsLikeNumPy(t *testing.T) {
	testtool.RequirePython(t, "numpy", "tifffile", "zarr")
	dir := t.TempDir()
	stack := filepath.Join(dir, "stack.tif")
	two := filepath.Join(dir, "two.tif")
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
rng = np.random.default_rng(11)
tifffile.imwrite(sys.argv[1], rng.integers(0, 60000, (21, 70, 90), dtype=np.uint16), imagej=True, resolution=(1, 1), metadata={'spacing': 0.25, 'unit': 'um', 'axes': 'ZYX'})
tifffile.imwrite(sys.argv[2], rng.integers(0, 4000, (9, 2, 40, 50), dtype=np.uint16), imagej=True, metadata={'axes': 'ZCYX'})
`, stack, two)
	check := func(src, kind, axis, op, a, b string, args ...string) {
		t.Helper()
		raw := filepath.Join(dir, "p.raw")
		planeArgs := []string{"plane", src, "--project", op, "--out", raw, "--plane", map[string]string{"z": "xy", "y": "xz", "x": "yz"}[axis]}
		if a != "" {
			planeArgs = append(planeArgs, "--slab", a+":"+b)
		}
		mustRun(t, append(planeArgs, args...)...)
		if a == "" {
			a, b = "0", "-1"
		}
		pyArgs := []string{src, kind, axis, op, a, b, raw}
		for i, x := range args {
			if x == "--c" {
				pyArgs = append(pyArgs, args[i+1])
			}
		}
		if kind != "tiff" {
			pyArgs[0] = filepath.Join(dir, "stack.ome.zarr")
		}
		out := strings.TrimSpace(string(testtool.RunPython(t, projectionCheck, pyArgs...)))
		if !strings.HasPrefix(out, "ok") {
			t.Errorf("%s %s along %s %s:%s %v: %s", filepath.Base(src), op, axis, a, b, args, out)
		}
	}
	for _, op := range []string{"max", "min", "mean"} {
		check(stack, "tiff", "z", op, "4", "13")
	}
	for _, op := range testtool.Quick([]string{"mean", "max", "min"}, 1) {
		check(stack, "tiff", "z", op, "", "")
		check(stack, "tiff", "y", op, "10", "69")
		check(stack, "tiff", "x", op, "0", "0")
	}
	check(two, "tiff", "z", "max", "2", "6", "--c", "1")

	// A computed level: level 1 of the stack as pyramid writes it.
	mustRun(t, "pyramid", stack, filepath.Join(dir, "stack.ome.zarr"))
	for _, op := range testtool.Quick([]string{"mean", "max"}, 1) {
		check(stack, "zarr:1", "z", op, "", "", "--level", "1")
		check(stack, "zarr:1", "y", op, "3", "20", "--level", "1")
	}

	// A PNG of the projection, and the errors.
	png := filepath.Join(dir, "mip.png")
	mustRun(t, "plane", stack, "--project", "max", "--out", png)
	if b := testtool.ReadPNG(t, png).Bounds(); b.Dx() != 90 || b.Dy() != 70 {
		t.Errorf("projection PNG %v", b)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--project", "median"}, "unknown projection"},
		{[]string{"--project", "max", "--slab", "3:30"}, "slab 3:30 is outside Z 0..20"},
		{[]string{"--slab", "1:2"}, "--slab goes with --project"},
		{[]string{"--project", "max", "--slab", "x"}, "--slab wants A:B"},
	} {
		code, _, errs := vv(append([]string{"plane", stack, "--out", filepath.Join(dir, "e.raw")}, c.args...)...)
		if code != 1 || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want %q", c.args, code, errs, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "e.raw")); err == nil {
		t.Error("a failed projection left its output")
	}
}
