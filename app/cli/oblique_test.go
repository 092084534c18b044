package cli

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/levels"
	"vastview/loader"
)

// obliqueVolumes writes a 12×300×290 uint16 volume with spacing 2.5, 1 and
// 0.75 µm (Z, Y, X) as an ImageJ TIFF stack (tifffile) and as an OME-Zarr
// in 5×16×16 chunks (zarr-python), and the array as vol.npy.
const obliqueVolumes = `
import os, sys, numpy as np, tifffile, zarr
d = sys.argv[1]
rng = np.random.default_rng(11)
z, y, x = np.mgrid[0:12, 0:300, 0:290]
a = (1000 + 800 * np.sin(z / 3.0) * np.cos(y / 5.0) + 9 * x + rng.integers(0, 300, z.shape)).astype(np.uint16)
np.save(os.path.join(d, 'vol.npy'), a)
tifffile.imwrite(os.path.join(d, 'vol.tif'), a, imagej=True, resolution=(1 / 0.75, 1 / 1.0),
                 metadata={'spacing': 2.5, 'unit': 'um', 'axes': 'ZYX'})
g = zarr.open_group(os.path.join(d, 'vol.ome.zarr'), mode='w')
g.create_dataset('0', data=a, chunks=(5, 16, 16))
g.attrs['multiscales'] = [{'version': '0.4', 'name': 'vol',
    'axes': [{'name': n, 'type': 'space', 'unit': 'micrometer'} for n in 'zyx'],
    'datasets': [{'path': '0', 'coordinateTransformations': [{'type': 'scale', 'scale': [2.5, 1.0, 0.75]}]}]}]
`

// obliqueReference samples an oblique plane of the array in ARR.npy as
// the command-line contract defines it, with NumPy (nearest: the sample
// floor(q + 0.5), 0 outside [−0.5, n−0.5]) or SciPy (linear:
// scipy.ndimage.map_coordinates, order 1, and 0 where a sample outside is
// needed, outside [0, n−1]), where q = (P + T0 − TL)/SL for the level's
// scale SL and translations. Arguments: ARR.npy OUT.raw AMBIG.raw INTERP
// ROTATE CENTER(Z,Y,X or "") SIZE(H,W or "") PIXEL(or "") SPACING0 SCALE
// SHIFT (T0 − TL) SHAPE0 (level 0's), the last four as Z,Y,X. AMBIG marks the samples within
// 1e-7 of a rounding tie or of the data's edge, where the last bit of the
// arithmetic decides.
const obliqueReference = `
import sys, numpy as np
from scipy.ndimage import map_coordinates
arrp, outp, ambp, interp, rot, center, size, pixel, sp0, scale, shift, shape0 = sys.argv[1:13]
a = np.load(arrp)
vec = lambda s: np.array([float(f) for f in s.split(',')])
sp0, scale, shift = vec(sp0), vec(scale), vec(shift)
n0 = vec(shape0)  # level 0's shape
` + pyTurnedBasis + `S = float(pixel) if pixel else sp0.min()
cidx = vec(center) if center else (n0 - 1) / 2
if size:
    H, W = [int(f) for f in size.split(',')]
else:
    H, W = int(round(n0[1] * sp0[1] / S)), int(round(n0[2] * sp0[2] / S))
i, j = np.mgrid[0:H, 0:W].astype(float)
P = [cidx[k] * sp0[k] + (j - (W - 1) / 2) * S * u[k] + (i - (H - 1) / 2) * S * v[k] for k in range(3)]
q = np.array([(P[k] + shift[k]) / scale[k] for k in range(3)])
n = np.array(a.shape)[:, None, None]
eps = 1e-7
if interp == 'nearest':
    t = q + 0.5
    inside = np.all((t >= 0) & (t <= n), axis=0)
    idx = np.clip(np.floor(t).astype(np.int64), 0, n - 1)
    out = np.where(inside, a[idx[0], idx[1], idx[2]], 0).astype(a.dtype)
    amb = np.any(np.abs(t - np.round(t)) < eps, axis=0)
else:
    inside = np.all((q >= 0) & (q <= n - 1), axis=0)
    out = map_coordinates(a.astype(np.float64), q, order=1, mode='constant', cval=0.0)
    out = np.where(inside, out, 0).astype('<f4')
    amb = np.any((np.abs(q) < eps) | (np.abs(q - (n - 1)) < eps), axis=0)
out.astype(out.dtype.newbyteorder('<')).tofile(outp)
amb.astype(np.uint8).tofile(ambp)
print(H, W, int(inside.sum()))
`

