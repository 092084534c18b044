package cli

import (
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
	"vastview/render/oblique"
)

// castVolumes writes a 20×64×56 uint16 volume with spacing 3, 1 and 1.5
// µm (Z, Y, X) as an ImageJ TIFF stack (tifffile) and as an OME-Zarr in
// 5×16×16 chunks (zarr-python) with a level of 2×2×2 means, and the array
// as vol.npy.
const castVolumes = `
import os, sys, numpy as np, tifffile, zarr
d = sys.argv[1]
rng = np.random.default_rng(5)
z, y, x = np.mgrid[0:20, 0:64, 0:56]
a = (900 + 700 * np.sin(z / 2.0) * np.cos(y / 6.0) + 11 * x + rng.integers(0, 400, z.shape)).astype(np.uint16)
np.save(os.path.join(d, 'vol.npy'), a)
tifffile.imwrite(os.path.join(d, 'vol.tif'), a, imagej=True, resolution=(1 / 1.5, 1 / 1.0),
                 metadata={'spacing': 3.0, 'unit': 'um', 'axes': 'ZYX'})
g = zarr.open_group(os.path.join(d, 'vol.ome.zarr'), mode='w')
g.create_dataset('0', data=a, chunks=(5, 16, 16))
a1 = np.round(a.reshape(10, 2, 32, 2, 28, 2).mean(axis=(1, 3, 5))).astype(np.uint16)
g.create_dataset('1', data=a1, chunks=(5, 16, 16))
g.attrs['multiscales'] = [{'version': '0.4', 'name': 'vol',
    'axes': [{'name': n, 'type': 'space', 'unit': 'micrometer'} for n in 'zyx'],
    'datasets': [{'path': '0', 'coordinateTransformations': [{'type': 'scale', 'scale': [3.0, 1.0, 1.5]}]},
                 {'path': '1', 'coordinateTransformations': [{'type': 'scale', 'scale': [6.0, 2.0, 3.0]},
                                                             {'type': 'translation', 'translation': [1.5, 0.5, 0.75]}]}]}]
`

