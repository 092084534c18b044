package cli

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
)

// radioScript writes NIfTI volumes stored RAS, LPS and LAS (nibabel), and
// the same as NRRD in LPS space, each
// of noise in 20..120 with a marker of 230 in the patient's right,
// anterior, superior octant, and for each the pictures the conventions
// show of the three planes through the marker, computed from nibabel's
// reorientation to RAS: radiological axial = ras[:, :, k].T flipped on
// both axes (right at the left, anterior up), coronal likewise (right at
// the left, superior up), sagittal likewise (anterior at the left,
// superior up); neurological mirrors axial and coronal back; storage is
// the stored plane. It prints, per volume, its name and the marker's
// storage index x y z.
const radioScript = `
import sys, numpy as np, nibabel as nib
d = sys.argv[1]
shape = (64, 56, 48)
rng = np.random.default_rng(7)
for name, diag in (("ras", (1, 1, 1)), ("lps", (-1, -1, 1)), ("las", (-1, 1, 1))):
    aff = np.diag([float(v) for v in diag] + [1.0]); aff[:3, 3] = [-30, 20, 5]
    ras = rng.integers(20, 121, shape).astype(np.uint8)
    m = [n * 3 // 4 for n in shape]  # right, anterior, superior in RAS order
    ras[m[0]-1:m[0]+2, m[1]-1:m[1]+2, m[2]-1:m[2]+2] = 230
    # the stored array: RAS flipped where the file's axes run the other way
    ornt = nib.io_orientation(aff)
    assert list(ornt[:, 0]) == [0, 1, 2]
    a = ras.copy()
    idx = list(m)
    for ax, f in enumerate(ornt[:, 1]):
        if f < 0:
            a = np.flip(a, ax)
            idx[ax] = shape[ax] - 1 - m[ax]
    img = nib.Nifti1Image(a, aff); img.header.set_xyzt_units("mm")
    nib.save(img, d + "/" + name + ".nii")
    # The same volume as NRRD in LPS space (x fastest): RAS's first two
    # directions negated.
    dirs = " ".join("(%g,%g,%g)" % tuple(aff[:3, c] * [-1, -1, 1]) for c in range(3))
    org = "(%g,%g,%g)" % tuple(aff[:3, 3] * [-1, -1, 1])
    with open(d + "/" + name + ".nrrd", "wb") as f:
        f.write(("NRRD0004\ntype: uint8\ndimension: 3\nspace: left-posterior-superior\nsizes: %d %d %d\n"
                 "space directions: %s\nspace origin: %s\nencoding: raw\n\n" % (shape + (dirs, org))).encode())
        f.write(np.ascontiguousarray(a.transpose(2, 1, 0)).tobytes())
    assert (nib.as_closest_canonical(img).get_fdata() == ras).all()
    i, j, k = idx
    can = {"xy": ras[:, :, m[2]].T, "xz": ras[:, m[1], :].T, "yz": ras[m[0], :, :].T}
    sto = {"xy": a[:, :, k].T, "xz": a[:, j, :].T, "yz": a[i, :, :].T}
    for p in ("xy", "xz", "yz"):
        rad = can[p][::-1, ::-1]
        neu = rad if p == "yz" else can[p][::-1, :]
        for conv, pic in (("radiological", rad), ("neurological", neu), ("storage", sto[p])):
            np.ascontiguousarray(pic).tofile("%s/%s-%s-%s.raw" % (d, name, p, conv))
    print(name, i, j, k)
`

// TestPlanePNGRadiological draws the three planes through a marker of
// NIfTI volumes (nibabel) and NRRD volumes (written by hand, LPS space)
// stored RAS, LPS and LAS, in the radiological (default),
// neurological and storage conventions, and compares every pixel with
// nibabel's reorientation laid out as ITK-SNAP lays it out; the marker
// lands in the quadrant the convention says (radiological: top left in
// every plane) and the orientation letters are drawn at the four edges.
// The .raw plane stays in storage order.
func TestPlanePNGRadiological(t *testing.T) {
	testtool.RequirePython(t, "nibabel", "numpy")
	dir := t.TempDir()
	out := testtool.RunPython(t, radioScript, dir)
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var name string
		var at [3]int
		if _, err := fmt.Sscan(line, &name, &at[0], &at[1], &at[2]); err != nil {
			t.Fatalf("python printed %q", line)
		}
		for _, ext := range []string{".nii", ".nrrd"} {
			planePNGs(t, dir, name, filepath.Join(dir, name+ext), at)
		}
	}
	if code, _, errs := vv("plane", filepath.Join(dir, "ras.nii"), "--out", filepath.Join(dir, "x.png"), "--orient", "sideways"); code != 1 || !strings.Contains(errs, "--orient") {
		t.Errorf("--orient sideways: exit %d, %q", code, errs)
	}
}

