package dicom

import (
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// positionsScript reads each DICOM series (a JSON list of lists of files
// in argv[1]) with pydicom
// and prints where its samples lie: the planes sorted along the slice
// normal (or a multi-frame object's frames in stored order), the patient
// position (LPS) of sample (x, y) of plane z from that plane's own
// ImagePositionPatient (an RT dose's frames: offset from it along the
// normal by GridFrameOffsetVector), ImageOrientationPatient and
// PixelSpacing, and the
// orientation codes nibabel's aff2axcodes gives the affine they make.
const positionsScript = `
import sys, os, json, numpy as np, pydicom, nibabel as nib
out = []
for names in json.loads(sys.argv[1]):
    ds = [pydicom.dcmread(f) for f in names]
    d0 = ds[0]
    iop = getattr(d0, "ImageOrientationPatient", None)
    if iop is None:
        iop = d0.SharedFunctionalGroupsSequence[0].PlaneOrientationSequence[0].ImageOrientationPatient
    r, c = np.array(iop[:3], float), np.array(iop[3:], float)
    normal = np.cross(r, c)
    dy, dx = [float(v) for v in d0.PixelSpacing]
    if "GridFrameOffsetVector" in d0:
        off = [float(o) for o in d0.GridFrameOffsetVector]
        P = [np.array(d0.ImagePositionPatient, float) + normal * (o - off[0]) for o in off]
    elif int(getattr(d0, "NumberOfFrames", 1)) > 1:
        P = [np.array(g.PlanePositionSequence[0].ImagePositionPatient, float) for g in d0.PerFrameFunctionalGroupsSequence]
    else:
        ds.sort(key=lambda d: (float(np.dot(np.array(d.ImagePositionPatient, float), normal)), int(d.InstanceNumber or 0)))
        P = [np.array(d.ImagePositionPatient, float) for d in ds]
    n = len(P)
    zcol = (P[-1] - P[0]) / (n - 1) if n > 1 else normal
    aff = np.eye(4)
    aff[:3, 0], aff[:3, 1], aff[:3, 2], aff[:3, 3] = r * dx, c * dy, zcol, P[0]
    ras = np.diag([-1, -1, 1, 1]) @ aff
    pts, world = [], []
    for z in sorted({0, n // 2, n - 1}):
        for x, y in ((0, 0), (3, 5), (d0.Columns - 1, d0.Rows - 1)):
            pts.append([x, y, z])
            world.append((P[z] + x * dx * r + y * dy * c).tolist())
    out.append({"codes": "".join(nib.aff2axcodes(ras)), "points": pts, "world": world})
print(json.dumps(out))
`

// TestAnatomy compares the patient positions of samples, and the
// orientation codes, with those pydicom's attributes give: real files
// (pydicom's CT, MR and RT dose, and a CT series), and series pydicom writes turned obliquely,
// shuffled, and as enhanced multi-frame objects in both frame orders.
func TestAnatomy(t *testing.T) {
	testtool.RequirePython(t, "pydicom", "nibabel", "numpy")
	pyd := string(testtool.RunPython(t, "import pydicom, os; print(os.path.dirname(pydicom.__file__), end='')"))
	ct5n := testtool.SharedData(t, "dicom/CT5N_series")
	files := [][]string{{filepath.Join(pyd, "data", "test_files", "CT_small.dcm")}, {filepath.Join(pyd, "data", "test_files", "MR_small.dcm")},
		{filepath.Join(pyd, "data", "test_files", "rtdose.dcm")}, nil}
	for _, n := range []string{"2062", "2392", "2693", "3023", "3353"} {
		files[3] = append(files[3], filepath.Join(ct5n, n))
	}
	paths := []string{files[0][0], files[1][0], files[2][0], ct5n}
	c, s := math.Cos(0.5), math.Sin(0.5)
	oblique := []float64{c, s, 0, 0, 0, -1}
	written := []series{
		{N: 5, Rows: 6, Cols: 7, DType: "<i2", Orient: oblique, Origin: []float64{10, -20, 30}, Step: 1.25, Shuffle: true},
		{N: 4, Rows: 5, Cols: 6, DType: "<u2", Orient: []float64{0, 1, 0, 0, 0, -1}, Origin: []float64{-3, 4, 5}, Step: 3, PixelSpacing: []float64{0.8, 0.6}},
		{Frames: 5, Rows: 6, Cols: 8, DType: "<i2", Step: 0.7, FrameSign: 1, Orient: oblique},
		{Frames: 4, Rows: 6, Cols: 8, DType: "<i2", Step: 0.7, FrameSign: -1, Orient: []float64{1, 0, 0, 0, 0, -1}},
		{N: 1, Rows: 6, Cols: 8, DType: "<u1", Orient: oblique, Origin: []float64{1, 2, 3}},
	}
	for k := range written {
		written[k].Prefix, written[k].Desc = string(rune('A'+k)), "s"+itoa(k)
	}
	dir, exp := generate(t, "", written...)
	for k, e := range exp {
		var names []string
		for _, f := range e.Files {
			names = append(names, filepath.Join(dir, f))
		}
		files = append(files, names)
		paths = append(paths, dir+"#s"+itoa(k))
	}
	list, _ := json.Marshal(files)
	var want []struct {
		Codes  string       `json:"codes"`
		Points [][3]float64 `json:"points"`
		World  [][3]float64 `json:"world"`
	}
	out := testtool.RunPython(t, positionsScript, string(list))
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("python output %q: %v", out, err)
	}
	for i, p := range paths {
		src, _ := readAll(t, p)
		a := src.Meta().Anatomy
		if a == nil {
			t.Errorf("%s: no anatomy", p)
			continue
		}
		if a.Space != loader.SpaceLPS || a.Codes() != want[i].Codes {
			t.Errorf("%s: %s codes %s; want LPS, nibabel's aff2axcodes %s", p, a.Space, a.Codes(), want[i].Codes)
		}
		for k, q := range want[i].Points {
			got := a.World(q[0], q[1], q[2])
			for r := range 3 {
				if math.Abs(got[r]-want[i].World[k][r]) > 1e-4 {
					t.Errorf("%s: sample %v at %v mm, pydicom's position %v", p, q, got, want[i].World[k])
					break
				}
			}
		}
	}
}