// castReference casts the rays of the command-line contract through the
// array in ARR.npy with NumPy: one ray per output sample of the oblique
// plane, sampled at P + k·D·w for every integer k whose point lies inside
// the volume's box, nearest (the sample floor(q + 0.5), points with q in
// [−0.5, n−0.5]) or linear (scipy.ndimage.map_coordinates, order 1, q in
// [0, n−1]), where q = (P + T0 − TL)/SL for the level's scale SL and
// translations; a rounding snap of 1e-9 as the sampler's. It writes the
// max, min and mean of each ray (0 for a ray meeting no sample) as
// float32 to OUT_mip.raw, OUT_minip.raw, OUT_mean.raw, and OUT_amb.raw
// marking rays with a point within 1e-11 of a tie of that snap.
// Arguments: ARR.npy OUT INTERP ROTATE CENTER(Z,Y,X or "") SIZE(H,W or
// "") PIXEL(or "") STEP(or "") SPACING0 SCALE SHIFT SHAPE0.
const castReference = `
import sys, numpy as np
from scipy.ndimage import map_coordinates
arrp, outp, interp, rot, center, size, pixel, step, sp0, scale, shift, shape0 = sys.argv[1:13]
a = np.load(arrp).astype(np.float64)
vec = lambda s: np.array([float(f) for f in s.split(',')])
sp0, scale, shift, n0 = vec(sp0), vec(scale), vec(shift), vec(shape0)
` + pyTurnedBasis + `S = float(pixel) if pixel else sp0.min()
D = float(step) if step else sp0.min()
cidx = vec(center) if center else (n0 - 1) / 2
if size:
    H, W = [int(f) for f in size.split(',')]
else:
    H, W = int(round(n0[1] * sp0[1] / S)), int(round(n0[2] * sp0[2] / S))
i, j = np.mgrid[0:H, 0:W].astype(float)
P = np.array([cidx[k] * sp0[k] + (j - (W - 1) / 2) * S * u[k] + (i - (H - 1) / 2) * S * v[k] for k in range(3)])
n = np.array(a.shape, dtype=float)[:, None, None]
snap = 1e-9
K = int(np.ceil((np.linalg.norm(n0 * sp0) + np.linalg.norm(P.reshape(3, -1) - (n0 * sp0 / 2)[:, None], axis=0).max()) / D)) + 2
mx = np.full((H, W), -np.inf); mn = np.full((H, W), np.inf)
sm = np.zeros((H, W)); cnt = np.zeros((H, W)); amb = np.zeros((H, W), bool)
near = lambda x, b: np.abs(x - b) < 1e-11
for k in range(-K, K + 1):
    q = (P + k * D * w[:, None, None] + shift[:, None, None]) / scale[:, None, None]
    if interp == 'nearest':
        t = q + 0.5 + snap
        inside = np.all((t >= 0) & (t <= n + snap), axis=0)
        amb |= np.any(near(t, 0) | near(t, n + snap), axis=0)
        f = t - np.floor(t)
        amb |= inside & np.any(near(f, 0) | near(f, 1), axis=0)
        idx = np.clip(np.floor(t).astype(np.int64), 0, n.astype(np.int64) - 1)
        val = a[idx[0], idx[1], idx[2]]
    else:
        inside = np.all((q >= -snap) & (q <= n - 1 + snap), axis=0)
        amb |= np.any(near(q, -snap) | near(q, n - 1 + snap), axis=0)
        qc = np.clip(q, 0, n - 1)
        val = map_coordinates(a, qc.reshape(3, -1), order=1, mode='nearest').reshape(H, W)
    mx = np.where(inside, np.maximum(mx, val), mx)
    mn = np.where(inside, np.minimum(mn, val), mn)
    sm += np.where(inside, val, 0)
    cnt += inside
hit = cnt > 0
for name, r in (('mip', mx), ('minip', mn), ('mean', sm / np.maximum(cnt, 1))):
    np.where(hit, r, 0).astype('<f4').tofile(outp + '_' + name + '.raw')
amb.astype(np.uint8).tofile(outp + '_amb.raw')
print(H, W, int(hit.sum()), int(amb.sum()))
`

