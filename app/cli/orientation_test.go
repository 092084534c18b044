package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
)

// TestInfoOrientation checks that info reports the orientation codes
// nibabel's aff2axcodes gives for NIfTI files stored LPS and oblique, in
// text and --json (with the frame and the affine), and none for a file
// that places its voxels nowhere.
func TestInfoOrientation(t *testing.T) {
	testtool.RequirePython(t, "nibabel", "numpy")
	dir := t.TempDir()
	out := testtool.RunPython(t, `
import sys, numpy as np, nibabel as nib
d = sys.argv[1]
a = np.zeros((4, 3, 2), np.uint8)
lps = np.diag([-1.0, -1.0, 2.0, 1.0]); lps[:3, 3] = [5, 6, 7]
c, s = np.cos(0.3), np.sin(0.3)
obl = np.array([[c, 0, s, 1], [0, 1, 0, 2], [-s, 0, c, 3], [0, 0, 0, 1]])
for name, aff in (("lps", lps), ("obl", obl)):
    img = nib.Nifti1Image(a, aff); img.header.set_xyzt_units("mm"); nib.save(img, d + "/" + name + ".nii")
    print("".join(nib.aff2axcodes(aff)))
img = nib.Nifti1Image(a, None); img.header.set_qform(None, code=0); img.header.set_sform(None, code=0)
nib.save(img, d + "/none.nii")
`, dir)
	codes := strings.Fields(string(out))
	for i, name := range []string{"lps", "obl"} {
		p := filepath.Join(dir, name+".nii")
		j := infoOf(t, p)
		if j.Orientation != codes[i] || j.Space != "RAS" || j.Affine == nil {
			t.Errorf("%s: orientation %q space %q affine %v; nibabel %s, RAS", name, j.Orientation, j.Space, j.Affine, codes[i])
		}
		if j.Oblique != (name == "obl") {
			t.Errorf("%s: oblique %v", name, j.Oblique)
		}
		if text := mustRun(t, "info", p); len(linesWith(text, "  orientation "+codes[i]+" (world: RAS mm")) != 1 {
			t.Errorf("%s: want orientation %s in\n%s", name, codes[i], text)
		}
	}
	if j := infoOf(t, filepath.Join(dir, "lps.nii")); j.Affine[0][0] != -1 || j.Affine[2][3] != 7 {
		t.Errorf("affine %v", j.Affine)
	}
	none := filepath.Join(dir, "none.nii")
	if js := mustRun(t, "info", "--json", none); strings.Contains(js, "orientation") {
		t.Errorf("no sform or qform: %s", js)
	}
	if text := mustRun(t, "info", none); strings.Contains(text, "orientation") {
		t.Errorf("no sform or qform:\n%s", text)
	}
}

// TestInfoValueUnit checks that info says a CT's values are Hounsfield
// units, with the modality, in text and --json, and gives an LPS frame.
func TestInfoValueUnit(t *testing.T) {
	ct := testtool.SharedData(t, "dicom/CT_small.dcm")
	j := infoOf(t, ct)
	if j.ValueUnit != "HU" || j.Modality != "CT" || j.Space != "LPS" || j.Orientation != "LPS" {
		t.Errorf("value unit %q modality %q space %q orientation %q; want HU CT LPS LPS", j.ValueUnit, j.Modality, j.Space, j.Orientation)
	}
	if text := mustRun(t, "info", ct); len(linesWith(text, "  values   stored × 1 + -1024 HU")) != 1 {
		t.Errorf("want the values' unit in\n%s", text)
	}
}
