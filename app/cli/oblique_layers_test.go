package cli

import (
	"encoding/binary"
	"fmt"
	"image"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
	"vastview/render"
	"vastview/render/oblique"
	"vastview/session"
)

// obliqueLabels writes lab.tif, a 12×150×145 uint16 label volume (three
// balls) with spacing 2.5, 2 and 1.5 µm (Z, Y, X): over vol.tif (2.5, 1,
// 0.75 µm) it lies at half its resolution in Y and X. Also lab.npy.
const obliqueLabels = `
import os, sys, numpy as np, tifffile
d = sys.argv[1]
z, y, x = np.mgrid[0:12, 0:150, 0:145]
lab = np.zeros(z.shape, np.uint16)
for i, (cz, cy, cx, r) in enumerate([(6, 40, 50, 40), (4, 100, 90, 45), (8, 70, 115, 30)]):
    lab[((z - cz) * 2.5) ** 2 + ((y - cy) * 2.0) ** 2 + ((x - cx) * 1.5) ** 2 < r * r] = i + 1
np.save(os.path.join(d, 'lab.npy'), lab)
tifffile.imwrite(os.path.join(d, 'lab.tif'), lab, imagej=True, resolution=(1 / 1.5, 1 / 2.0),
                 metadata={'spacing': 2.5, 'unit': 'um', 'axes': 'ZYX'})
`

// labelReference samples the labels of ARR.npy (spacing SPACING, Z,Y,X)
// on the oblique plane CENTER (physical, Z,Y,X), U, V (Z,Y,X), PIXEL,
// SIZE (H,W) with map_coordinates order 0 where the point is inside the
// labels ([−0.5, n−0.5] samples), 0 elsewhere, as uint32; AMBIG marks
// the samples within 1e-7 of a rounding tie.
const labelReference = `
import sys, numpy as np
from scipy.ndimage import map_coordinates
arrp, outp, ambp, center, u, v, pixel, size, sp = sys.argv[1:10]
a = np.load(arrp)
vec = lambda s: np.array([float(f) for f in s.split(',')])
C, u, v, sp = vec(center), vec(u), vec(v), vec(sp)
S = float(pixel)
H, W = [int(f) for f in size.split(',')]
i, j = np.mgrid[0:H, 0:W].astype(float)
q = np.array([(C[k] + (j - (W - 1) / 2) * S * u[k] + (i - (H - 1) / 2) * S * v[k]) / sp[k] for k in range(3)])
n = np.array(a.shape)[:, None, None]
t = q + 0.5
inside = np.all((t >= 0) & (t <= n), axis=0)
out = np.where(inside, map_coordinates(a, q, order=0, mode='nearest'), 0).astype('<u4')
out.tofile(outp)
np.any(np.abs(t - np.round(t)) < 1e-7, axis=0).astype(np.uint8).tofile(ambp)
print(int((out > 0).sum()))
`

