package main

import (
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"vastview/base/testtool"
	"vastview/render"
)

// TestWindowRadiological opens NIfTI volumes stored RAS and LPS (written
// by nibabel, the same anatomy in both: a bright marker in the patient's
// right, anterior half on the middle axial plane) in a real window: the
// marker is at the top left of the picture (the patient's right at the
// screen's left, anterior up, as ITK-SNAP shows it), the letters R, L, A
// and P are at the left, right, top and bottom edges (compared with the
// same drawing code on a blank picture), and hovering over the marker
// shows its voxel and the world position nibabel's apply_affine gives for
// it, to 1e-4 mm, labelled RAS.
func TestWindowRadiological(t *testing.T) {
	dir, bin := windowTest(t)
	testtool.RequirePython(t, "nibabel", "numpy")
	testtool.RunPython(t, `
import sys, numpy as np, nibabel as nib
shape = (120, 100, 40)
ras = np.random.default_rng(3).integers(0, 101, shape).astype(np.int16)
m = (shape[0] * 3 // 4, shape[1] * 3 // 4, shape[2] // 2)  # right, anterior, the middle plane
ras[m[0]-4:m[0]+4, m[1]-4:m[1]+4, m[2]-1:m[2]+2] = 1000
for name, diag in (("ras", (1, 1, 1)), ("lps", (-1, -1, 1))):
    aff = np.diag([float(d) for d in diag] + [1.0]); aff[:3, 3] = [-60.5, -50.25, -20.125]
    a = ras
    for ax, f in enumerate(diag):
        if f < 0:
            a = np.flip(a, ax)
    img = nib.Nifti1Image(np.ascontiguousarray(a), aff); img.header.set_xyzt_units("mm")
    nib.save(img, sys.argv[1] + "/" + name + ".nii")
`, dir)
	for _, name := range []string{"ras", "lps"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name+".nii")
			home := filepath.Join(dir, name+"-home")
			v := startViewer(t, bin, home, filepath.Join(dir, name+".jsonl"), path)
			f := v.frameAt(0, 20, true)
			waitFor(t, "the layout event", 10*time.Second, func() bool { return v.count("layout") > 0 })
			pr := v.events("layout")[0]["picture"].([]any)
			w, h := int(f["width"].(float64)), int(f["height"].(float64))
			want := image.NewRGBA(image.Rect(0, 0, w, h))
			render.DrawEdges(want, render.Edges{Left: "R", Right: "L", Top: "A", Bottom: "P"})
			shot := filepath.Join(dir, name+"-shot.png")
			var pic image.Image
			var bad error
			waitFor(t, "the letters on screen", 20*time.Second, func() bool {
				testtool.Run(t, "import", "-window", v.win, shot)
				pic = subImage(testtool.ReadPNG(t, shot), image.Pt(int(pr[0].(float64)), int(pr[1].(float64))), w, h)
				bad = matchLetters(pic, want)
				return bad == nil
			})
			if bad != nil {
				t.Fatal(bad)
			}
			// The marker: bright pixels in the top left quarter, none in
			// the top right or bottom left (the scale bar is at the
			// bottom right); the letters' bands along the middles apart.
			var n [2][2]int
			var sx, sy int
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					if abs(2*x-w) < 80 || abs(2*y-h) < 80 || !bright(pic.At(x, y)) {
						continue
					}
					qx, qy := min(1, 2*x/w), min(1, 2*y/h)
					n[qy][qx]++
					if qx == 0 && qy == 0 {
						sx, sy = sx+x, sy+y
					}
				}
			}
			if n[0][0] < 100 || n[0][1] > 0 || n[1][0] > 0 {
				t.Fatalf("bright pixels by quarter (top left, top right; bottom left, bottom right): %v; want the marker at the top left (screenshot %s)", n, shot)
			}
			// Hover over the marker's middle.
			mx, my := int(pr[0].(float64))+sx/n[0][0], int(pr[1].(float64))+sy/n[0][0]
			hoverIsNibabels(t, v, path, mx, my, "[59.5, 49.5, 19.5]")
		})
	}
}

// subImage is the w × h part of img at off.
func subImage(img image.Image, off image.Point, w, h int) image.Image {
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			out.Set(x, y, img.At(off.X+x, off.Y+y))
		}
	}
	return out
}

// bright is a white pixel: a letter, the marker or the scale bar.
func bright(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return r>>8 > 200 && g>>8 > 200 && b>>8 > 200
}

