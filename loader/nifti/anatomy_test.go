package nifti

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// anatomyScript prints, for each NIfTI file in argv[1:], what nibabel
// reads of its anatomy: the sform and qform codes, the best affine, its
// aff2axcodes and obliquity, and apply_affine of a few voxel indices.
const anatomyScript = `
import sys, json, numpy as np, nibabel as nib
from nibabel.affines import apply_affine, obliquity
out = []
for p in sys.argv[1:]:
    img = nib.load(p)
    h = img.header
    aff = h.get_best_affine()
    ijk = np.array([[0, 0, 0], [1, 2, 3], [5.5, -2, 7], [30, 40, 20]], float)
    out.append({
        "sform_code": int(h["sform_code"]), "qform_code": int(h["qform_code"]),
        "codes": "".join(nib.aff2axcodes(aff)),
        "obliquity": [float(v) for v in obliquity(aff)],
        "ijk": ijk.tolist(), "world": apply_affine(aff, ijk).tolist(),
    })
print(json.dumps(out))
`

// writeAnatomyScript writes a small NIfTI file to argv[2] whose sform and
// qform are set as the JSON spec in argv[1] says.
const writeAnatomyScript = `
import sys, json, numpy as np, nibabel as nib
spec = json.loads(sys.argv[1])
cls = nib.Nifti2Image if spec.get("nifti2") else nib.Nifti1Image
img = cls(np.arange(4 * 5 * 6, dtype=np.int16).reshape(4, 5, 6), None)
img.set_qform(np.array(spec["qform"], float), code=spec["qcode"])
img.set_sform(np.array(spec["sform"], float), code=spec["scode"])
img.header.set_xyzt_units("mm")
nib.save(img, sys.argv[2])
`

// turned returns the affine of zooms z, rotated by a degrees about x, then
// b about y, then c about z, and moved to o.
func turned(z [3]float64, a, b, c float64, o [3]float64) [][]float64 {
	rad := math.Pi / 180
	rx := [3][3]float64{{1, 0, 0}, {0, math.Cos(a * rad), -math.Sin(a * rad)}, {0, math.Sin(a * rad), math.Cos(a * rad)}}
	ry := [3][3]float64{{math.Cos(b * rad), 0, math.Sin(b * rad)}, {0, 1, 0}, {-math.Sin(b * rad), 0, math.Cos(b * rad)}}
	rz := [3][3]float64{{math.Cos(c * rad), -math.Sin(c * rad), 0}, {math.Sin(c * rad), math.Cos(c * rad), 0}, {0, 0, 1}}
	mul := func(p, q [3][3]float64) (m [3][3]float64) {
		for i := range 3 {
			for j := range 3 {
				for k := range 3 {
					m[i][j] += p[i][k] * q[k][j]
				}
			}
		}
		return m
	}
	r := mul(rz, mul(ry, rx))
	out := make([][]float64, 4)
	for i := range 3 {
		out[i] = []float64{r[i][0] * z[0], r[i][1] * z[1], r[i][2] * z[2], o[i]}
	}
	out[3] = []float64{0, 0, 0, 1}
	return out
}

// diag returns the affine of signed zooms z moved to o.
func diag(z [3]float64, o [3]float64) [][]float64 { return turned(z, 0, 0, 0, o) }

type nibAnatomy struct {
	SformCode int          `json:"sform_code"`
	QformCode int          `json:"qform_code"`
	Codes     string       `json:"codes"`
	Obliquity []float64    `json:"obliquity"`
	IJK       [][3]float64 `json:"ijk"`
	World     [][3]float64 `json:"world"`
}

// checkAnatomy compares the anatomy vastview reads from each file with
// nibabel's, and checks that the levels' translation is the same
// transform's offset.
func checkAnatomy(t *testing.T, paths []string) {
	t.Helper()
	var want []nibAnatomy
	out := testtool.RunPython(t, anatomyScript, paths...)
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("python output %q: %v", out, err)
	}
	for i, p := range paths {
		w := want[i]
		src, err := loader.Open(context.Background(), p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		m := src.Meta()
		a := m.Anatomy
		src.Close()
		name := filepath.Base(p)
		if w.SformCode == 0 && w.QformCode == 0 {
			if a != nil {
				t.Errorf("%s: no sform or qform, yet anatomy %+v", name, a)
			}
			continue
		}
		if a == nil {
			t.Errorf("%s: no anatomy; nibabel reads %s", name, w.Codes)
			continue
		}
		for k, c := range "XYZ" {
			if i := m.AxisIndex(byte(c)); i >= 0 && m.Levels[0].Translation[i] != a.Affine[k][3] {
				t.Errorf("%s: translation %v (%s), the affine's offset is column 3 of %v", name, m.Levels[0].Translation, m.Axes, a.Affine)
			}
		}
		if a.Space != loader.SpaceRAS {
			t.Errorf("%s: space %q, want RAS", name, a.Space)
		}
		if got := a.Codes(); got != w.Codes {
			t.Errorf("%s: codes %s, nibabel's aff2axcodes %s", name, got, w.Codes)
		}
		obl := a.Obliquity()
		oblique := false
		for k := range 3 {
			if math.Abs(obl[k]-w.Obliquity[k]) > 1e-4 {
				t.Errorf("%s: obliquity %v, nibabel %v", name, obl, w.Obliquity)
				break
			}
			oblique = oblique || w.Obliquity[k] > 1e-3
		}
		if a.Oblique() != oblique {
			t.Errorf("%s: Oblique() %v with nibabel's obliquity %v", name, a.Oblique(), w.Obliquity)
		}
		for k, ijk := range w.IJK {
			got := a.World(ijk[0], ijk[1], ijk[2])
			for r := range 3 {
				if math.Abs(got[r]-w.World[k][r]) > 1e-4 {
					t.Errorf("%s: voxel %v at %v mm, nibabel's apply_affine %v", name, ijk, got, w.World[k])
					break
				}
			}
		}
	}
}