// TestTurnedViewLabels: a label layer over a turned view is sampled on
// the same plane through its alignment, always by the nearest sample:
// the window's picture is, pixel for pixel, `plane --rotate …
// --overlay LABELS` of the same plane, which is the plane without the
// labels with the ids SciPy's map_coordinates (order 0) finds at the
// same physical points laid over it (render.OverlayLabels at the
// layer's opacity), with trilinear sampling of the image as well.
func TestTurnedViewLabels(t *testing.T) {
	testtool.RequirePython(t, "numpy", "tifffile", "zarr", "scipy")
	dir := t.TempDir()
	testtool.RunPython(t, obliqueVolumes, dir)
	testtool.RunPython(t, obliqueLabels, dir)
	path, labels := filepath.Join(dir, "vol.tif"), filepath.Join(dir, "lab.tif")
	const w, h = 160, 120
	for _, keys := range []string{"wdq", "wdqi"} {
		s := openView(t, path, w, h)
		s.Zoom(1.6)
		for _, r := range keys {
			s.Rune(r)
		}
		s.AddLayer(labels, session.LayerLabels)
		f := s.frame(fmt.Sprintf("the turned view (keys %q) with its labels", keys), func(g *session.Frame) bool {
			return g.Layers == 1 && session.Oblique(g.View)
		})
		pl, _ := f.Plane()
		interp := "nearest"
		if f.View.Linear {
			interp = "linear"
		}
		sp := []float64{2.5, 1, 0.75}
		args := []string{"plane", path, "--rotate", rotateOfTurn(f.View.Turn), "--interp", interp,
			"--center", fmt.Sprintf("%.17g,%.17g,%.17g", pl.Center[0]/sp[0], pl.Center[1]/sp[1], pl.Center[2]/sp[2]),
			"--pixel", fmt.Sprintf("%.17g", pl.Pixel), "--size", fmt.Sprintf("%d,%d", h, w),
			"--level", fmt.Sprint(f.Info.Level), "--level-range", fmt.Sprintf("%v,%v", f.View.Lo, f.View.Hi)}
		if f.View.Colormap != "" {
			args = append(args, "--colormap", f.View.Colormap)
		}
		bare, over := filepath.Join(dir, "bare.png"), filepath.Join(dir, "over.png")
		mustRun(t, append(args, "--out", bare)...)
		mustRun(t, append(args, "--out", over, "--overlay", labels, "--opacity", "0.7")...)
		withLabels := testtool.ReadPNG(t, over)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				got := f.Img.RGBAAt(x, y)
				r, g, b, _ := withLabels.At(x, y).RGBA()
				if [3]uint8{got.R, got.G, got.B} != [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8)} {
					t.Fatalf("keys %q: pixel (%d, %d) is %v, plane %v --overlay draws %v", keys, x, y, got, args, withLabels.At(x, y))
				}
			}
		}
		// The reference: SciPy's labels at the plane's points over the
		// picture without them.
		ref, amb := filepath.Join(dir, "ids.raw"), filepath.Join(dir, "amb.raw")
		vec := func(v oblique.Vec) string { return fmt.Sprintf("%.17g,%.17g,%.17g", v[0], v[1], v[2]) }
		labelled := string(testtool.RunPython(t, labelReference, filepath.Join(dir, "lab.npy"), ref, amb,
			vec(pl.Center), vec(pl.U), vec(pl.V), fmt.Sprintf("%.17g", pl.Pixel), fmt.Sprintf("%d,%d", h, w), "2.5,2,1.5"))
		ids, ambig := readFile(t, ref), readFile(t, amb)
		n := 0
		for i := 0; i < w*h; i++ {
			if binary.LittleEndian.Uint32(ids[4*i:]) != 0 {
				n++
			}
		}
		if n < w*h/10 {
			t.Fatalf("keys %q: only %d samples of the plane are labelled (%s)", keys, n, labelled)
		}
		// Hovering reads the label at the point the pixel samples.
		hovered := 0
		for i := 0; i < w*h && hovered < 6; i += 997 {
			id := binary.LittleEndian.Uint32(ids[4*i:])
			if id == 0 || ambig[i] != 0 {
				continue
			}
			hovered++
			s.Hover(float64(i%w)+0.5, float64(i/w)+0.5, true)
			if text := s.HoverText(); !strings.HasSuffix(text, fmt.Sprintf("label %d", id)) {
				t.Fatalf("keys %q: hovering over (%d, %d) reads %q, want … label %d", keys, i%w, i/w, text, id)
			}
		}
		s.Close()
		src2 := testtool.ReadPNG(t, bare)
		want := image.NewRGBA(image.Rect(0, 0, w, h))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				r, g, b, _ := src2.At(x, y).RGBA()
				copy(want.Pix[4*(y*w+x):], []byte{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 255})
			}
		}
		render.OverlayLabels(want, &image.RGBA{Pix: ids, Stride: 4 * w, Rect: image.Rect(0, 0, w, h)},
			render.LabelStyle{Opacity: 0.7})
		skipped := 0
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				if ambig[y*w+x] != 0 {
					skipped++
					continue
				}
				got, exp := withLabels.At(x, y), want.RGBAAt(x, y)
				r, g, b, _ := got.RGBA()
				if [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8)} != [3]uint8{exp.R, exp.G, exp.B} {
					t.Fatalf("keys %q: pixel (%d, %d) of plane --overlay is %v, the plane with SciPy's labels %v", keys, x, y, got, exp)
				}
			}
		}
		if skipped > w*h/50 {
			t.Fatalf("keys %q: %d samples at a tie", keys, skipped)
		}
	}
}

// obliqueImageLayer writes img.ome.zarr, a 12×100×97 uint16 image with
// spacing 2.5, 3 and 2.25 µm (Z, Y, X), one channel in red with the
// window 1000..9000, and its array as img.npy.
const obliqueImageLayer = `
import os, sys, numpy as np, zarr
d = sys.argv[1]
z, y, x = np.mgrid[0:12, 0:100, 0:97]
a = (1000 + 600 * z + 45 * x + 20 * y + 900 * ((x // 9 + y // 7) % 2)).astype(np.uint16)
np.save(os.path.join(d, 'img.npy'), a)
g = zarr.open_group(os.path.join(d, 'img.ome.zarr'), mode='w')
g.create_dataset('0', data=a, chunks=(4, 32, 32))
g.attrs['multiscales'] = [{'version': '0.4', 'name': 'img',
    'axes': [{'name': n, 'type': 'space', 'unit': 'micrometer'} for n in 'zyx'],
    'datasets': [{'path': '0', 'coordinateTransformations': [{'type': 'scale', 'scale': [2.5, 3.0, 2.25]}]}]}]
g.attrs['omero'] = {'channels': [{'label': 'red', 'color': 'FF0000', 'active': True,
    'window': {'start': 1000, 'end': 9000, 'min': 0, 'max': 65535}}]}
`