// matchLetters checks that the bright pixels of pic around each letter
// of want (drawn on black) are want's, within a pixel of shift and 10%.
func matchLetters(pic, want image.Image) error {
	b := want.Bounds()
	w, h := b.Dx(), b.Dy()
	zones := []image.Rectangle{ // left, right, top, bottom
		image.Rect(0, h/2-30, 60, h/2+30), image.Rect(w-60, h/2-30, w, h/2+30),
		image.Rect(w/2-30, 0, w/2+30, 60), image.Rect(w/2-30, h-60, w/2+30, h),
	}
	for i, z := range zones {
		best := -1.0
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				same, all := 0, 0
				for y := z.Min.Y; y < z.Max.Y; y++ {
					for x := z.Min.X; x < z.Max.X; x++ {
						a, c := bright(want.At(x, y)), bright(pic.At(x+dx, y+dy))
						if a || c {
							all++
						}
						if a && c {
							same++
						}
					}
				}
				if all > 0 {
					best = max(best, float64(same)/float64(all))
				}
			}
		}
		if best < 0.9 {
			return fmt.Errorf("the %s letter differs from %q: %.0f%% of the bright pixels agree",
				[]string{"left", "right", "top", "bottom"}[i], []string{"R", "L", "A", "P"}[i], 100*max(best, 0))
		}
	}
	return nil
}

// parseHover reads the voxel index and the RAS world position out of a
// hover read-out.
func parseHover(text string) (idx [3]int, world [3]float64, err error) {
	for i, a := range []string{"X", "Y", "Z"} {
		m := regexp.MustCompile(`(?:^| )` + a + ` (\d+)`).FindStringSubmatch(text)
		if m == nil {
			return idx, world, fmt.Errorf("no %s index in %q", a, text)
		}
		idx[i], _ = strconv.Atoi(m[1])
	}
	m := regexp.MustCompile(`RAS (\S+), (\S+), (\S+) mm`).FindStringSubmatch(text)
	if m == nil {
		return idx, world, fmt.Errorf("no RAS position in %q", text)
	}
	for i := range 3 {
		if world[i], err = strconv.ParseFloat(m[1+i], 64); err != nil {
			return idx, world, err
		}
	}
	return idx, world, nil
}

func abs(x int) int { return max(x, -x) }