// levelArray reads level k of the pyramid over path (ZYX data) in full,
// with its geometry.
func levelArray(t *testing.T, path string, k int) (shape []int, data []byte, scale, trans0, trans []float64) {
	t.Helper()
	src, err := loader.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := levels.Open(src, levels.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	m := p.Meta()
	if m.Axes != "ZYX" || k >= len(m.Levels) {
		t.Fatalf("%s: axes %s, %d levels", path, m.Axes, len(m.Levels))
	}
	l := m.Levels[k]
	es := m.DType.Size()
	data = make([]byte, l.Shape[0]*l.Shape[1]*l.Shape[2]*es)
	buf := make([]byte, l.ChunkBytes(m.DType))
	g := l.Grid()
	for cz := 0; cz < g[0]; cz++ {
		for cy := 0; cy < g[1]; cy++ {
			for cx := 0; cx < g[2]; cx++ {
				if err := p.ReadChunk(context.Background(), k, []int{cz, cy, cx}, buf); err != nil {
					t.Fatal(err)
				}
				for z := 0; z < l.Chunk[0] && cz*l.Chunk[0]+z < l.Shape[0]; z++ {
					for y := 0; y < l.Chunk[1] && cy*l.Chunk[1]+y < l.Shape[1]; y++ {
						x0 := cx * l.Chunk[2]
						w := min(l.Chunk[2], l.Shape[2]-x0)
						off := (((cz*l.Chunk[0]+z)*l.Shape[1]+cy*l.Chunk[1]+y)*l.Shape[2] + x0) * es
						copy(data[off:off+w*es], buf[((z*l.Chunk[1]+y)*l.Chunk[2])*es:][:w*es])
					}
				}
			}
		}
	}
	return l.Shape, data, l.Scale, m.Levels[0].Translation, l.Translation
}

func csv(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

// TestObliquePlaneMatchesSciPy: plane --rotate/--center/--size/--pixel/
// --interp of anisotropic data, from a TIFF stack and a chunked OME-Zarr,
// at level 0 and at a computed level, equals NumPy's nearest indexing and
// scipy.ndimage.map_coordinates with the contract's rule for samples
// outside.
func TestObliquePlaneMatchesSciPy(t *testing.T) {
	testtool.RequirePython(t, "numpy", "scipy", "tifffile", "zarr")
	dir := t.TempDir()
	testtool.RunPython(t, obliqueVolumes, dir)
	cases := []struct {
		level                        int
		interp, rot, center, size, S string
	}{
		{0, "nearest", "x:30,y:-20,z:15", "11,20.3,18", "45,50", "0.6"},
		{0, "linear", "x:30,y:-20,z:15", "11,20.3,18", "45,50", "0.6"},
		{0, "nearest", "x:8,z:5", "", "", ""},
		{0, "linear", "x:-65,z:110", "4,9,30", "40,33", "0.9"},
		{1, "nearest", "x:-40,z:70", "", "30,30", "1.7"},
		{1, "linear", "x:-40,z:70", "6,140,150.2", "30,30", "1.7"},
	}
	for _, name := range []string{"vol.tif", "vol.ome.zarr"} {
		path := filepath.Join(dir, name)
		for ci, c := range cases {
			label := fmt.Sprintf("%s case %d (%s %s level %d)", name, ci, c.interp, c.rot, c.level)
			arr := filepath.Join(dir, "vol.npy")
			sp0, scale, shift := []float64{2.5, 1, 0.75}, []float64{2.5, 1, 0.75}, []float64{0, 0, 0}
			if c.level > 0 {
				shape, data, sc, t0, tl := levelArray(t, path, c.level)
				raw := filepath.Join(dir, fmt.Sprintf("level%d.raw", c.level))
				if err := os.WriteFile(raw, data, 0o644); err != nil {
					t.Fatal(err)
				}
				arr = filepath.Join(dir, fmt.Sprintf("level%d.npy", c.level))
				testtool.RunPython(t, `
import sys, numpy as np
np.save(sys.argv[2], np.fromfile(sys.argv[1], '<u2').reshape([int(f) for f in sys.argv[3].split(',')]))
`, raw, arr, fmt.Sprintf("%d,%d,%d", shape[0], shape[1], shape[2]))
				scale = sc
				for a := range shift {
					shift[a] = t0[a] - tl[a]
				}
				if scale[0] == sp0[0] && scale[1] == sp0[1] && scale[2] == sp0[2] {
					t.Fatalf("%s: level %d is not coarser: %v", label, c.level, scale)
				}
			}
			ref, amb := filepath.Join(dir, "ref.raw"), filepath.Join(dir, "amb.raw")
			stats := strings.Fields(string(testtool.RunPython(t, obliqueReference, arr, ref, amb, c.interp, c.rot,
				c.center, c.size, c.S, csv(sp0), csv(scale), csv(shift), "12,300,290")))
			out := filepath.Join(dir, "out.raw")
			args := []string{"plane", path, "--out", out, "--interp", c.interp, "--rotate", c.rot, "--level", fmt.Sprint(c.level)}
			if c.center != "" {
				args = append(args, "--center", c.center)
			}
			if c.size != "" {
				args = append(args, "--size", c.size)
			}
			if c.S != "" {
				args = append(args, "--pixel", c.S)
			}
			mustRun(t, args...)
			got, want, ambig := readFile(t, out), readFile(t, ref), readFile(t, amb)
			if len(got) != len(want) {
				t.Fatalf("%s: %d bytes, the reference %d (H W inside: %v)", label, len(got), len(want), stats)
			}
			dt, es := loader.Uint16, 2
			if c.interp == "linear" {
				dt, es = loader.Float32, 4
			}
			n, skipped, inside := len(got)/es, 0, 0
			for i := 0; i < n; i++ {
				if ambig[i] != 0 {
					skipped++
					continue
				}
				g, w := dt.At(got, i), dt.At(want, i)
				if w != 0 {
					inside++
				}
				if math.Abs(g-w) > 1e-3*max(1, math.Abs(w)) {
					t.Fatalf("%s: sample %d = %v, the reference %v", label, i, g, w)
				}
			}
			if skipped > n/50 || inside < n/4 {
				t.Fatalf("%s: %d of %d samples at a tie, %d inside the data", label, skipped, n, inside)
			}
		}
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestObliquePlaneErrors: bad oblique options are one line naming the
// problem, exit 1.
func TestObliquePlaneErrors(t *testing.T) {
	testtool.RequirePython(t, "numpy", "tifffile", "zarr")
	dir := t.TempDir()
	testtool.RunPython(t, obliqueVolumes, dir)
	path := filepath.Join(dir, "vol.tif")
	for _, c := range []struct{ args, want string }{
		{"--rotate w:3", "--rotate"},
		{"--rotate x:abc", "--rotate"},
		{"--interp cubic", "--interp"},
		{"--center 1,2", "--center"},
		{"--size 0,10", "--size"},
		{"--pixel -1", "--pixel"},
		{"--rotate x:3 --plane xz", "--plane"},
		{"--rotate x:3 --level 9", "level 9"},
	} {
		code, _, errs := vv(append([]string{"plane", path, "--out", filepath.Join(dir, "o.raw")}, strings.Fields(c.args)...)...)
		if code != 1 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, %q", c.args, code, errs)
		}
	}
}

// pyTurnedBasis is the Python that turns the plane's directions by the
// --rotate string rot (turns about x, y, z in order, each a rotation of
// u = x and v = y): u, v and the normal w = u × v, each in Z, Y, X order
// afterwards, cosines and sines of right angles exact.
const pyTurnedBasis = `def tidy(c):
    for t in (0.0, 1.0, -1.0):
        if abs(c - t) < 1e-12:
            return t
    return c
u, v = np.array([1.0, 0, 0]), np.array([0, 1.0, 0])  # x, y, z
for part in filter(None, rot.split(',')):
    ax, deg = part.split(':')
    th = np.radians(float(deg))
    c, s = tidy(np.cos(th)), tidy(np.sin(th))
    R = {'x': [[1, 0, 0], [0, c, -s], [0, s, c]], 'y': [[c, 0, s], [0, 1, 0], [-s, 0, c]],
         'z': [[c, -s, 0], [s, c, 0], [0, 0, 1]]}[ax]
    u, v = np.array(R) @ u, np.array(R) @ v
w = np.cross(u, v)
u, v, w = u[::-1], v[::-1], w[::-1]  # z, y, x
`
