package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/render"
)

// labelFixtures writes, with tifffile, scikit-image and zarr: raw.tif, an
// ImageJ stack of 6×120×160 uint16 at 0.5 µm a pixel and 1 µm a plane;
// labels.tif, skimage.measure.label of its blobs thresholded at half the
// resolution (3×60×80, 1 µm a pixel, 2 µm a plane); crop.ome.zarr, the
// labels of the region of rows 30.. and columns 40.. of raw's plane 4 at
// raw's resolution, placed by an NGFF translation; and far.ome.zarr, the
// same placed a metre away.
const labelFixtures = `
import sys, os, json, numpy as np, tifffile, zarr
from skimage import measure, filters
d = sys.argv[1]
rng = np.random.default_rng(7)
z, y, x = np.mgrid[0:6, 0:120, 0:160]
raw = np.zeros((6, 120, 160))
for cz, cy, cx, r in [(1, 30, 40, 14), (4, 70, 100, 20), (4, 25, 130, 12), (2, 95, 30, 16)]:
    raw += 3000 * np.exp(-(((z - cz) * 2) ** 2 + (y - cy) ** 2 + (x - cx) ** 2) / (2 * r * r))
raw = (raw + rng.integers(0, 200, raw.shape)).astype(np.uint16)
tifffile.imwrite(os.path.join(d, 'raw.tif'), raw, imagej=True, resolution=(2, 2),
                 metadata={'spacing': 1, 'unit': 'um', 'axes': 'ZYX'})
small = filters.gaussian(raw[::2, ::2, ::2].astype(float), 1) > 1200
lab = measure.label(small).astype(np.uint16)
tifffile.imwrite(os.path.join(d, 'labels.tif'), lab, imagej=True, resolution=(1, 1),
                 metadata={'spacing': 2, 'unit': 'um', 'axes': 'ZYX'})
crop = measure.label(filters.gaussian(raw[4, 30:, 40:].astype(float), 1) > 1500).astype(np.uint16)
for name, ty in [('crop.ome.zarr', 15.0), ('far.ome.zarr', 1e6)]:
    g = zarr.open_group(os.path.join(d, name), mode='w')
    g.create_dataset('0', data=crop, chunks=(32, 32))
    g.attrs['multiscales'] = [{'version': '0.4', 'name': 'crop',
        'axes': [{'name': 'y', 'type': 'space', 'unit': 'micrometer'}, {'name': 'x', 'type': 'space', 'unit': 'micrometer'}],
        'datasets': [{'path': '0', 'coordinateTransformations': [{'type': 'scale', 'scale': [0.5, 0.5]},
                                                                {'type': 'translation', 'translation': [ty, 20.0]}]}]}]
    g.attrs['image-label'] = {'version': '0.4'}
np.save(os.path.join(d, 'labels.npy'), lab)
np.save(os.path.join(d, 'crop.npy'), crop)
`

// overlayReference lays labels over a PNG's pixels as NumPy reckons it:
// base sample i of an axis, centred at i*sb + tb, takes the label sample
// whose centre (j*sl + tl) is nearest, ties to the higher; label 0 leaves
// the pixel, others blend their colour (a 256×3 table, entry 1+(id-1)%255)
// at opacity a/255 as round(c*a/255) + round(p*(255-a)/255). Arguments:
// BASE.rgba OUT.rgba W H LABELS.npy TABLE.raw A SB SL TLY TLX (the base's
// origin at 0, Y and X sampled alike).
const overlayReference = `
import sys, numpy as np
base, out, w, h, labp, tabp, a = sys.argv[1:8]
sb, sl, tly, tlx = map(float, sys.argv[8:12])
w, h, a = int(w), int(h), int(a)
lab = np.load(labp)
table = np.fromfile(tabp, np.uint8).reshape(256, 3).astype(np.int64)
img = np.fromfile(base, np.uint8).reshape(h, w, 4).astype(np.int64)
def nearest(n, m, tl):
    j = np.floor((np.arange(n) * sb - tl) / sl + 0.5).astype(np.int64)
    return j, (j >= 0) & (j < m)
ry, oky = nearest(h, lab.shape[0], tly)
rx, okx = nearest(w, lab.shape[1], tlx)
ids = np.zeros((h, w), np.int64)
ids[np.ix_(oky, okx)] = lab[np.ix_(ry[oky], rx[okx])]
c = table[np.where(ids == 0, 0, 1 + (ids - 1) % 255)]
blend = (c * a + 127) // 255 + (img[..., :3] * (255 - a) + 127) // 255
img[..., :3] = np.where((ids != 0)[..., None], blend, img[..., :3])
img.astype(np.uint8).tofile(out)
print((ids != 0).sum())
`

// rgbaOf returns the pixels of a PNG as RGBA bytes.
func rgbaOf(t *testing.T, path string) []byte {
	t.Helper()
	img := testtool.ReadPNG(t, path)
	b := img.Bounds()
	out := make([]byte, 0, b.Dx()*b.Dy()*4)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			out = append(out, byte(r>>8), byte(g>>8), byte(bl>>8), byte(a>>8))
		}
	}
	return out
}