// TestAnatomyNibabelData reads the orientation of nibabel's own test files.
func TestAnatomyNibabelData(t *testing.T) {
	testtool.RequirePython(t, "nibabel", "numpy")
	dir := string(testtool.RunPython(t, "import nibabel, os; print(os.path.dirname(nibabel.__file__), end='')"))
	var paths []string
	for _, f := range []string{"anatomical.nii", "example4d.nii.gz", "example_nifti2.nii.gz", "functional.nii",
		"reoriented_anat_moved.nii", "resampled_anat_moved.nii", "standard.nii.gz"} {
		paths = append(paths, filepath.Join(dir, "tests", "data", f))
	}
	checkAnatomy(t, paths)
}

// TestAnatomyWritten reads the orientation of files nibabel writes with
// stored orders RAS, LPS, LAS, permuted and oblique, and every way of
// setting the sform and qform codes.
func TestAnatomyWritten(t *testing.T) {
	testtool.RequirePython(t, "nibabel", "numpy")
	ras := diag([3]float64{2, 3, 4}, [3]float64{-10, 20, 5.5})
	lps := diag([3]float64{-1, -1.5, 2}, [3]float64{90, 120, -60})
	las := diag([3]float64{-0.9, 1.1, 3}, [3]float64{45, -60, -30})
	obl := turned([3]float64{1.2, 0.8, 2.5}, 20, -15, 35, [3]float64{3, -4, 12})
	obl2 := turned([3]float64{-1, 1, 1}, 0, 44, 0, [3]float64{0, 0, 0})
	perm := [][]float64{{0, 0, -2, 50}, {1.5, 0, 0, -20}, {0, -1, 0, 30}, {0, 0, 0, 1}}
	cases := []struct {
		name         string
		sform, qform [][]float64
		scode, qcode int
		nifti2       bool
	}{
		{"ras-both", ras, ras, 1, 1, false},
		{"lps-sform", lps, ras, 2, 0, false},
		{"las-qform", ras, las, 0, 1, false},
		{"oblique-sform", obl, ras, 4, 1, false},
		{"oblique-qform", lps, obl, 0, 2, false},
		{"oblique-flipped-qform", lps, obl2, 0, 1, false},
		{"sform-wins", ras, lps, 1, 1, false},
		{"permuted", perm, perm, 3, 3, false},
		{"no-codes", ras, las, 0, 0, false},
		{"nifti2-oblique-qform", ras, obl, 0, 1, true},
		{"nifti2-las-sform", las, obl, 2, 1, true},
	}
	dir := t.TempDir()
	var paths []string
	for _, c := range cases {
		spec, _ := json.Marshal(map[string]any{"sform": c.sform, "qform": c.qform, "scode": c.scode, "qcode": c.qcode, "nifti2": c.nifti2})
		p := filepath.Join(dir, c.name+".nii")
		testtool.RunPython(t, writeAnatomyScript, string(spec), p)
		paths = append(paths, p)
	}
	checkAnatomy(t, paths)
}

// TestTimeStepNibabelData checks that nibabel's 4-D test files (fMRI runs)
// have a T axis whose step is the TR nibabel reads (get_zooms()[3]) in its
// xyzt_units time unit.
func TestTimeStepNibabelData(t *testing.T) {
	testtool.RequirePython(t, "nibabel", "numpy")
	out := testtool.RunPython(t, `
import os, json, nibabel as nib
d = os.path.join(os.path.dirname(nib.__file__), "tests", "data")
out = []
for f in ("example4d.nii.gz", "functional.nii", "example_nifti2.nii.gz"):
    h = nib.load(os.path.join(d, f)).header
    out.append({"path": os.path.join(d, f), "shape": [int(v) for v in h.get_data_shape()],
        "tr": float(h.get_zooms()[3]), "unit": h.get_xyzt_units()[1]})
print(json.dumps(out))
`)
	var want []struct {
		Path  string  `json:"path"`
		Shape []int   `json:"shape"`
		TR    float64 `json:"tr"`
		Unit  string  `json:"unit"`
	}
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("python output %q: %v", out, err)
	}
	for _, w := range want {
		src, err := loader.Open(context.Background(), w.Path)
		if err != nil {
			t.Fatal(err)
		}
		m := src.Meta()
		src.Close()
		ti := m.AxisIndex('T')
		if ti < 0 || m.Shape[ti] != w.Shape[3] || m.Spacing[ti] != w.TR || m.Units[ti] != ngffUnit[w.Unit] {
			t.Errorf("%s: axes %s shape %v spacing %v units %q; nibabel: %d time points, TR %v %s",
				filepath.Base(w.Path), m.Axes, m.Shape, m.Spacing, m.Units, w.Shape[3], w.TR, w.Unit)
		}
	}
}
