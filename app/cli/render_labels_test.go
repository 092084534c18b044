package cli

import (
	"encoding/binary"
	"image"
	"math"
	"path/filepath"
	"testing"

	"vastview/base/testtool"
	"vastview/render"
)

// labelVolumes writes img.tif, a 20×64×56 uint16 volume with spacing 3,
// 1 and 1.5 µm (Z, Y, X), and lab.tif, labels of it (the same samples:
// a few ellipsoids of ids 4, 9, 300, 0 elsewhere), as ImageJ stacks.
const labelVolumes = `
import os, sys, numpy as np, tifffile
d = sys.argv[1]
z, y, x = np.mgrid[0:20, 0:64, 0:56]
a = (900 + 11 * x + 7 * y + 13 * z).astype(np.uint16)
lab = np.zeros(z.shape, np.uint16)
for (cz, cy, cx, rz, ry, rx, i) in [(8, 20, 18, 4, 10, 8, 4), (12, 44, 36, 5, 9, 12, 9), (5, 50, 12, 3, 7, 6, 300)]:
    lab[((z - cz) / rz) ** 2 + ((y - cy) / ry) ** 2 + ((x - cx) / rx) ** 2 <= 1] = i
for name, v in (('img.tif', a), ('lab.tif', lab)):
    tifffile.imwrite(os.path.join(d, name), v, imagej=True, resolution=(1 / 1.5, 1 / 1.0),
                     metadata={'spacing': 3.0, 'unit': 'um', 'axes': 'ZYX'})
np.save(os.path.join(d, 'lab.npy'), lab)
`

// firstHitReference casts the rays of render's contract through LAB.npy
// (spacing 3, 1, 1.5) with NumPy: the output sample (i, j) of the plane
// turned by ROTATE about the volume's centre, H×W samples of S, its
// points P + k·D·w; of those inside the volume (the nearest sample
// floor(P/spacing + 0.5) within it), the first whose label is not 0
// gives the ray's id. It writes the ids (uint32) to OUT_ids.raw and the
// rays with a point within 1e-11 of a rounding tie (after the sampler's snap of 1e-9) to OUT_amb.raw.
// Arguments: LAB.npy OUT ROTATE H,W S D.
const firstHitReference = `
import sys, numpy as np
labp, outp, rot, size, S, D = sys.argv[1:7]
a = np.load(labp)
S, D = float(S), float(D)
sp = np.array([3.0, 1.0, 1.5])
` + pyTurnedBasis + `n = np.array(a.shape, float)
C = (n - 1) / 2 * sp
H, W = [int(f) for f in size.split(',')]
i, j = np.mgrid[0:H, 0:W].astype(float)
P = np.array([C[k] + (j - (W - 1) / 2) * S * u[k] + (i - (H - 1) / 2) * S * v[k] for k in range(3)])
K = int(np.linalg.norm(n * sp) / D) + int(np.abs(P).max() / D) + 4
ids = np.zeros((H, W), np.uint32); amb = np.zeros((H, W), bool)
for k in range(-K, K + 1):
    t = (P + k * D * w[:, None, None]) / sp[:, None, None] + 0.5
    f = np.floor(t + 1e-9).astype(np.int64)
    inside = np.all((f >= 0) & (f < n[:, None, None]), axis=0)
    g = t + 1e-9
    amb |= np.any(np.abs(g - np.round(g)) < 1e-11, axis=0)
    f = np.clip(f, 0, n[:, None, None].astype(np.int64) - 1)
    val = np.where(inside, a[f[0], f[1], f[2]], 0)
    first = (val != 0) & (ids == 0)
    ids[first] = val[first]
ids.astype('<u4').tofile(outp + '_ids.raw')
amb.astype(np.uint8).tofile(outp + '_amb.raw')
`