// TestPlaneOverlaysLabelsWhereTheyBelong lays label images written by
// other tools over a stack: scikit-image labels of the blobs at half the
// resolution (an ImageJ TIFF with its own pixel size and plane spacing),
// and labels of a cropped region placed by an OME-Zarr translation; the
// PNGs must equal a NumPy reference of nearest-centre alignment and
// blending, pixel for pixel.
func TestPlaneOverlaysLabelsWhereTheyBelong(t *testing.T) {
	testtool.RequirePython(t, "numpy", "tifffile", "skimage", "zarr")
	dir := t.TempDir()
	testtool.RunPython(t, labelFixtures, dir)
	raw := filepath.Join(dir, "raw.tif")
	var table []byte
	for e := range 256 {
		c := render.LabelColour(uint32(e))
		table = append(table, c[:]...)
	}
	tab := filepath.Join(dir, "table.raw")
	if err := os.WriteFile(tab, table, 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(what, labels, npy string, z int, opacity, a string, sl, tly, tlx string) {
		t.Helper()
		basePNG := filepath.Join(dir, what+"-base.png")
		outPNG := filepath.Join(dir, what+".png")
		zs := []string{"--z", string(rune('0' + z))}
		mustRun(t, append([]string{"plane", raw, "--out", basePNG, "--level-range", "0,3000"}, zs...)...)
		mustRun(t, append([]string{"plane", raw, "--out", outPNG, "--level-range", "0,3000", "--overlay", labels, "--opacity", opacity}, zs...)...)
		baseRGBA := filepath.Join(dir, what+"-base.rgba")
		if err := os.WriteFile(baseRGBA, rgbaOf(t, basePNG), 0o644); err != nil {
			t.Fatal(err)
		}
		ref := filepath.Join(dir, what+"-ref.rgba")
		n := strings.TrimSpace(string(testtool.RunPython(t, overlayReference, baseRGBA, ref, "160", "120", npy, tab, a, "0.5", sl, tly, tlx)))
		if n == "0" || len(n) < 3 {
			t.Fatalf("%s: only %s labelled pixels in plane %d: the fixture shows too little", what, n, z)
		}
		want, err := os.ReadFile(ref)
		if err != nil {
			t.Fatal(err)
		}
		got := rgbaOf(t, outPNG)
		if !bytes.Equal(got, want) {
			for i := range got {
				if got[i] != want[i] {
					p := i / 4
					t.Fatalf("%s: the overlay differs from NumPy's first at (%d, %d): %v, want %v", what, p%160, p/160, got[p*4:p*4+4], want[p*4:p*4+4])
				}
			}
		}
	}
	// Plane 4 of raw (4 µm) is plane 2 of the labels (2 µm a plane).
	lab2 := filepath.Join(dir, "lab2.npy")
	testtool.RunPython(t, "import sys, numpy as np; np.save(sys.argv[2], np.load(sys.argv[1])[2])", filepath.Join(dir, "labels.npy"), lab2)
	check("half", filepath.Join(dir, "labels.tif"), lab2, 4, "0.6", "153", "1", "0", "0")
	// The crop: label sample (0, 0) is centred at (15, 20) µm, on raw's
	// sample (30, 40).
	check("crop", filepath.Join(dir, "crop.ome.zarr"), filepath.Join(dir, "crop.npy"), 4, "1", "255", "0.5", "15", "20")

	// --scalebar: 160 pixels of 0.5 µm, a fifth is 16 µm, so a bar of
	// 10 µm (20 pixels) at the bottom right, and nothing else changed.
	bar := filepath.Join(dir, "bar.png")
	mustRun(t, "plane", raw, "--z", "4", "--out", bar, "--scalebar")
	with, without := rgbaOf(t, bar), rgbaOf(t, mustPlanePNG(t, raw, dir, "4"))
	for i := 0; i < len(with); i += 4 {
		x, y := i/4%160, i/4/160
		if with[i] != without[i] && (x < 100 || y < 90) {
			t.Fatalf("the scale bar changes (%d,%d)", x, y)
		}
		if y == 120-8-2 && x >= 160-8-20 && x < 160-8 && (with[i] != 255 || with[i+1] != 255 || with[i+2] != 255) {
			t.Fatalf("no white bar at (%d,%d)", x, y)
		}
	}

	// Labels a metre away are refused, saying so.
	code, _, errs := vv("plane", raw, "--z", "4", "--out", filepath.Join(dir, "far.png"), "--overlay", filepath.Join(dir, "far.ome.zarr"))
	if code != 1 || !strings.Contains(errs, "far.ome.zarr: cannot be laid over") || !strings.Contains(errs, "outside the image along Y") || strings.Count(errs, "\n") != 1 {
		t.Errorf("labels beside the image: exit %d, %q", code, errs)
	}
	// Plane 5 (5 µm) is nearest the labels' plane 3 (6 µm), which they
	// lack: the picture is drawn without them, and says so.
	code, _, errs = vv("plane", raw, "--z", "5", "--out", filepath.Join(dir, "z5.png"), "--overlay", filepath.Join(dir, "labels.tif"))
	if code != 0 || !strings.Contains(errs, "labels.tif does not reach Z 5") {
		t.Errorf("a plane the labels do not reach: exit %d, %q", code, errs)
	}
	if !bytes.Equal(rgbaOf(t, filepath.Join(dir, "z5.png")), rgbaOf(t, mustPlanePNG(t, raw, dir, "5"))) {
		t.Error("a plane the labels do not reach is drawn unlike the plane alone")
	}
}

// mustPlanePNG draws plane z of src alone and returns the PNG's path.
func mustPlanePNG(t *testing.T, src, dir, z string) string {
	t.Helper()
	out := filepath.Join(dir, "alone-"+z+".png")
	mustRun(t, "plane", src, "--z", z, "--out", out)
	return out
}