// planePNGs checks the pictures of src, the volume name of
// TestPlanePNGRadiological, through its marker at storage index at.
func planePNGs(t *testing.T, dir, name, src string, at [3]int) {
	t.Helper()
	for p, index := range map[string]int{"xy": at[2], "xz": at[1], "yz": at[0]} {
		for _, conv := range []string{"radiological", "neurological", "storage"} {
			png := filepath.Join(dir, fmt.Sprintf("%s-%s-%s.png", name, p, conv))
			args := []string{"plane", src, "--out", png, "--plane", p, "--index", fmt.Sprint(index), "--level-range", "0,255"}
			if conv != "radiological" || p == "xz" { // the default, and said outright
				args = append(args, "--orient", conv)
			}
			mustRun(t, args...)
			want, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%s-%s-%s.raw", name, p, conv)))
			if err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("%s %s %s", filepath.Base(src), p, conv)
			mx, my := checkPicture(t, what, testtool.ReadPNG(t, png), want)
			if conv == "radiological" && (mx != -1 || my != -1) {
				t.Errorf("%s: the marker is not at the top left (quadrant %d, %d)", what, mx, my)
			}
			if conv == "neurological" && p != "yz" && (mx != 1 || my != -1) {
				t.Errorf("%s: the marker is not at the top right (quadrant %d, %d)", what, mx, my)
			}
		}
	}
	checkPlane(t, src, filepath.Join(dir, name+"-xy-storage.raw"), "--plane", "xy", "--index", fmt.Sprint(at[2]), "--orient", "radiological")
}

// checkPicture compares the gray picture img with want (row-major
// bytes), apart from where the orientation letters go (the middle of
// each edge), where it wants a white letter (brighter than the noise); it returns the quadrant of
// the marker (value 230): -1 or 1 for left or right, top or bottom.
func checkPicture(t *testing.T, what string, img image.Image, want []byte) (qx, qy int) {
	t.Helper()
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w*h != len(want) {
		t.Fatalf("%s: picture %dx%d, want %d samples", what, w, h, len(want))
	}
	zone := func(x, y int) int { // 1..4: left, right, top, bottom letter
		switch {
		case x < 20 && abs(2*y-h) < 24:
			return 1
		case x >= w-20 && abs(2*y-h) < 24:
			return 2
		case y < 22 && abs(2*x-w) < 24:
			return 3
		case y >= h-22 && abs(2*x-w) < 24:
			return 4
		}
		return 0
	}
	var letter [5]bool
	bad, sx, sy, n := 0, 0, 0, 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r, _, _, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			got := byte(r >> 8)
			if z := zone(x, y); z > 0 {
				letter[z] = letter[z] || got > 160 && got != 230 // brighter than the noise: a letter
				continue
			}
			if got != want[y*w+x] {
				if bad++; bad <= 3 {
					t.Errorf("%s: pixel (%d,%d) = %d, want %d", what, x, y, got, want[y*w+x])
				}
			}
			if got == 230 {
				sx, sy, n = sx+x, sy+y, n+1
			}
		}
	}
	for z, name := range []string{"", "left", "right", "top", "bottom"} {
		if z > 0 && !letter[z] {
			t.Errorf("%s: no letter at the %s edge", what, name)
		}
	}
	if n == 0 {
		t.Fatalf("%s: no marker", what)
	}
	qx, qy = 1, 1
	if 2*sx < n*w {
		qx = -1
	}
	if 2*sy < n*h {
		qy = -1
	}
	return qx, qy
}

func abs(x int) int { return max(x, -x) }

// TestPlaneWindowInFileUnits: plane --window and --level-range are in the
// file's units, NIfTI's scl_slope and scl_inter applied (nibabel writes
// them), as the viewer's window and hover are.
func TestPlaneWindowInFileUnits(t *testing.T) {
	testtool.RequirePython(t, "nibabel", "numpy")
	dir := t.TempDir()
	src := filepath.Join(dir, "ct.nii")
	testtool.RunPython(t, `
import sys, numpy as np, nibabel as nib
a = np.array([[[0]], [[25]], [[50]], [[75]], [[100]]], np.uint8)  # x 0..4, one row, one plane
img = nib.Nifti1Image(a, np.eye(4)); img.header.set_slope_inter(2.0, -100.0); nib.save(img, sys.argv[1])
`, src)
	// Values 2*stored-100: -100, -50, 0, 50, 100; the window -50..50.
	for _, args := range [][]string{{"--window", "100,0"}, {"--level-range", "-50,50"}} {
		out := filepath.Join(dir, "w.png")
		mustRun(t, append([]string{"plane", src, "--out", out, "--orient", "storage"}, args...)...)
		img := testtool.ReadPNG(t, out)
		for x, want := range []uint32{0, 0, 128, 255, 255} {
			if r, _, _, _ := img.At(x, 0).RGBA(); r>>8 != want {
				t.Errorf("%v: pixel %d = %d, want %d", args, x, r>>8, want)
			}
		}
	}
}
