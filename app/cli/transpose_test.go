package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
)

// permutedScript writes NIfTI volumes (nibabel) whose storage axes are a
// permutation of the patient's, as sagittal and coronal acquisitions
// are (axis codes ASR, PIR, RSA, LSA, IPL), and the same as NRRD in LPS
// space; noise in 20..120 with a marker of 230 in the patient's right,
// anterior, superior octant; the three sides differ in length, so that a
// plane laid out the wrong way round has the wrong size. For each storage
// plane through the marker it writes the picture the convention shows,
// from nibabel's as_closest_canonical reorientation to RAS: the
// anatomical plane the storage plane is (axial, coronal or sagittal by
// its normal's code) as radiologicalPlane lays it out, and the stored
// plane for storage order. It prints, per volume, its name, the
// marker's storage index x y z and the names of the xy, xz and yz planes.
const permutedScript = `
import sys, numpy as np, nibabel as nib
d = sys.argv[1]
rng = np.random.default_rng(11)
cases = {"asr": "ASR", "pir": "PIR", "rsa": "RSA", "lsa": "LSA", "ipl": "IPL"}
ras_shape = (80, 72, 64)
for name, codes in cases.items():
    ornt = nib.orientations.axcodes2ornt(tuple(codes))  # storage axis -> RAS axis, sense
    aff = np.zeros((4, 4)); aff[3, 3] = 1
    for ax, (w, s) in enumerate(ornt):
        aff[int(w), ax] = s
    aff[:3, 3] = [-20, 15, 8]
    shape = tuple(ras_shape[int(w)] for w, _ in ornt)
    a = rng.integers(20, 121, shape).astype(np.uint8)
    img = nib.Nifti1Image(a, aff)
    assert nib.aff2axcodes(aff) == tuple(codes)
    can = nib.as_closest_canonical(img)
    m = np.array([n * 3 // 4 for n in ras_shape])  # right, anterior, superior
    idx = np.rint(np.linalg.solve(aff, can.affine @ np.append(m, 1))[:3]).astype(int)
    a[tuple(slice(i - 1, i + 2) for i in idx)] = 230
    img = nib.Nifti1Image(a, aff); img.header.set_xyzt_units("mm")
    nib.save(img, d + "/" + name + ".nii")
    dirs = " ".join("(%g,%g,%g)" % tuple(aff[:3, c] * [-1, -1, 1]) for c in range(3))
    org = "(%g,%g,%g)" % tuple(aff[:3, 3] * [-1, -1, 1])
    with open(d + "/" + name + ".nrrd", "wb") as f:
        f.write(("NRRD0004\ntype: uint8\ndimension: 3\nspace: left-posterior-superior\nsizes: %d %d %d\n"
                 "space directions: %s\nspace origin: %s\nencoding: raw\n\n" % (shape + (dirs, org))).encode())
        f.write(np.ascontiguousarray(a.transpose(2, 1, 0)).tobytes())
    ras = nib.as_closest_canonical(img).get_fdata().astype(np.uint8)
    assert ras[tuple(m)] == 230
    anat = {0: ("sagittal", ras[m[0], :, :]), 1: ("coronal", ras[:, m[1], :]), 2: ("axial", ras[:, :, m[2]])}
    i, j, k = idx
    sto = {"xy": (2, a[:, :, k].T), "xz": (1, a[:, j, :].T), "yz": (0, a[i, :, :].T)}
    names = []
    for p, (normal, stored) in sto.items():
        plane, pic = anat[int(ornt[normal][0])]
        names.append(plane)
        rad = pic.T[::-1, ::-1]  # rows superior or anterior first, columns right or anterior first
        neu = rad if plane == "sagittal" else rad[:, ::-1]
        for conv, out in (("radiological", rad), ("neurological", neu), ("storage", stored)):
            np.ascontiguousarray(out).tofile("%s/%s-%s-%s.raw" % (d, name, p, conv))
    print(name, i, j, k, *names)
`

// TestPlanePNGPermutedAxes draws the three storage planes through a
// marker of volumes acquired sagittally and coronally (storage axes a
// permutation of R, A, S, not just flips) in each convention and
// compares every pixel with nibabel's reorientation to RAS laid out as
// ITK-SNAP lays it out: the axial plane (whichever storage plane is
// normal to S) with R at the left and A up, coronal R left and S up,
// sagittal A left and S up, the marker at the top left; storage order
// draws the stored plane; .raw stays in storage order.
func TestPlanePNGPermutedAxes(t *testing.T) {
	testtool.RequirePython(t, "nibabel", "numpy")
	dir := t.TempDir()
	out := testtool.RunPython(t, permutedScript, dir)
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var name string
		var at [3]int
		var names [3]string
		if _, err := fmt.Sscan(line, &name, &at[0], &at[1], &at[2], &names[0], &names[1], &names[2]); err != nil {
			t.Fatalf("python printed %q", line)
		}
		for _, ext := range []string{".nii", ".nrrd"} {
			src := filepath.Join(dir, name+ext)
			for i, p := range []string{"xy", "xz", "yz"} {
				index := at[2-i]
				for _, conv := range []string{"radiological", "neurological", "storage"} {
					png := filepath.Join(dir, fmt.Sprintf("%s-%s-%s%s.png", name, p, conv, ext))
					args := []string{"plane", src, "--out", png, "--plane", p, "--index", fmt.Sprint(index), "--level-range", "0,255"}
					if conv != "radiological" {
						args = append(args, "--orient", conv)
					}
					mustRun(t, args...)
					want, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%s-%s-%s.raw", name, p, conv)))
					if err != nil {
						t.Fatal(err)
					}
					what := fmt.Sprintf("%s %s (%s) %s", filepath.Base(src), p, names[i], conv)
					mx, my := checkPicture(t, what, testtool.ReadPNG(t, png), want)
					if conv == "radiological" && (mx != -1 || my != -1) {
						t.Errorf("%s: the marker is not at the top left (quadrant %d, %d)", what, mx, my)
					}
				}
			}
			checkPlane(t, src, filepath.Join(dir, name+"-xy-storage.raw"), "--plane", "xy", "--index", fmt.Sprint(at[2]))
		}
	}
}