// TestRenderOverlayLabels: render --overlay draws, on every ray whose
// first labelled sample NumPy finds (anisotropic data, turned several
// ways), that label's colour shaded (its palette colour times a light
// from the ambient 0.2 up to 1), and elsewhere the rendering without the
// labels; in iso mode too.
func TestRenderOverlayLabels(t *testing.T) {
	testtool.RequirePython(t, "numpy", "tifffile")
	dir := t.TempDir()
	testtool.RunPython(t, labelVolumes, dir)
	img, lab := filepath.Join(dir, "img.tif"), filepath.Join(dir, "lab.tif")
	cases := []struct{ rot, size, S, step string }{
		{"", "64,56", "1", "0.9"},
		{"y:35,x:-20", "60,60", "1.2", "0.8"},
		{"x:90", "30,50", "1.3", "1.1"},
	}
	for ci, c := range cases {
		ref := filepath.Join(dir, "ref")
		testtool.RunPython(t, firstHitReference, filepath.Join(dir, "lab.npy"), ref, c.rot, c.size, c.S, c.step)
		ids, amb := readFile(t, ref+"_ids.raw"), readFile(t, ref+"_amb.raw")
		for _, mode := range []string{"mip", "iso"} {
			args := []string{"render", img, "--mode", mode, "--size", c.size, "--pixel", c.S, "--step", c.step,
				"--level-range", "900,1600"}
			if mode == "iso" {
				args = append(args, "--iso", "5000") // above every value: only the labels show
			}
			if c.rot != "" {
				args = append(args, "--rotate", c.rot)
			}
			plain, over := filepath.Join(dir, "plain.png"), filepath.Join(dir, "over.png")
			mustRun(t, append(args, "--out", plain)...)
			mustRun(t, append(args, "--out", over, "--overlay", lab)...)
			pi, oi := testtool.ReadPNG(t, plain), testtool.ReadPNG(t, over)
			W := oi.Bounds().Dx()
			bad, labelled := 0, 0
			for q := 0; q < len(amb); q++ {
				if amb[q] != 0 {
					continue
				}
				x, y := q%W, q/W
				id := binary.LittleEndian.Uint32(ids[4*q:])
				got := rgbOf(oi, x, y)
				if id == 0 {
					if want := rgbOf(pi, x, y); got != want {
						if bad++; bad <= 3 {
							t.Errorf("case %d %s: pixel (%d,%d) %v off the labels, want the plain rendering's %v", ci, mode, x, y, got, want)
						}
					}
					continue
				}
				labelled++
				if l, ok := shadeOf(got, render.LabelColour(id)); !ok {
					if bad++; bad <= 3 {
						t.Errorf("case %d %s: pixel (%d,%d) %v, want label %d's colour %v shaded (light %.2f)",
							ci, mode, x, y, got, id, render.LabelColour(id), l)
					}
				}
			}
			if bad > 0 {
				t.Errorf("case %d %s: %d pixels wrong", ci, mode, bad)
			}
			if labelled < 200 {
				t.Errorf("case %d: only %d rays meet a label", ci, labelled)
			}
		}
	}
	// The labels must fit the image's space, and go with a picture only.
	out := filepath.Join(dir, "o.raw")
	if code, _, stderr := vv("render", img, "--out", out, "--overlay", lab); code != 1 || stderr == "" {
		t.Errorf("render --overlay to .raw: exit %d, %q", code, stderr)
	}
}

func rgbOf(img image.Image, x, y int) [3]uint8 {
	r, g, b, _ := img.At(x, y).RGBA()
	return [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8)}
}

// shadeOf reports whether pixel p is colour c times a light l from the
// ambient 0.2 to 1 (each primary within rounding), and l.
func shadeOf(p, c [3]uint8) (float64, bool) {
	var pc, cc float64
	for k := range 3 {
		pc += float64(p[k]) * float64(c[k])
		cc += float64(c[k]) * float64(c[k])
	}
	l := pc / cc
	if l < 0.2-0.01 || l > 1+0.01 {
		return l, false
	}
	for k := range 3 {
		if math.Abs(float64(p[k])-l*float64(c[k])) > 1.01 {
			return l, false
		}
	}
	return l, true
}