// linearReference samples ARR.npy (spacing SPACING) on an oblique plane
// as labelReference does, with map_coordinates order 1 where the point
// needs no sample outside ([0, n−1]), as float32, and marks outside
// samples in MASK (1 inside).
const linearReference = `
import sys, numpy as np
from scipy.ndimage import map_coordinates
arrp, outp, maskp, center, u, v, pixel, size, sp = sys.argv[1:10]
a = np.load(arrp).astype(np.float64)
vec = lambda s: np.array([float(f) for f in s.split(',')])
C, u, v, sp = vec(center), vec(u), vec(v), vec(sp)
S = float(pixel)
H, W = [int(f) for f in size.split(',')]
i, j = np.mgrid[0:H, 0:W].astype(float)
q = np.array([(C[k] + (j - (W - 1) / 2) * S * u[k] + (i - (H - 1) / 2) * S * v[k]) / sp[k] for k in range(3)])
n = np.array(a.shape)[:, None, None]
inside = np.all((q >= -1e-9) & (q <= n - 1 + 1e-9), axis=0)
np.where(inside, map_coordinates(a, np.clip(q, 0, n - 1), order=1, mode='nearest'), 0).astype('<f4').tofile(outp)
inside.astype(np.uint8).tofile(maskp)
print(int(inside.sum()))
`

// TestTurnedViewImageLayer: an image layer over a turned view sampled
// trilinearly (I) is sampled on the same plane through its alignment,
// trilinearly too, through its channel's window and colour: the picture
// is the plane without the layer with SciPy's map_coordinates (order 1)
// values of the layer at the same physical points painted over it where
// the layer has data (opacity 1).
func TestTurnedViewImageLayer(t *testing.T) {
	testtool.RequirePython(t, "numpy", "tifffile", "zarr", "scipy")
	dir := t.TempDir()
	testtool.RunPython(t, obliqueVolumes, dir)
	testtool.RunPython(t, obliqueImageLayer, dir)
	path, layer := filepath.Join(dir, "vol.tif"), filepath.Join(dir, "img.ome.zarr")
	const w, h = 160, 120
	s := openView(t, path, w, h)
	for _, r := range "wdqi" {
		s.Rune(r)
	}
	s.AddLayer(layer, session.LayerImage)
	f := s.frame("the turned view with its image layer", func(g *session.Frame) bool {
		return g.Layers == 1 && g.View.Linear
	})
	pl, _ := f.Plane()
	sp := []float64{2.5, 1, 0.75}
	args := []string{"plane", path, "--rotate", rotateOfTurn(f.View.Turn), "--interp", "linear",
		"--center", fmt.Sprintf("%.17g,%.17g,%.17g", pl.Center[0]/sp[0], pl.Center[1]/sp[1], pl.Center[2]/sp[2]),
		"--pixel", fmt.Sprintf("%.17g", pl.Pixel), "--size", fmt.Sprintf("%d,%d", h, w),
		"--level", fmt.Sprint(f.Info.Level), "--level-range", fmt.Sprintf("%v,%v", f.View.Lo, f.View.Hi)}
	if f.View.Colormap != "" {
		args = append(args, "--colormap", f.View.Colormap)
	}
	bare := filepath.Join(dir, "bare.png")
	mustRun(t, append(args, "--out", bare)...)
	ref, mask := filepath.Join(dir, "vals.raw"), filepath.Join(dir, "mask.raw")
	vec := func(v oblique.Vec) string { return fmt.Sprintf("%.17g,%.17g,%.17g", v[0], v[1], v[2]) }
	testtool.RunPython(t, linearReference, filepath.Join(dir, "img.npy"), ref, mask,
		vec(pl.Center), vec(pl.U), vec(pl.V), fmt.Sprintf("%.17g", pl.Pixel), fmt.Sprintf("%d,%d", h, w), "2.5,3,2.25")
	vals, in := readFile(t, ref), readFile(t, mask)
	want := image.NewRGBA(image.Rect(0, 0, w, h))
	base := testtool.ReadPNG(t, bare)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r, g, b, _ := base.At(x, y).RGBA()
			copy(want.Pix[4*(y*w+x):], []byte{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 255})
		}
	}
	pic := image.NewRGBA(image.Rect(0, 0, w, h))
	var pt render.Painter
	pt.Paint(pic.Pix, vals, loader.Float32, 1000, 9000, render.ColormapOrGray("#ff0000"))
	covered := 0
	for i := 0; i < w*h; i++ {
		pic.Pix[4*i+3] = 255 * in[i]
		covered += int(in[i])
	}
	if covered < w*h/4 {
		t.Fatalf("the layer covers only %d pixels", covered)
	}
	render.Overlay(want, pic, 1, render.Over)
	bad := 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			got, exp := f.Img.RGBAAt(x, y), want.RGBAAt(x, y)
			for _, d := range []int{int(got.R) - int(exp.R), int(got.G) - int(exp.G), int(got.B) - int(exp.B)} {
				if d > 1 || d < -1 { // the last bit of float32 may choose the next colour
					bad++
					if bad < 5 {
						t.Errorf("pixel (%d, %d) is %v, the plane with SciPy's layer %v", x, y, got, exp)
					}
				}
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d pixels differ", bad)
	}
}
