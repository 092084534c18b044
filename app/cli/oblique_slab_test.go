package cli

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
	"vastview/session"
)

// slabReference projects a slab of oblique planes of the array in
// ARR.npy along their normal w as the command-line contract defines it:
// the planes P + k·D·w (D the smallest spacing) for k in A..B (or every k
// whose plane meets the data's box), each sampled with SciPy's
// map_coordinates (order 0 for nearest, order 1 for linear) where the
// point is inside the data (nearest: q in [−0.5, n−0.5]; linear: q in
// [0, n−1]); then the max, min or mean per output sample over the planes
// inside, 0 where none is. Arguments: ARR.npy OUT.raw AMBIG.raw INTERP OP
// ROTATE CENTER SIZE PIXEL SLAB(A:B or "") SPACING(Z,Y,X). AMBIG marks
// the samples where a plane's point is within 1e-7 of a rounding tie or
// of the data's edge.
const slabReference = `
import sys, numpy as np
from scipy.ndimage import map_coordinates
arrp, outp, ambp, interp, op, rot, center, size, pixel, slab, sp0 = sys.argv[1:12]
a = np.load(arrp)
vec = lambda s: np.array([float(f) for f in s.split(',')])
sp0 = vec(sp0)
n0 = np.array(a.shape, dtype=float)
` + pyTurnedBasis + `S = float(pixel)
D = sp0.min()
cidx = vec(center)
C = cidx * sp0
H, W = [int(f) for f in size.split(',')]
if slab:
    A, B = [int(f) for f in slab.split(':')]
else:
    ds = [np.dot(np.array(corner) * sp0 - C, w) / D for corner in
          [[z, y, x] for z in (-0.5, n0[0] - 0.5) for y in (-0.5, n0[1] - 0.5) for x in (-0.5, n0[2] - 0.5)]]
    A, B = int(np.floor(min(ds))), int(np.ceil(max(ds)))
i, j = np.mgrid[0:H, 0:W].astype(float)
n = n0[:, None, None]
eps = 1e-7
vals, amb = [], np.zeros((H, W), bool)
for k in range(A, B + 1):
    P = [C[c] + k * D * w[c] + (j - (W - 1) / 2) * S * u[c] + (i - (H - 1) / 2) * S * v[c] for c in range(3)]
    q = np.array([P[c] / sp0[c] for c in range(3)])
    if interp == 'nearest':
        t = q + 0.5
        inside = np.all((t >= 0) & (t <= n), axis=0)
        val = map_coordinates(a.astype(np.float64), q, order=0, mode='nearest')
        amb |= np.any(np.abs(t - np.round(t)) < eps, axis=0)
    else:
        inside = np.all((q >= 0) & (q <= n - 1), axis=0)
        val = map_coordinates(a.astype(np.float64), q, order=1, mode='nearest')
        amb |= np.any((np.abs(q) < eps) | (np.abs(q - (n - 1)) < eps), axis=0)
    vals.append(np.where(inside, val, np.nan))
st = np.array(vals)
cnt = np.sum(~np.isnan(st), axis=0)
with np.errstate(all='ignore'):
    import warnings
    warnings.simplefilter('ignore')
    red = {'max': np.nanmax, 'min': np.nanmin, 'mean': np.nanmean}[op](st, axis=0)
out = np.where(cnt > 0, red, 0)
if interp == 'nearest' and op != 'mean':
    out = out.astype(a.dtype)
else:
    out = out.astype('<f4')
out.astype(out.dtype.newbyteorder('<')).tofile(outp)
amb.astype(np.uint8).tofile(ambp)
print(A, B, int((cnt > 0).sum()))
`