// TestWindowRadiologicalSagittalAcquisition opens a NIfTI volume stored
// sagittally (nibabel, axis codes ASR: X anterior, Y superior, Z right;
// a bright marker in the patient's right, anterior half on the middle
// axial plane) in a real window and lays out the four panels: the top
// left panel is the axial plane (the stored XZ plane, transposed and
// mirrored) with R, L, A and P at its left, right, top and bottom edges
// and the marker in its top left quarter, as ITK-SNAP shows it; hovering
// over the marker shows its voxel and the world position nibabel's
// apply_affine gives for it, to 1e-4 mm, in the patient's right and
// anterior half.
func TestWindowRadiologicalSagittalAcquisition(t *testing.T) {
	dir, bin := windowTest(t)
	testtool.RequirePython(t, "nibabel", "numpy")
	path := filepath.Join(dir, "asr.nii")
	testtool.RunPython(t, `
import sys, numpy as np, nibabel as nib
shape = (120, 100, 40)
ras = np.random.default_rng(5).integers(0, 101, shape).astype(np.int16)
m = (shape[0] * 3 // 4, shape[1] * 3 // 4, shape[2] // 2)  # right, anterior, the middle axial plane
ras[m[0]-4:m[0]+4, m[1]-4:m[1]+4, m[2]-1:m[2]+2] = 1000
a = np.ascontiguousarray(ras.transpose(1, 2, 0))  # x anterior, y superior, z right
aff = np.array([[0, 0, 1, -60.5], [1, 0, 0, -50.25], [0, 1, 0, -20.125], [0, 0, 0, 1]], float)
img = nib.Nifti1Image(a, aff); img.header.set_xyzt_units("mm")
assert nib.aff2axcodes(aff) == ("A", "S", "R")
assert (nib.as_closest_canonical(img).get_fdata() == ras).all()
nib.save(img, sys.argv[1])
`, path)
	v := startViewer(t, bin, filepath.Join(dir, "home"), filepath.Join(dir, "trace.jsonl"), path)
	v.key("b", "4", "alt+6") // no scale bar; four panels; the mediastinum window, -125 to 225: the noise gray, the marker white
	// The latest complete frame of the four panels (its size a panel's:
	// the top left one's) and the latest layout (where the picture is):
	// both settle once the window has its size.
	var pr []any
	var pw, ph int
	shot := filepath.Join(dir, "shot.png")
	var pic image.Image
	bad := fmt.Errorf("no frame of the four panels")
	waitFor(t, "the axial panel's letters on screen", 30*time.Second, func() bool {
		var f map[string]any
		for _, e := range traceEvents(t, v.trace) {
			if (e["event"] == "frame_shown" || e["event"] == "refined") && e["panel"] != nil && e["complete"] == true {
				f = e
			}
		}
		ls := v.events("layout")
		if f == nil || len(ls) == 0 {
			return false
		}
		pr = ls[len(ls)-1]["picture"].([]any)
		pw, ph = int(f["width"].(float64)), int(f["height"].(float64))
		want := image.NewRGBA(image.Rect(0, 0, pw, ph))
		render.DrawEdges(want, render.Edges{Left: "R", Right: "L", Top: "A", Bottom: "P"})
		testtool.Run(t, "import", "-window", v.win, shot)
		pic = subImage(testtool.ReadPNG(t, shot), image.Pt(int(pr[0].(float64)), int(pr[1].(float64))), pw, ph)
		bad = matchLetters(pic, want)
		return bad == nil
	})
	if bad != nil {
		t.Fatalf("%v (screenshot %s)", bad, shot)
	}
	// The marker: bright pixels in the top left quarter of the panel,
	// none in the top right; the letters' bands along the middles apart.
	var n [2]int
	var sx, sy int
	for y := 0; y < ph/2-40; y++ {
		for x := 0; x < pw; x++ {
			if abs(2*x-pw) < 80 || !bright(pic.At(x, y)) {
				continue
			}
			q := min(1, 2*x/pw)
			n[q]++
			if q == 0 {
				sx, sy = sx+x, sy+y
			}
		}
	}
	if n[0] < 100 || n[1] > 0 {
		t.Fatalf("bright pixels in the axial panel's top left and top right quarters: %v; want the marker at the top left (screenshot %s)", n, shot)
	}
	mx, my := int(pr[0].(float64))+sx/n[0], int(pr[1].(float64))+sy/n[0]
	hoverIsNibabels(t, v, path, mx, my, "[49.5, 19.5, 59.5]")
}

// hoverIsNibabels moves the pointer to (mx, my) in the window, over the
// marker (value 1000), and checks hover's world position against
// nibabel's apply_affine of the voxel it names, to 1e-4 mm; the marker
// lies in the patient's right, anterior half (the volume's centre is the
// voxel centre, as JSON).
func hoverIsNibabels(t *testing.T, v *viewer, path string, mx, my int, centre string) {
	t.Helper()
	testtool.Run(t, "xdotool", "mousemove", "--window", v.win, strconv.Itoa(mx), strconv.Itoa(my))
	var text string
	waitFor(t, "the hover read-out over the marker", 10*time.Second, func() bool {
		for _, e := range v.events("hover") {
			if s, _ := e["text"].(string); regexp.MustCompile(`value 1000\b`).MatchString(s) {
				text = s
			}
		}
		return text != ""
	})
	idx, world, err := parseHover(text)
	if err != nil {
		t.Fatal(err)
	}
	out := testtool.RunPython(t, `
import sys, json, numpy as np, nibabel as nib
from nibabel.affines import apply_affine
print(json.dumps(apply_affine(nib.load(sys.argv[1]).affine, json.loads(sys.argv[2])).tolist()))
`, path, fmt.Sprintf("[[%d, %d, %d], %s]", idx[0], idx[1], idx[2], centre))
	var refs [2][3]float64 // the voxel's, the volume's centre's
	if err := json.Unmarshal(out, &refs); err != nil {
		t.Fatal(err)
	}
	ref, mid := refs[0], refs[1]
	for k := range 3 {
		if math.Abs(world[k]-ref[k]) > 1e-4 {
			t.Errorf("hover %q: world %v, nibabel's apply_affine of voxel %v: %v", text, world, idx, ref)
			break
		}
	}
	if !(ref[0] > mid[0] && ref[1] > mid[1]) {
		t.Errorf("the voxel under the marker on screen, %v, is at RAS %v, the volume's centre at %v", idx, ref, mid)
	}
}
