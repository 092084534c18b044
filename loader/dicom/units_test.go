package dicom

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// modalityLUTScript prints, for each DICOM series (a JSON list of lists of
// files in argv[1]), its Modality and pydicom's apply_modality_lut of the
// first three samples of each file's pixel_array, the files sorted along
// the slice normal.
const modalityLUTScript = `
import sys, json, numpy as np, pydicom
from pydicom.pixel_data_handlers.util import apply_modality_lut
out = []
for names in json.loads(sys.argv[1]):
    ds = [pydicom.dcmread(f) for f in names]
    n = np.cross(np.array(ds[0].ImageOrientationPatient[:3], float), np.array(ds[0].ImageOrientationPatient[3:], float))
    ds.sort(key=lambda d: float(np.dot(np.array(d.ImagePositionPatient, float), n)))
    v = [apply_modality_lut(d.pixel_array, d).ravel()[:3].astype(float).tolist() for d in ds]
    out.append({"modality": ds[0].Modality, "values": v})
print(json.dumps(out))
`

// TestValueUnits checks that CT values become Hounsfield units: the unit is
// "HU" for CT (none for MR), and ValueScale maps stored samples to what
// pydicom's apply_modality_lut gives.
func TestValueUnits(t *testing.T) {
	testtool.RequirePython(t, "pydicom", "numpy")
	pyd := string(testtool.RunPython(t, "import pydicom, os; print(os.path.dirname(pydicom.__file__), end='')"))
	ct5n := testtool.SharedData(t, "dicom/CT5N_series")
	files := [][]string{{filepath.Join(pyd, "data", "test_files", "CT_small.dcm")}, {filepath.Join(pyd, "data", "test_files", "MR_small.dcm")}, nil}
	for _, n := range []string{"2062", "2392", "2693", "3023", "3353"} {
		files[2] = append(files[2], filepath.Join(ct5n, n))
	}
	paths := []string{files[0][0], files[1][0], ct5n}
	list, _ := json.Marshal(files)
	var want []struct {
		Modality string      `json:"modality"`
		Values   [][]float64 `json:"values"`
	}
	out := testtool.RunPython(t, modalityLUTScript, string(list))
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("python output %q: %v", out, err)
	}
	for i, p := range paths {
		src, data := readAll(t, p)
		m := src.Meta()
		unit := map[string]string{"CT": "HU"}[want[i].Modality]
		if m.Modality != want[i].Modality || m.ValueUnit != unit {
			t.Errorf("%s: modality %q unit %q, want %q %q", p, m.Modality, m.ValueUnit, want[i].Modality, unit)
		}
		plane := m.Size('Y') * m.Size('X') * m.DType.Size()
		for z, vals := range want[i].Values {
			for k, w := range vals {
				off := z*plane + k*m.DType.Size()
				var stored float64
				switch m.DType {
				case loader.Int16:
					stored = float64(int16(binary.LittleEndian.Uint16(data[off:])))
				case loader.Uint16:
					stored = float64(binary.LittleEndian.Uint16(data[off:]))
				default:
					t.Fatalf("%s: dtype %v", p, m.DType)
				}
				if got := m.ValueScale.Value(stored); math.Abs(got-w) > 1e-9 {
					t.Errorf("%s: plane %d sample %d: %v, pydicom's apply_modality_lut %v", p, z, k, got, w)
				}
			}
		}
	}
}

// TestDoseUnits checks that an RT dose's values are scaled by
// DoseGridScaling into DoseUnits, as pydicom reads them.
func TestDoseUnits(t *testing.T) {
	testtool.RequirePython(t, "pydicom")
	out := testtool.RunPython(t, `
import os, json, pydicom
p = os.path.join(os.path.dirname(pydicom.__file__), "data", "test_files", "rtdose.dcm")
d = pydicom.dcmread(p)
print(json.dumps({"path": p, "scale": float(d.DoseGridScaling), "units": d.DoseUnits}))
`)
	var want struct {
		Path  string  `json:"path"`
		Scale float64 `json:"scale"`
		Units string  `json:"units"`
	}
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("python output %q: %v", out, err)
	}
	src, _ := readAll(t, want.Path)
	m := src.Meta()
	if m.ValueScale == nil || m.ValueScale.Slope != want.Scale || m.ValueScale.Intercept != 0 || m.ValueUnit != want.Units {
		t.Errorf("value scale %+v unit %q; pydicom: DoseGridScaling %v, DoseUnits %q", m.ValueScale, m.ValueUnit, want.Scale, want.Units)
	}
}