// TestObliqueSlabMatchesSciPy: plane --rotate with --project max, min or
// mean and --slab A:B (offsets along the plane's normal w in steps of
// the smallest spacing) or every plane, of anisotropic data from a TIFF
// stack and a chunked OME-Zarr, equals the same projection of SciPy's
// map_coordinates samples (order 0 and 1) at the same points.
func TestObliqueSlabMatchesSciPy(t *testing.T) {
	testtool.RequirePython(t, "numpy", "tifffile", "zarr", "scipy")
	dir := t.TempDir()
	testtool.RunPython(t, obliqueVolumes, dir)
	cases := []struct{ interp, op, rot, center, size, pixel, slab string }{
		{"nearest", "max", "x:30,y:-20,z:15", "6,150.3,140", "60,70", "0.9", "-6:5"},
		{"nearest", "min", "x:-65,z:110", "5,140,150", "50,44", "1.1", "-4:9"},
		{"nearest", "mean", "x:12,y:7", "5.5,120,100", "40,50", "1.3", ""},
		{"linear", "max", "x:30,y:-20,z:15", "6,150.3,140", "60,70", "0.9", "-6:5"},
		{"linear", "mean", "y:40,z:-25", "4,100,160", "45,40", "0.8", ""},
	}
	for _, name := range []string{"vol.tif", "vol.ome.zarr"} {
		path := filepath.Join(dir, name)
		for ci, c := range cases {
			label := fmt.Sprintf("%s case %d (%s %s %s slab %q)", name, ci, c.interp, c.op, c.rot, c.slab)
			ref, amb := filepath.Join(dir, "ref.raw"), filepath.Join(dir, "amb.raw")
			stats := strings.Fields(string(testtool.RunPython(t, slabReference, filepath.Join(dir, "vol.npy"), ref, amb,
				c.interp, c.op, c.rot, c.center, c.size, c.pixel, c.slab, "2.5,1,0.75")))
			out := filepath.Join(dir, "out.raw")
			args := []string{"plane", path, "--out", out, "--interp", c.interp, "--rotate", c.rot, "--center", c.center,
				"--size", c.size, "--pixel", c.pixel, "--project", c.op}
			if c.slab != "" {
				args = append(args, "--slab", c.slab)
			}
			mustRun(t, args...)
			got, want, ambig := readFile(t, out), readFile(t, ref), readFile(t, amb)
			if len(got) != len(want) {
				t.Fatalf("%s: %d bytes, the reference %d (A B inside: %v)", label, len(got), len(want), stats)
			}
			dt, es := loader.Uint16, 2
			if c.interp == "linear" || c.op == "mean" {
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
				tol := 0.0
				if dt == loader.Float32 {
					tol = 1e-4 * max(1, math.Abs(w))
				}
				if math.Abs(g-w) > tol {
					t.Fatalf("%s: sample %d = %v, the reference %v", label, i, g, w)
				}
			}
			if skipped > n/20 || inside < n/3 {
				t.Fatalf("%s: %d of %d samples at a tie, %d inside the data", label, skipped, n, inside)
			}
		}
	}
}

// TestTurnedViewProjects: P on a turned view shows the maximum (then the
// minimum) along the plane's normal over every plane that meets the data,
// pixel for pixel the picture `plane --rotate … --project` draws, and
// the status bar says it is a projection along w of a turned plane.
func TestTurnedViewProjects(t *testing.T) {
	testtool.RequirePython(t, "numpy", "tifffile", "zarr")
	dir := t.TempDir()
	testtool.RunPython(t, obliqueVolumes, dir)
	path := filepath.Join(dir, "vol.tif")
	const w, h = 160, 120
	s := openView(t, path, w, h)
	s.Zoom(1.6)
	for _, r := range "wdq" {
		s.Rune(r)
	}
	for _, op := range []string{"max", "min"} {
		s.Rune('p')
		f := s.frame("the "+op+" projection of the turned plane", func(g *session.Frame) bool {
			return g.Projection.String() == op
		})
		pl, ok := f.Plane()
		if !ok || f.Info.Level != 0 {
			t.Fatalf("the projection's frame has no plane, or is of level %d, not 0", f.Info.Level)
		}
		if st := s.Status().Text; !strings.Contains(st, op+" along w") || !strings.Contains(st, "turned") {
			t.Fatalf("status %q does not say the turned plane is projected along w", st)
		}
		sp := []float64{2.5, 1, 0.75}
		args := []string{"plane", path, "--rotate", rotateOfTurn(f.View.Turn), "--interp", "nearest",
			"--center", fmt.Sprintf("%.17g,%.17g,%.17g", pl.Center[0]/sp[0], pl.Center[1]/sp[1], pl.Center[2]/sp[2]),
			"--pixel", fmt.Sprintf("%.17g", pl.Pixel), "--size", fmt.Sprintf("%d,%d", h, w),
			"--level", fmt.Sprint(f.Info.Level), "--level-range", fmt.Sprintf("%v,%v", f.View.Lo, f.View.Hi),
			"--project", op}
		if f.View.Colormap != "" {
			args = append(args, "--colormap", f.View.Colormap)
		}
		png := filepath.Join(dir, "p.png")
		mustRun(t, append(args, "--out", png)...)
		// Hovering reads the projection's value at level 0 there as well.
		raw := filepath.Join(dir, "p.raw")
		at0 := append([]string{}, args...)
		for i := range at0 {
			if at0[i] == "--level" {
				at0[i+1] = "0"
			}
		}
		mustRun(t, append(at0, "--slab", fmt.Sprintf("%d:%d", f.Slab[0], f.Slab[1]), "--out", raw)...)
		samples := readFile(t, raw)
		for _, p := range [][2]int{{w / 2, h / 2}, {w / 3, h / 4}, {3 * w / 4, 2 * h / 3}} {
			s.Hover(float64(p[0])+0.5, float64(p[1])+0.5, true)
			want := fmt.Sprintf("%s %d", op, int(loader.Uint16.At(samples, p[1]*w+p[0])))
			if text := s.HoverText(); !strings.HasSuffix(text, want) {
				t.Fatalf("%s: hovering over %v reads %q, want … %s", op, p, text, want)
			}
		}
		want := testtool.ReadPNG(t, png)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				got := f.Img.RGBAAt(x, y)
				r, g, b, _ := want.At(x, y).RGBA()
				if [3]uint8{got.R, got.G, got.B} != [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8)} {
					t.Fatalf("%s: pixel (%d, %d) is %v, plane %v draws %v", op, x, y, got, args, want.At(x, y))
				}
			}
		}
	}
}