// TestRenderMatchesNumPy: render's mip, minip and mean of anisotropic
// data, from a TIFF stack and a chunked OME-Zarr, turned several ways,
// nearest and linear, at level 0 and a computed level, equal a NumPy ray
// caster (scipy.ndimage.map_coordinates for linear) written from the
// contract.
func TestRenderMatchesNumPy(t *testing.T) {
	testtool.RequirePython(t, "numpy", "scipy", "tifffile", "zarr")
	dir := t.TempDir()
	testtool.RunPython(t, castVolumes, dir)
	cases := []struct {
		level                              int
		interp, rot, center, size, S, step string
	}{
		{0, "nearest", "", "", "", "", "0.7"},
		{0, "linear", "", "", "", "", "0.7"},
		{0, "nearest", "y:90", "", "30,40", "1.5", "0.65"},
		{0, "linear", "x:30,y:-20,z:15", "11,20.3,18", "45,50", "0.9", "1.3"},
		{0, "nearest", "x:-65,z:110", "", "40,33", "1.1", ""},
		{1, "nearest", "x:30,y:-20", "", "30,30", "1.7", "1.9"},
		{1, "linear", "x:30,y:-20", "9,30,22.5", "30,30", "1.7", ""},
	}
	shape0 := "20,64,56"
	for _, name := range []string{"vol.tif", "vol.ome.zarr"} {
		path := filepath.Join(dir, name)
		for ci, c := range cases {
			if c.level > 0 && name == "vol.tif" {
				continue // a page a chunk, smaller than 64×56: no level is computed, and the TIFF stores none
			}
			arr := filepath.Join(dir, "vol.npy")
			sp0, scale, shift := []float64{3, 1, 1.5}, []float64{3, 1, 1.5}, []float64{0, 0, 0}
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
			}
			refp := filepath.Join(dir, "ref")
			stats := strings.Fields(string(testtool.RunPython(t, castReference, arr, refp, c.interp, c.rot,
				c.center, c.size, c.S, c.step, csv(sp0), csv(scale), csv(shift), shape0)))
			amb := readFile(t, refp+"_amb.raw")
			for _, mode := range []string{"mip", "minip", "mean"} {
				label := fmt.Sprintf("%s case %d (%s %s %q level %d)", name, ci, mode, c.interp, c.rot, c.level)
				out := filepath.Join(dir, "out.raw")
				args := []string{"render", path, "--out", out, "--mode", mode, "--interp", c.interp, "--level", fmt.Sprint(c.level)}
				for _, f := range [][2]string{{"--rotate", c.rot}, {"--center", c.center}, {"--size", c.size},
					{"--pixel", c.S}, {"--step", c.step}} {
					if f[1] != "" {
						args = append(args, f[0], f[1])
					}
				}
				mustRun(t, args...)
				got, want := readFile(t, out), readFile(t, refp+"_"+mode+".raw")
				if len(got) != len(want) {
					t.Fatalf("%s: %d bytes, the reference %d (H W hit ambiguous: %v)", label, len(got), len(want), stats)
				}
				tol := 1e-6
				if c.interp == "linear" {
					tol = 1e-4
				}
				n, skipped, hit := len(got)/4, 0, 0
				for i := 0; i < n; i++ {
					if amb[i] != 0 {
						skipped++
						continue
					}
					g, w := loader.Float32.At(got, i), loader.Float32.At(want, i)
					if w != 0 {
						hit++
					}
					if math.Abs(g-w) > tol*max(1, math.Abs(w)) {
						t.Fatalf("%s: ray %d (row %d) = %v, the reference %v", label, i, i/max(1, atoiOr(stats, 1)), g, w)
					}
				}
				if skipped > n/50 || hit < n/4 {
					t.Fatalf("%s: %d of %d rays at a tie, %d meet the data (%v)", label, skipped, n, hit, stats)
				}
			}
		}
	}
}

// atoiOr is field i of fs as a number, 0 if it is not one.
func atoiOr(fs []string, i int) int {
	var v int
	if i < len(fs) {
		fmt.Sscan(fs[i], &v)
	}
	return v
}

// sphereVolume writes sph.tif: a 48×96×80 uint16 volume with spacing 2,
// 1 and 1.25 whose values fall smoothly from 2000 at the physical point
// (47, 48, 50) (Z, Y, X: the volume's centre) with the distance r:
// 2000·exp(−r²/800), so the iso surface at V is the sphere of radius
// sqrt(800·ln(2000/V)).
const sphereVolume = `
import os, sys, numpy as np, tifffile
d = sys.argv[1]
z, y, x = np.mgrid[0:48, 0:96, 0:80].astype(float)
r2 = (z * 2 - 47) ** 2 + (y - 47.5) ** 2 + (x * 1.25 - 49.375) ** 2
a = np.round(2000 * np.exp(-r2 / 800)).astype(np.uint16)
tifffile.imwrite(os.path.join(d, 'sph.tif'), a, imagej=True, resolution=(1 / 1.25, 1 / 1.0),
                 metadata={'spacing': 2.0, 'unit': 'um', 'axes': 'ZYX'})
`

