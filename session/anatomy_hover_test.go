package session

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
	"vastview/render"
)

// hoverWorld reads the voxel index and the world position out of a hover
// read-out ("X 3  Y 4 ... Z 5   RAS 1.5, -2, 3 mm ...").
var hoverWorld = regexp.MustCompile(`(RAS|LPS) (\S+), (\S+), (\S+) mm`)

// hoverIndex reads the index on axis a out of a hover read-out.
func hoverIndex(text string, a byte) (int, bool) {
	m := regexp.MustCompile(`(?:^| )` + string(a) + ` (\d+)`).FindStringSubmatch(text)
	if m == nil {
		return 0, false
	}
	i, err := strconv.Atoi(m[1])
	return i, err == nil
}

// TestHoverWorldCoordinates hovers over the planes of NIfTI volumes
// (written by nibabel) whose affines turn, scale and shift their voxels,
// one stored RAS and others acquired sagittally (ASR) and coronally
// (LSA, storage axes a permutation of the patient's), in both
// conventions, and checks the world position shown against nibabel's
// apply_affine of the voxel shown, to 1e-4 mm, labelled scanner RAS; that
// the radiological convention puts the patient's right at the screen's
// left (axial, coronal) or anterior (sagittal), and anterior (axial) or
// superior (coronal, sagittal) up, whichever storage plane that is; and
// that the letters at the edges say so.
func TestHoverWorldCoordinates(t *testing.T) {
	testtool.RequirePython(t, "nibabel", "numpy")
	dir := t.TempDir()
	testtool.RunPython(t, `
import sys, numpy as np, nibabel as nib
c, s = np.cos(0.2), np.sin(0.2)
rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
perms = {"brain": ((0, 1, 2), (1, 1, 1)), "asr": ((1, 2, 0), (1, 1, 1)), "lsa": ((0, 2, 1), (-1, 1, 1))}
for name, (perm, sense) in perms.items():
    p = np.zeros((3, 3))
    for ax in range(3):
        p[perm[ax], ax] = sense[ax]
    aff = np.eye(4); aff[:3, :3] = rot @ p @ np.diag([0.9, 1.1, 2.5]); aff[:3, 3] = [-40.25, 17.5, 3.125]
    a = np.arange(30 * 24 * 12, dtype=np.int16).reshape(30, 24, 12)
    img = nib.Nifti1Image(a, aff); img.header.set_xyzt_units("mm"); nib.save(img, sys.argv[1] + "/" + name + ".nii")
`, dir)
	for _, name := range []string{"brain", "asr", "lsa"} {
		hoverWorldCoordinates(t, filepath.Join(dir, name+".nii"))
	}
}

// hoverWorldCoordinates is TestHoverWorldCoordinates on the volume at
// path.
func hoverWorldCoordinates(t *testing.T, path string) {
	t.Helper()
	type hover struct {
		idx   [3]int
		world [3]float64
	}
	var got []hover
	for _, conv := range []Convention{Radiological, Neurological} {
		h := newHarness(t, Options{})
		h.s.SetConvention(conv)
		src, err := loader.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.s.OpenSource(src, path); err != nil {
			t.Fatal(err)
		}
		// A complete frame first: the window takes only the newest frame,
		// so on a busy machine the first one it sees may be complete
		// already, and setting the orientation it shows makes no other.
		f := h.waitFrame(func(f *Frame) bool { return f.Info.Complete })
		for _, o := range []render.Orientation{render.XY, render.XZ, render.YZ} {
			if f.View.Orientation != o {
				h.s.SetOrientation(o)
				f = h.waitFrame(func(f *Frame) bool { return f.View.Orientation == o && f.Info.Complete })
			}
			at := func(x, y float64) hover {
				t.Helper()
				h.s.Hover(x, y, true)
				text := h.s.HoverText()
				m := hoverWorld.FindStringSubmatch(text)
				if m == nil || m[1] != "RAS" {
					t.Fatalf("%s %s: hover shows %q", conv, o, text)
				}
				var hv hover
				for i := range 3 {
					var ok bool
					if hv.idx[i], ok = hoverIndex(text, "XYZ"[i]); !ok {
						t.Fatalf("%s %s: no %c index in %q", conv, o, "XYZ"[i], text)
					}
					hv.world[i], _ = strconv.ParseFloat(m[2+i], 64)
				}
				got = append(got, hv)
				return hv
			}
			left, right := at(150, 150), at(250, 150)
			top, bottom := at(200, 100), at(200, 200)
			m := h.s.Meta()
			name := PlaneName(m, o)
			horiz, vert := 0, 2 // the world axes across and up the screen: R, S
			switch name {
			case "axial":
				vert = 1 // A
			case "sagittal":
				horiz = 1 // A
			case "":
				t.Fatalf("%s: no anatomical name", o)
			}
			toRight := right.world[horiz] - left.world[horiz] // along +R (+A for sagittal)
			if want := conv == Neurological && horiz == 0; (toRight > 0) != want {
				t.Errorf("%s %s %s (%s): world %c from the left of the screen to its right: %g", filepath.Base(path), conv, o, name, "RAS"[horiz], toRight)
			}
			if up := top.world[vert] - bottom.world[vert]; !(up > 0) {
				t.Errorf("%s %s %s (%s): world %c from the bottom of the screen to its top: %g", filepath.Base(path), conv, o, name, "RAS"[vert], up)
			}
			an, _ := anatomyOf(m)
			e := an.edges(h.s.View())
			wantLeft, wantTop := map[int]string{0: "R", 1: "A"}[horiz], map[int]string{1: "A", 2: "S"}[vert]
			if conv == Neurological && horiz == 0 {
				wantLeft = "L"
			}
			if e.Left != wantLeft || e.Top != wantTop {
				t.Errorf("%s %s %s (%s): letters %+v, want %s at the left, %s at the top", filepath.Base(path), conv, o, name, e, wantLeft, wantTop)
			}
		}
	}
	idx := make([][3]int, len(got))
	for i, hv := range got {
		idx[i] = hv.idx
	}
	js, _ := json.Marshal(idx)
	out := testtool.RunPython(t, `
import sys, json, numpy as np, nibabel as nib
from nibabel.affines import apply_affine
aff = nib.load(sys.argv[1]).affine
print(json.dumps(apply_affine(aff, np.array(json.loads(sys.argv[2]))).tolist()))
`, path, string(js))
	var want [][3]float64
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	for i, hv := range got {
		for k := range 3 {
			if math.Abs(hv.world[k]-want[i][k]) > 1e-4 {
				t.Errorf("voxel %v: world %v, nibabel %v", hv.idx, hv.world, want[i])
				break
			}
		}
	}
}
