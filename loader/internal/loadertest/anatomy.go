package loadertest

import (
	"encoding/json"
	"math"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// AnatomyCase is a source's anatomy (Got) and the affine the test wrote
// into its file (Want, in the world frame Space).
type AnatomyCase struct {
	Name  string
	Got   *loader.Anatomy
	Want  [3][4]float64
	Space string
}

// anatomyIndices are the sample indices whose world positions are compared.
var anatomyIndices = [][3]float64{{0, 0, 0}, {1, 2, 3}, {5.5, -2, 7}, {30, 40, 20}}

// nibabelAnatomyScript prints, for each affine (in RAS) of the JSON list in
// argv[1], nibabel's aff2axcodes and apply_affine of the indices in argv[2].
const nibabelAnatomyScript = `
import sys, json, numpy as np, nibabel as nib
from nibabel.affines import apply_affine
ijk = np.array(json.loads(sys.argv[2]), float)
out = []
for a in json.loads(sys.argv[1]):
    aff = np.vstack([np.array(a, float), [0, 0, 0, 1]])
    out.append({"codes": "".join(nib.aff2axcodes(aff)), "world": apply_affine(aff, ijk).tolist()})
print(json.dumps(out))
`

// CheckAnatomies compares each case with nibabel: the frame is Space, the
// orientation codes are aff2axcodes of Want (taken to RAS), and World of a
// few indices, taken to RAS, is apply_affine's to 1e-4 mm.
func CheckAnatomies(t *testing.T, cases []AnatomyCase) {
	t.Helper()
	testtool.RequirePython(t, "nibabel", "numpy")
	ras := make([][3][4]float64, len(cases))
	for i, c := range cases {
		ras[i] = (&loader.Anatomy{Affine: c.Want, Space: c.Space}).In(loader.SpaceRAS).Affine
	}
	affs, _ := json.Marshal(ras)
	idx, _ := json.Marshal(anatomyIndices)
	var want []struct {
		Codes string       `json:"codes"`
		World [][3]float64 `json:"world"`
	}
	out := testtool.RunPython(t, nibabelAnatomyScript, string(affs), string(idx))
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("python output %q: %v", out, err)
	}
	for i, c := range cases {
		if c.Got == nil {
			t.Errorf("%s: no anatomy; nibabel reads %s", c.Name, want[i].Codes)
			continue
		}
		if c.Got.Space != c.Space {
			t.Errorf("%s: world frame %s, want %s", c.Name, c.Got.Space, c.Space)
		}
		if got := c.Got.Codes(); got != want[i].Codes {
			t.Errorf("%s: codes %s, nibabel's aff2axcodes %s", c.Name, got, want[i].Codes)
		}
		r := c.Got.In(loader.SpaceRAS)
		for k, ijk := range anatomyIndices {
			got := r.World(ijk[0], ijk[1], ijk[2])
			for a := range 3 {
				if math.Abs(got[a]-want[i].World[k][a]) > 1e-4 {
					t.Errorf("%s: sample %v at RAS %v mm, nibabel's apply_affine %v", c.Name, ijk, got, want[i].World[k])
					break
				}
			}
		}
	}
}