// TestRenderIsoSphere: the iso surface of a radial field is the sphere of
// its radius, seen at that radius from every side, brightest where it
// faces the eye and darker towards its rim.
func TestRenderIsoSphere(t *testing.T) {
	testtool.RequirePython(t, "numpy", "tifffile")
	dir := t.TempDir()
	testtool.RunPython(t, sphereVolume, dir)
	path := filepath.Join(dir, "sph.tif")
	const iso = 600.0
	radius := math.Sqrt(800 * math.Log(2000/iso)) // physical: pixels of 0.7
	const px, side = 0.7, 100
	mid := float64(side-1) / 2
	for _, rot := range []string{"", "y:90", "x:35,y:-50"} {
		for _, in := range []string{"nearest", "linear"} {
			out := filepath.Join(dir, "iso.png")
			args := []string{"render", path, "--out", out, "--mode", "iso", "--iso", fmt.Sprint(iso), "--interp", in,
				"--size", "100,100", "--pixel", "0.7", "--step", "0.7", "--center", "23.5,47.5,39.5", "--level-range", "0,2000"}
			if rot != "" {
				args = append(args, "--rotate", rot)
			}
			mustRun(t, args...)
			img := testtool.ReadPNG(t, out)
			label := fmt.Sprintf("iso %s %s", rot, in)
			lit := 0
			for y := 0; y < side; y++ {
				for x := 0; x < side; x++ {
					if gray(img, x, y) > 0 {
						lit++
					}
				}
			}
			r := math.Sqrt(float64(lit)/math.Pi) * px
			if math.Abs(r-radius) > 1.5 {
				t.Errorf("%s: silhouette radius %.2f, want %.2f", label, r, radius)
			}
			// Brightest facing the eye; towards the rim, the surface turns
			// away from the light: the mean of rings around the centre.
			prev := 256.0
			for _, f := range []float64{0, 0.3, 0.6, 0.85} {
				v := ringMean(img, mid, mid, f*radius/px, 0.1*radius/px)
				if f == 0 && v < 235 {
					t.Errorf("%s: the surface facing the eye is %.0f, want nearly white", label, v)
				}
				if v >= prev || v == 0 {
					t.Errorf("%s: at %.2f of the radius the surface is %.0f, not darker than %.0f nearer the centre", label, f, v, prev)
				}
				prev = v
			}
		}
	}
}

// ringMean is the mean gray of the pixels of img at distance r ± dr
// from (cx, cy).
func ringMean(img image.Image, cx, cy float64, r, dr float64) float64 {
	var sum, n float64
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if d := math.Hypot(float64(x)-cx, float64(y)-cy); math.Abs(d-r) <= dr {
				sum += float64(gray(img, x, y))
				n++
			}
		}
	}
	return sum / max(n, 1)
}

// ballVolume writes ball.tif: a 40×80×64 uint8 volume with spacing 2, 1
// and 1.25, 200 within 25 of its centre (physically) and 0 elsewhere.
const ballVolume = `
import os, sys, numpy as np, tifffile
d = sys.argv[1]
z, y, x = np.mgrid[0:40, 0:80, 0:64].astype(float)
r2 = (z * 2 - 39) ** 2 + (y - 39.5) ** 2 + (x * 1.25 - 39.375) ** 2
tifffile.imwrite(os.path.join(d, 'ball.tif'), np.where(r2 < 625, 200, 0).astype(np.uint8), imagej=True,
                 resolution=(1 / 1.25, 1 / 1.0), metadata={'spacing': 2.0, 'unit': 'um', 'axes': 'ZYX'})
`

// TestRenderAlpha: translucent rendering composites front to back: a ray
// through n samples of a value at the top of the window, of opacity a,
// is that value's colour times 1 − (1 − a)^n, black where it meets
// nothing, brighter with the opacity and the path.
func TestRenderAlpha(t *testing.T) {
	testtool.RequirePython(t, "numpy", "tifffile")
	dir := t.TempDir()
	testtool.RunPython(t, ballVolume, dir)
	path := filepath.Join(dir, "ball.tif")
	prev := -1
	for _, op := range []float64{0.01, 0.03, 0.1, 0.5} {
		for _, rot := range []string{"", "x:20,y:30"} {
			out := filepath.Join(dir, "alpha.png")
			args := []string{"render", path, "--out", out, "--mode", "alpha", "--opacity", fmt.Sprint(op), "--level-range", "0,200",
				"--size", "80,80", "--step", fmt.Sprint(ballStep)}
			if rot != "" {
				args = append(args, "--rotate", rot)
			}
			mustRun(t, args...)
			img := testtool.ReadPNG(t, out)
			label := fmt.Sprintf("opacity %v %s", op, rot)
			if c := gray(img, 0, 0); c != 0 {
				t.Errorf("%s: corner %d, want black", label, c)
			}
			// Each sample in the ball has the opacity 1 − (1 − a)^D (the
			// opacity is per smallest spacing, 1, and the step D).
			for _, px := range [][2]int{{40, 40}, {60, 40}, {40, 25}, {52, 57}} {
				n := ballSamples(t, rot, px[1], px[0])
				want := 255 * (1 - math.Pow(1-op, ballStep*float64(n)))
				c := gray(img, px[0], px[1])
				if math.Abs(float64(c)-want) > 1 {
					t.Errorf("%s: pixel %v, %d samples in the ball, is %d, want %.1f", label, px, n, c, want)
				}
				if px == [2]int{40, 40} && rot == "" {
					if c <= prev {
						t.Errorf("%s: centre %d, not brighter than %d at a lower opacity", label, c, prev)
					}
					prev = c
				}
			}
		}
	}
}

// ballStep is the step of the renderings of ball.tif.
const ballStep = 0.8

// ballSamples counts the samples of ball.tif (nearest) that the ray of
// output sample (i, j) of its 80×80 rendering turned by rot, one unit a
// pixel, meets inside the ball, ballStep apart.
func ballSamples(t *testing.T, rot string, i, j int) int {
	var ts []oblique.Turn
	if rot != "" {
		var err error
		if ts, err = oblique.ParseRotate(rot); err != nil {
			t.Fatal(err)
		}
	}
	u, v, w := oblique.Basis(ts)
	sp, n := oblique.Vec{2, 1, 1.25}, [3]int{40, 80, 64}
	count := 0
	for k := -400; k <= 400; k++ {
		var idx [3]int
		inside := true
		for a := 0; a < 3; a++ {
			P := float64(n[a]-1)/2*sp[a] + (float64(j)-39.5)*u[a] + (float64(i)-39.5)*v[a] + float64(k)*ballStep*w[a]
			q := P/sp[a] + 0.5 + 1e-9
			inside = inside && q >= 0 && q <= float64(n[a])
			idx[a] = min(n[a]-1, int(math.Floor(q)))
		}
		z, y, x := float64(idx[0])*2-39, float64(idx[1])-39.5, float64(idx[2])*1.25-39.375
		if inside && z*z+y*y+x*x < 625 {
			count++
		}
	}
	return count
}

// TestRenderPNGIsTheValuesThroughTheWindow: a projection's PNG is its
// .raw through the window and colormap.
func TestRenderPNGIsTheValuesThroughTheWindow(t *testing.T) {
	testtool.RequirePython(t, "numpy", "tifffile", "zarr")
	dir := t.TempDir()
	testtool.RunPython(t, castVolumes, dir)
	path := filepath.Join(dir, "vol.ome.zarr")
	for _, mode := range []string{"mip", "mean"} {
		raw, pic := filepath.Join(dir, "v.raw"), filepath.Join(dir, "v.png")
		common := []string{"render", path, "--mode", mode, "--rotate", "x:40,y:10", "--interp", "linear"}
		mustRun(t, append(common, "--out", raw)...)
		mustRun(t, append(common, "--out", pic, "--level-range", "1000,2000")...)
		vals, img := readFile(t, raw), testtool.ReadPNG(t, pic)
		w := img.Bounds().Dx()
		for i := 0; i < len(vals)/4; i++ {
			v := loader.Float32.At(vals, i)
			want := int(math.Max(0, math.Min(255, (v-1000)*255/1000)) + 0.5)
			if g := gray(img, i%w, i/w); g != want {
				t.Fatalf("%s: pixel %d is %d for the value %v, want %d", mode, i, g, v, want)
			}
		}
	}
}

// TestRenderErrors: bad options are one line naming the problem, exit 1.
func TestRenderErrors(t *testing.T) {
	testtool.RequirePython(t, "numpy", "tifffile", "zarr")
	dir := t.TempDir()
	testtool.RunPython(t, castVolumes, dir)
	path := filepath.Join(dir, "vol.tif")
	for _, c := range []struct{ out, args, want string }{
		{"o.raw", "--mode cubes", "--mode"},
		{"o.raw", "--mode alpha", ".png"},
		{"o.raw", "--step -1", "--step"},
		{"o.raw", "--iso 3", "--iso"},
		{"o.png", "--mode alpha --opacity 2", "--opacity"},
		{"o.raw", "--window 10,5", ".png"},
		{"o.raw", "--plane xz", "--plane"},
		{"o.raw", "--rotate w:3", "--rotate"},
		{"o.raw", "--level 9", "level 9"},
		{"o.raw", "--c 3", "--c 3"},
		{"o.tif", "", "--out"},
	} {
		code, _, errs := vv(append([]string{"render", path, "--out", filepath.Join(dir, c.out)}, strings.Fields(c.args)...)...)
		if code != 1 || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("render %s: exit %d, stderr %q; want 1 and one line naming %s", c.args, code, errs, c.want)
		}
	}
}

// gray is the red sample of pixel (x, y) of img.
func gray(img image.Image, x, y int) int {
	r, _, _, _ := img.At(x, y).RGBA()
	return int(r >> 8)
}

// TestOrbitMovieFramesAreRenderings: each frame of movie --render MODE
// --orbit DEG is render's picture with the camera turned about the
// picture's vertical axis: --rotate y:θ before the movie's own turns, θ
// stepping by 2°.
func TestOrbitMovieFramesAreRenderings(t *testing.T) {
	testtool.RequirePython(t, "numpy", "tifffile", "zarr")
	dir := t.TempDir()
	testtool.RunPython(t, castVolumes, dir)
	path := filepath.Join(dir, "vol.ome.zarr")
	for _, mode := range []string{"mip", "alpha"} {
		out := filepath.Join(dir, mode+".png")
		view := []string{"--rotate", "x:20", "--interp", "linear", "--level-range", "800,2400", "--size", "50,60"}
		mustRun(t, append([]string{"movie", path, out, "--render", mode, "--orbit", "-10"}, view...)...)
		for i := 0; i < 5; i++ {
			frame := filepath.Join(dir, fmt.Sprintf("%s_a%04d.png", mode, i))
			want := filepath.Join(dir, "want.png")
			theta := float64(i) * -10 / 5
			args := append([]string{"render", path, "--out", want, "--mode", mode}, view...)
			args[len(args)-7] = "y:" + fmt.Sprint(theta) + ",x:20"
			mustRun(t, args...)
			got, exp := testtool.ReadPNG(t, frame), testtool.ReadPNG(t, want)
			if got.Bounds() != exp.Bounds() {
				t.Fatalf("%s frame %d: %v, render %v", mode, i, got.Bounds(), exp.Bounds())
			}
			same := true
			for y := 0; y < 50 && same; y++ {
				for x := 0; x < 60; x++ {
					if got.At(x, y) != exp.At(x, y) {
						t.Errorf("%s frame %d (%v°): pixel (%d,%d) %v, render %v", mode, i, theta, x, y, got.At(x, y), exp.At(x, y))
						same = false
						break
					}
				}
			}
		}
		if _, err := os.Stat(filepath.Join(dir, mode+"_a0005.png")); err == nil {
			t.Errorf("%s: a sixth frame for a turn of 10° in steps of 2°", mode)
		}
	}
	code, _, errs := vv("movie", path, filepath.Join(dir, "x.png"), "--orbit", "30")
	if code != 1 || !strings.Contains(errs, "--render") {
		t.Errorf("--orbit without --render: exit %d, %q", code, errs)
	}
	code, _, errs = vv("movie", path, filepath.Join(dir, "y.png"), "--rotate", "x:3")
	if code != 1 || !strings.Contains(errs, "--rotate") {
		t.Errorf("--rotate without --render: exit %d, %q", code, errs)
	}
}
